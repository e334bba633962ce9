"""Rewrite templates: metavariable expansion and re-indentation as the ast-grep CLI does it.

ast-grep-py's ``SgNode.replace()`` inserts text verbatim, so the CLI's
algorithm (``crates/core/src/replacer/template.rs`` and ``indent.rs``) is
reproduced here:

1. The template is split at metavariables (``$A``, ``$$$A``; ``$$A`` reads
   as ``$A``; names are ``[A-Z0-9_]+``); each one remembers the indentation
   of its template line.
2. A captured text spanning several lines is first de-indented by the
   indentation of its own source line, then re-indented to the template's.
   ``$$$A`` inserts the source from its first node to its last, separators
   included (S5).
3. Every line of the expanded text after the first gets the indentation of
   the line where the match starts (S1). Indentation is only looked for in
   the 512 bytes before a position, as the CLI does.

Deliberate differences (contract §4): inserted line breaks use the file's line
ending; indentation made of tabs (or mixed) is carried as the exact
whitespace string instead of being counted as zero spaces, and where the
match's line is tab-indented (or, for a match at column 0, the file's first
indented line is) the template's own space indentation becomes tabs (one tab
per indentation step of the template); and a template naming
a metavariable the pattern does not bind is refused by :func:`parse_template`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from xcsh.core import ToolError

_MAX_LOOK_AHEAD = 512
_LINE_SPACES = re.compile(r"\n( +)")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# The first line indented before its first non-blank character.
_FIRST_INDENT = re.compile(r"^([ \t])[ \t]*\S", re.MULTILINE)
# The last file asked about and its answer: every match of a file asks with the same text.
_tabs_cache: tuple[str, bool] = ("", False)


def file_uses_tabs(text: str) -> bool:
    """Whether the first indented line of ``text`` is indented with a tab.

    Decides the indentation of a multi-line rewrite whose match starts at
    column 0 (a top-level statement), which has no indentation of its own to
    go by (contract §4: re-indentation respects tab-indented files).
    """
    global _tabs_cache
    if _tabs_cache[0] is text:
        return _tabs_cache[1]
    found = _FIRST_INDENT.search(text)
    uses = found is not None and found.group(1) == "\t"
    _tabs_cache = (text, uses)
    return uses


@dataclass(frozen=True, kw_only=True)
class TemplateVar:
    """A metavariable in a template: its name, kind and template indentation."""

    name: str
    multi: bool
    indent: str


@dataclass(frozen=True, kw_only=True)
class Template:
    """A parsed rewrite: ``fragments[0] var[0] fragments[1] ... fragments[-1]``."""

    source: str
    fragments: tuple[str, ...]
    variables: tuple[TemplateVar, ...]
    space_unit: int = 0
    """The smallest run of spaces indenting a template line (0: none); in a
    tab-indented file each such run becomes one tab."""


def indent_at(text: str, pos: int) -> str:
    """The indentation the CLI sees at ``pos`` of ``text``.

    The leading whitespace of the line containing ``pos``, taken only from
    the text before ``pos``; ``""`` when the line start is more than 512
    bytes back (the CLI's look-ahead limit). Spaces-only indentation equals
    the CLI's count; tabs are kept as they are (a deliberate difference).
    """
    newline = text.rfind("\n", 0, pos)
    segment = text[newline + 1 : pos]
    size = len(segment) if segment.isascii() else len(segment.encode("utf-8"))
    if size > (_MAX_LOOK_AHEAD - 1 if newline >= 0 else _MAX_LOOK_AHEAD):
        return ""
    stripped = segment.lstrip(" \t")
    lead = segment[: len(segment) - len(stripped)]
    if "\t" not in lead:
        return lead
    # The CLI counts only the spaces after the last tab; we keep the whole run.
    return lead


def _split_first_var(text: str) -> tuple[str, bool, int] | None:
    # ast-grep's split_first_meta_var: up to three `$`, then a name of [A-Z0-9_]
    # that does not start with a digit (`$1A` is text, as in the CLI).
    dollars = 1
    while dollars < 3 and text[dollars : dollars + 1] == "$":
        dollars += 1
    multi = dollars == 3
    end = dollars
    if text[end : end + 1].isdigit():
        return None
    while end < len(text) and text[end] in _NAME_CHARS:
        end += 1
    if end == dollars:
        return None
    return text[dollars:end], multi, end


def capture_key(var: TemplateVar) -> str:
    """Give the key of ``var`` in :func:`expand_template`'s captures.

    ``$$$A`` is looked up apart from ``$A``: where a rule binds ``$A``, ``$$$A`` inserts
    nothing, and a transform's result is never inserted through ``$$$``, as in the CLI.
    """
    return f"$$${var.name}" if var.multi else var.name


def template_names(rewrite: str) -> list[tuple[str, str]]:
    """List the metavariables a rewrite or fix text names, as ``(name, sigil)`` in order.

    ``$$A`` names ``A`` like ``$A``; ``$$$`` alone and ``$1`` are text.
    """
    return [
        (name, rewrite[i : i + length - len(name)])
        for i, name, _, length in _template_vars(rewrite)
    ]


def _template_vars(rewrite: str) -> Iterator[tuple[int, str, bool, int]]:
    """Each metavariable of ``rewrite``: ``(offset, name, is_multi, length)``, in order."""
    search = 0
    while (i := rewrite.find("$", search)) >= 0:
        found = _split_first_var(rewrite[i:])
        if found is None:
            search = i + 1
            continue
        name, is_multi, length = found
        yield i, name, is_multi, length
        search = i + length


def parse_template(
    rewrite: str,
    *,
    single: tuple[str, ...],
    multi: tuple[str, ...],
    pattern: str,
    strict: bool = True,
) -> Template:
    r"""Split ``rewrite`` at its metavariables and check each is bound by the pattern.

    Args:
        rewrite: the replacement text (``out``); ``\r\n`` is read as ``\n``.
        single: names the pattern binds as ``$NAME``.
        multi: names the pattern binds as ``$$$NAME``.
        pattern: the pattern text, for error messages.
        strict: refuse unbound names; a rule's ``fix`` is not strict (its metavariables
            may be bound on one branch of an ``any`` only): unbound ones insert nothing,
            as in the CLI.

    Raises:
        ToolError: the rewrite names a metavariable the pattern does not bind
            (contract §4; the CLI would silently insert nothing), or binds it with
            the other arity (``$A`` for a ``$$$A`` capture).
    """
    rewrite = rewrite.replace("\r\n", "\n")
    fragments: list[str] = []
    variables: list[TemplateVar] = []
    start = 0
    for i, name, is_multi, length in _template_vars(rewrite):
        bound = multi if is_multi else single
        if strict and name not in bound:
            sigil = "$$$" if is_multi else "$"
            other = single if is_multi else multi
            if name in other:
                hint = (
                    f" The pattern captures it as `{'$' if is_multi else '$$$'}{name}`; "
                    "use the same form in the rewrite."
                )
            elif name.startswith("_"):
                hint = " Metavariables starting with `_` capture nothing."
            else:
                names = [f"${n}" for n in single] + [f"$$${n}" for n in multi]
                hint = (
                    f" The pattern binds: {', '.join(names)}."
                    if names
                    else " The pattern binds no metavariables."
                )
            raise ToolError(
                f"The rewrite uses `{sigil}{name}`, which the pattern `{pattern}` does not "
                f"bind, so nothing could be inserted for it.{hint}"
            )
        fragments.append(rewrite[start:i])
        variables.append(TemplateVar(name=name, multi=is_multi, indent=indent_at(rewrite, i)))
        start = i + length
    fragments.append(rewrite[start:])
    runs = [len(run) for run in _LINE_SPACES.findall(rewrite)]
    return Template(
        source=rewrite,
        fragments=tuple(fragments),
        variables=tuple(variables),
        space_unit=min(runs) if runs else 0,
    )


def _is_spaces(indent: str) -> bool:
    return "\t" not in indent


def reindent(text: str, original: str, target: str) -> str:
    """Move the lines after the first of ``text`` from ``original`` to ``target`` indentation.

    With spaces only this is the CLI's ``indent_lines``: strip
    ``len(original) - len(target)`` spaces from every line that has them,
    or add the missing spaces to every line after the first. With tabs the
    indentation strings are swapped where a line starts with ``original``.
    """
    if original == target or "\n" not in text:
        return text
    if _is_spaces(original) and _is_spaces(target):
        if len(original) > len(target):
            prefix = " " * (len(original) - len(target))
            return "\n".join(
                line[len(prefix) :] if line.startswith(prefix) else line
                for line in text.split("\n")
            )
        extra = " " * (len(target) - len(original))
        return text.replace("\n", "\n" + extra)
    first, *rest = text.split("\n")
    if original == "":
        # Tab-indented code: blank lines stay blank (gofmt's shape), no trailing tabs.
        moved = [target + line if line.strip("\r") else line for line in rest]
        return "\n".join([first, *moved])
    moved = [target + line[len(original) :] if line.startswith(original) else line for line in rest]
    return "\n".join([first, *moved])


def expand_template(
    template: Template,
    text: str,
    match_start: int,
    captures: dict[str, tuple[int, int] | str | None],
    newline: str,
) -> str:
    """Build the replacement for one match, exactly as the CLI would (plus contract §4 differences).

    Args:
        template: from :func:`parse_template`.
        text: the whole file text (code points).
        match_start: code-point index where the match starts.
        captures: for each template variable (keyed by :func:`capture_key`), its
            ``(start, end)`` code-point range in ``text``, a text to insert (a
            transformed value, keyed by its name), or ``None`` when it captured nothing.
        newline: the file's line ending; template line breaks become it.

    Returns:
        The replacement text.
    """
    base = indent_at(text, match_start)
    fragments = template.fragments
    var_indents = [var.indent for var in template.variables]
    tabbed = "\t" in base or (base == "" and template.space_unit and file_uses_tabs(text))
    if tabbed and template.space_unit:
        # A tab-indented file: the template's space indentation becomes tabs (contract §4).
        unit = template.space_unit

        def tabify(spaces: str) -> str:
            tabs, rest = divmod(len(spaces), unit)
            return "\t" * tabs + " " * rest

        fragments = tuple(
            _LINE_SPACES.sub(lambda m: "\n" + tabify(m.group(1)), frag) for frag in fragments
        )
        var_indents = [tabify(i) if i and _is_spaces(i) else i for i in var_indents]
    if newline != "\n":
        fragments = tuple(frag.replace("\n", newline) for frag in fragments)
    parts = [fragments[0]]
    for var, indent, frag in zip(template.variables, var_indents, fragments[1:], strict=True):
        span = captures.get(capture_key(var))
        if isinstance(span, str):  # a transformed value (a rule's `transform`)
            parts.append(reindent(span, "", indent) if "\n" in span else span)
        elif span is not None:
            start, end = span
            value = text[start:end]
            if "\n" in value:
                value = reindent(value, indent_at(text, start), indent)
            parts.append(value)
        parts.append(frag)
    expanded = "".join(parts)
    return reindent(expanded, "", base)
