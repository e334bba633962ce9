r"""What a bash command line runs, read with tree-sitter's bash grammar (through ast-grep).

:func:`resolve_commands` turns a command line into the *simple commands* it
would run, each as its literal words (program first), looking through what
only wraps or hides a program:

- lists, pipelines, subshells, ``{ ...; }``, ``if``/``while``/``for``/``case``
  bodies, function bodies (a function defined in the command counts as run),
  ``$(...)``, backticks and ``<(...)`` anywhere in a word;
- quoting: ``'t'ouch``, ``"touch"``, ``\touch``, ``$'\x74ouch'`` are all ``touch``;
  leading ``NAME=value`` assignments and redirections are left out;
- wrappers that run their arguments as a command: ``env``, ``command``,
  ``builtin``, ``exec``, ``nice``, ``nohup``, ``time``, ``timeout``, ``stdbuf``,
  ``setsid``, ``sudo``, ``xargs``, ``find -exec``/``-execdir``/``-ok``;
- ``bash -c STRING`` (and ``sh``, ``dash``, ``zsh``, ``ksh``), ``env -S STRING``
  and ``eval`` of literal words: the string is parsed in turn.

What cannot be known without running the command is *unresolved*: a program
named by a variable or a substitution (``$x``, ``$(echo touch)``,
``touch${IFS}x``), ``eval`` of anything but literal words, ``source``/``.`` of a
substitution, a shell reading its commands from standard input (a here-string,
a here-document or a pipe), nesting deeper than :data:`MAX_DEPTH`.

A program given by path counts by its file name (``/usr/bin/rm`` is ``rm``);
a copy or a link of a program under another name cannot be recognised.
"""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass, field

from ast_grep_py import SgNode, SgRoot

MAX_DEPTH = 8
"""How deeply ``bash -c`` / ``eval`` strings are parsed before the rest counts as unresolved."""
SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox"})
_WRAPPER_OPTIONS: dict[str, frozenset[str]] = {
    # options that take a value, per wrapper (the others take none)
    "env": frozenset({"-u", "--unset", "-C", "--chdir"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "setsid": frozenset(),
    "sudo": frozenset({"-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t"}),
    "doas": frozenset({"-u", "-C"}),
    "xargs": frozenset(
        {"-I", "-i", "-n", "-P", "-d", "-a", "-E", "-e", "-L", "-l", "-s", "--max-args"}
    ),
}
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_STRUCTURE = frozenset(
    {
        "program",
        "list",
        "pipeline",
        "subshell",
        "compound_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "do_group",
        "case_statement",
        "case_item",
        "negated_command",
        "function_definition",
        "redirected_statement",
        "variable_assignment",
        "variable_assignments",
        "declaration_command",
        "unset_command",
        "test_command",
        "command_substitution",
        "process_substitution",
        "binary_expression",
        "unary_expression",
        "parenthesized_expression",
        "arithmetic_expansion",
        "expansion",
        "string",
        "concatenation",
        "array",
        "heredoc_body",
        "herestring_redirect",
        "file_redirect",
        "heredoc_redirect",
    }
)


@dataclass
class ShellCommands:
    """The simple commands a command line runs (see the module's docstring).

    Attributes:
        commands: each simple command's literal words, program first.
        unresolved: the parts whose program cannot be known statically, as
            short descriptions (``"$x c: a program named by a variable or
            substitution"``).
        error: a description when the line is not valid bash ("" otherwise).
    """

    commands: list[list[str]] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    error: str = ""


class _Dynamic(Exception):
    """A word whose value is known only when the command runs."""


def resolve_commands(command: str) -> ShellCommands:
    """Parse ``command`` and list what it runs; never raises for any input."""
    found = ShellCommands()
    _parse_into(command, found, depth=0)
    unique: dict[tuple[str, ...], None] = dict.fromkeys(tuple(c) for c in found.commands)
    found.commands = [list(c) for c in unique]
    found.unresolved = list(dict.fromkeys(found.unresolved))
    return found


def _parse_into(text: str, found: ShellCommands, *, depth: int) -> None:
    if depth > MAX_DEPTH:
        found.unresolved.append(f"{_short(text)}: nested too deeply")
        return
    root = SgRoot(text, "bash").root()
    if _has_error(root):
        if depth == 0:
            found.error = "it is not valid bash (unbalanced quotes or brackets?)"
        else:
            found.unresolved.append(f"{_short(text)}: a string that is not valid bash")
        return
    _walk(root, found, depth)


def _has_error(node: SgNode) -> bool:
    return node.kind() == "ERROR" or any(_has_error(c) for c in node.children())


def _walk(node: SgNode, found: ShellCommands, depth: int) -> None:
    kind = node.kind()
    if kind == "command":
        _command(node, found, depth)
        return
    if kind == "redirected_statement":
        body = node.field("body")
        if body is not None and body.kind() == "command" and _feeds_stdin(node):
            _command(body, found, depth, stdin_fed=True)
            for child in node.children():
                if child != body:
                    _walk(child, found, depth)
            return
    if kind == "pipeline":
        children = [c for c in node.children() if c.is_named()]
        for i, child in enumerate(children):
            if i > 0 and child.kind() == "command":
                _command(child, found, depth, stdin_fed=True)
            else:
                _walk(child, found, depth)
        return
    for child in node.children():
        if child.is_named():
            _walk(child, found, depth)


def _feeds_stdin(statement: SgNode) -> bool:
    for child in statement.children():
        if child.kind() in ("herestring_redirect", "heredoc_redirect"):
            return True
        if child.kind() == "file_redirect" and child.text().lstrip("0").startswith("<"):
            return True
    return False


_SUBSTITUTIONS = ("command_substitution", "process_substitution")


def _command(node: SgNode, found: ShellCommands, depth: int, *, stdin_fed: bool = False) -> None:
    # Substitutions anywhere in the command run first, whatever the command is.
    for child in node.children():
        if child.kind() in _SUBSTITUTIONS:
            _walk(child, found, depth)
        else:
            for sub in child.find_all(any=[{"kind": k} for k in _SUBSTITUTIONS]):
                _walk(sub, found, depth)
    stdin_fed = stdin_fed or _feeds_stdin(node)
    words: list[str] = []
    name_node = node.field("name")
    if name_node is None:
        return  # only assignments
    parts = [name_node, *node.field_children("argument")]
    for i, part in enumerate(parts):
        try:
            words.append(_literal(part))
        except _Dynamic:
            if i == 0:
                found.unresolved.append(
                    f"{_short(node.text())}: a program named by a variable or substitution"
                )
                return
            words.append(_DYNAMIC_ARG)
    _resolve_words(words, node.text(), found, depth, stdin_fed=stdin_fed)


DYNAMIC_WORD = "$?"
"""Stands for an argument whose value is known only when the command runs (no rule
word equals it, so no prefix matches past it)."""
_DYNAMIC_ARG = DYNAMIC_WORD


def _resolve_words(
    words: list[str], text: str, found: ShellCommands, depth: int, *, stdin_fed: bool
) -> None:
    """Record ``words`` as a simple command, looking through wrappers and shells."""
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return
    program = os.path.basename(words[0])
    args = words[1:]
    if program in _WRAPPER_OPTIONS:
        found.commands.append(words)
        inner = _after_wrapper(program, args, found, text, depth)
        if program == "xargs" and not inner:
            inner = ["echo"]  # xargs runs echo when given no command
        if inner:
            _resolve_words(inner, text, found, depth, stdin_fed=stdin_fed)
        return
    found.commands.append(words)
    if program == "find":
        for inner in _find_exec(args):
            _resolve_words(inner, text, found, depth, stdin_fed=False)
    elif program in SHELLS:
        _shell(args, text, found, depth, stdin_fed=stdin_fed)
    elif program == "eval":
        if _DYNAMIC_ARG in args:
            found.unresolved.append(f"{_short(text)}: eval of a value known only when it runs")
        else:
            _parse_into(" ".join(args), found, depth=depth + 1)
    elif program in ("source", "."):
        if not args or args[0] == _DYNAMIC_ARG or args[0].startswith("/dev/fd/"):
            found.unresolved.append(f"{_short(text)}: source of a value known only when it runs")
        elif stdin_fed and args[0] in ("/dev/stdin", "-"):
            found.unresolved.append(f"{_short(text)}: source of its standard input")


def _after_wrapper(
    program: str, args: list[str], found: ShellCommands, text: str, depth: int
) -> list[str]:
    takes_value = _WRAPPER_OPTIONS[program]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if program == "env" and (arg in ("-S", "--split-string") or arg.startswith("-S")):
            string = (
                args[i + 1] if arg in ("-S", "--split-string") and i + 1 < len(args) else arg[2:]
            )
            if string == _DYNAMIC_ARG:
                found.unresolved.append(
                    f"{_short(text)}: env -S of a value known only when it runs"
                )
            else:
                _parse_into(string, found, depth=depth + 1)
            return []
        if program == "env" and _ASSIGNMENT.match(arg):
            i += 1
            continue
        if not arg.startswith("-") or arg == "-":
            break
        i += 2 if arg in takes_value else 1
    rest = args[i:]
    if program == "timeout" and rest:
        rest = rest[1:]  # the duration
    if rest and rest[0] == _DYNAMIC_ARG:
        found.unresolved.append(f"{_short(text)}: a program named by a variable or substitution")
        return []
    return rest


def _find_exec(args: list[str]) -> list[list[str]]:
    found: list[list[str]] = []
    i = 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            found.append(args[i + 1 : j])
            i = j
        i += 1
    return found


def _shell(
    args: list[str], text: str, found: ShellCommands, depth: int, *, stdin_fed: bool
) -> None:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-c" or (arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]):
            if i + 1 >= len(args) or args[i + 1] == _DYNAMIC_ARG:
                found.unresolved.append(f"{_short(text)}: a shell running a value known only then")
            else:
                _parse_into(args[i + 1], found, depth=depth + 1)
            return
        if arg in _SHELL_VALUE_OPTIONS:
            i += 2
            continue
        if arg.startswith(("-", "+")) and arg not in ("-", "--"):
            i += 1
            continue
        if arg == "--":
            i += 1
        break
    script = args[i:] if i < len(args) else []
    if not script or script[0] in ("-", "/dev/stdin"):
        if stdin_fed or script:
            found.unresolved.append(f"{_short(text)}: a shell reading commands from its input")
        else:
            found.unresolved.append(f"{_short(text)}: an interactive shell")
    elif script[0] == _DYNAMIC_ARG:
        found.unresolved.append(f"{_short(text)}: a shell running a file known only then")


def _literal(node: SgNode) -> str:
    """The value of a word node, or :class:`_Dynamic` when it depends on the run."""
    kind = node.kind()
    if kind == "command_name":
        children = [c for c in node.children() if c.is_named()]
        if len(children) != 1:
            raise _Dynamic
        return _literal(children[0])
    if kind in ("word", "number"):
        return _unescape(node.text())
    if kind == "raw_string":
        return node.text()[1:-1]
    if kind == "ansi_c_string":
        return _ansi_c(node.text()[2:-1])
    if kind == "string":
        out: list[str] = []
        for child in node.children():
            if child.kind() == '"':
                continue
            if child.kind() == "string_content":
                out.append(re.sub(r'\\([$`"\\\n])', r"\1", child.text()))
            else:
                raise _Dynamic
        return "".join(out)
    if kind == "concatenation":
        return "".join(_literal(c) for c in node.children())
    raise _Dynamic


def _unescape(text: str) -> str:
    # a glob or a ~ may expand to anything: not a literal word
    if re.search(r"(?<!\\)[*?[]", text) or text.startswith("~"):
        raise _Dynamic
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)


def _ansi_c(body: str) -> str:
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        raise _Dynamic from None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
