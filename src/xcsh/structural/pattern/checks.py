"""Checks on a pattern before any file is read: is it safe, and can it match at all?

- :func:`check_pattern_size` refuses patterns too long or too deep to match
  safely (ast-grep matches recursively).
- :func:`cannot_match` and :func:`check_in_body` decide whether a pattern
  probably matches nothing (its root is an ERROR node no completion of its
  text matches; or the same code inside a function parses as another kind),
  which :func:`~xcsh.structural.pattern.compile.compile_pattern` records as a
  :class:`~xcsh.structural.base.errors.Doubt`, raised only when nothing is found.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ast_grep_py import SgNode, SgRoot

from xcsh.core import ToolError
from xcsh.structural.base.errors import Doubt
from xcsh.structural.base.languages import Language

if TYPE_CHECKING:
    from ast_grep_py import Rule

EXPANDO_CANDIDATES = ("µ", "_", "$")
"""Expando characters tried for languages whose own one is not known (ast-grep puts the
language's expando where a pattern has ``$``)."""

# Languages whose files cannot hold a bare statement at top level: a pattern is also parsed
# inside a function body, where real code lives (contract case S3: Go's `fmt.Println($$$A)`
# alone is a type conversion, inside a function a call, so the CLI silently finds nothing).
BODY_WRAPPERS = {
    "go": "func µxcsh() {{\n{}\n}}",
    "rust": "fn xcsh() {{\n{}\n}}",
    "c": "void xcsh() {{\n{}\n}}",
    "cpp": "void xcsh() {{\n{}\n}}",
    "csharp": "class Xcsh {{ void M() {{\n{}\n}} }}",
    "java": "class Xcsh {{ void m() {{\n{}\n}} }}",
}


def named_kinds(node: SgNode, out: list[str]) -> None:
    """Append to ``out`` the named node kinds under ``node`` (ERROR left out), once each."""
    if node.is_named() and node.kind() not in out and node.kind() != "ERROR":
        out.append(node.kind())
    for child in node.children():
        named_kinds(child, out)


def holds_error(node: SgNode) -> bool:
    """Whether ``node`` is or holds an ERROR node."""
    return node.kind() == "ERROR" or node.find(kind="ERROR") is not None


_COMPLETIONS = ("", ")", "]", "}", ";", ");", " x", " x)", ":\n    pass", " {}", " {\n}", " end")


def cannot_match(root: SgNode, probe: str, rule: Rule, language: Language, strictness: str) -> bool:
    """Whether an ERROR-rooted pattern finds nothing in any completion of its own text.

    ast-grep matches an ERROR node of a pattern against a node of any kind, child by
    child, so such a pattern may still match real code (``[1, 2`` matches the list
    ``[1, 2]``, ``$A =`` an assignment). It is refused only when none of a few endings
    (``)``, ``}``, ``;``, ``: pass``, ...) turns its text into code it matches, at
    ``cst``/``smart`` and without ``$$$`` (which may absorb any difference).
    """
    if root.kind() != "ERROR" or strictness not in ("cst", "smart"):
        return False
    if "$$$" in probe or any(e * 3 in probe for e in EXPANDO_CANDIDATES):
        return False
    wrapper = BODY_WRAPPERS.get(language.name)
    for ending in _COMPLETIONS:
        texts = [probe + ending] + ([wrapper.format(probe + ending)] if wrapper else [])
        for text in texts:
            tree = SgRoot(text, language.name).root()
            if any(node.kind() != "ERROR" for node in tree.find_all(**rule)):
                return False
    return True


def _node_with_text(node: SgNode, text: str) -> SgNode | None:
    # The innermost node spanning exactly ``text``.
    for child in node.children():
        found = _node_with_text(child, text)
        if found is not None:
            return found
    return node if node.text() == text else None


def check_in_body(
    pattern: str, language: Language, rule: Rule, probe: str, kind: str
) -> Doubt | None:
    """Why the pattern probably matches nothing where real code lives, or ``None``."""
    wrapper = BODY_WRAPPERS.get(language.name)
    if wrapper is None:
        return None
    # As written, then as a statement: a C call pattern such as `free($A)` only
    # parses cleanly inside a function once it ends with `;`.
    for snippet in (probe, probe + ";"):
        body = SgRoot(wrapper.format(snippet), language.name).root()
        if holds_error(body):
            continue  # not a statement-level snippet in this form
        if body.find(**rule) is not None:
            return None  # it matches where real code lives
        break
    else:
        return None
    real = _node_with_text(body, probe)
    real_kind = real.kind() if real is not None else "something else"
    return Doubt(
        pattern=pattern,
        language=language.name,
        reason="other-kind",
        own_kind=kind,
        body_kind=real_kind,
    )


MAX_PATTERN_CHARS = 10_000
"""Longest pattern accepted, in characters (real patterns are a few lines)."""
MAX_PATTERN_DEPTH = 256
"""Deepest syntax tree a pattern may have: ast-grep matches recursively, and a
pattern nested thousands of levels deep exhausts its stack (a crash of the
whole process) or Python's recursion limit."""


def check_pattern_size(pattern: str, language: Language) -> None:
    """Refuse a pattern too long or too deeply nested to match safely.

    The tree is parsed (tree-sitter parses iteratively) and measured with an
    explicit stack, so the check itself cannot overflow.

    Raises:
        ToolError: longer than :data:`MAX_PATTERN_CHARS` characters, or nested
            deeper than :data:`MAX_PATTERN_DEPTH` levels; the message gives the
            size found and the limit.
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(
            f"The pattern is {len(pattern):,} characters long; the limit is "
            f"{MAX_PATTERN_CHARS:,}. Match a smaller piece of code (metavariables such as "
            "$$$A stand for any amount of it)."
        )
    stack = [(SgRoot(pattern, language.name).root(), 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_PATTERN_DEPTH:
            raise ToolError(
                f"The pattern is nested more than {MAX_PATTERN_DEPTH} levels deep. Match a "
                "smaller piece of code (metavariables such as $A stand for a whole "
                "subexpression)."
            )
        stack.extend((child, depth + 1) for child in node.children())
