"""Compiling and checking ast-grep patterns before any file is read.

What happens here, and why:

- The pattern becomes an ast-grep-py rule (``pattern: {context, selector,
  strictness}``, see ast-grep's rule reference); configuration errors from
  ast-grep (an unknown ``sel`` kind, a pattern of several nodes) become a
  :class:`~xcsh.core.ToolError` with ast-grep's own explanation.
- A pattern whose tree holds an ERROR node, or that cannot even match its
  own source, is refused (SPEC §4): the CLI silently finds nothing for it.
  The check parses the pattern the way ast-grep does (``$`` replaced by the
  language's expando character) and runs the rule on it.
- The *fixed tokens* of a pattern, the text of its leaves that are not
  metavariables, are collected: every match contains each of them, so a
  file whose bytes lack one cannot match and is never parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ast_grep_py import SgNode, SgRoot

from xcsh.core import ToolError
from xcsh.structural.languages import Language

STRICTNESS_LEVELS = ("cst", "smart", "ast", "relaxed", "signature")
"""ast-grep's strictness levels; ``smart`` is the default, as in the CLI."""

# A metavariable is a whole leaf: `$NAME` or `$$$NAME`, NAME of [A-Z0-9_] (ast-grep meta_var.rs).
_PATTERN_META = re.compile(r"(?<![\w$])(\$\$\$|\$)([A-Z0-9_]+)(?![\w$])")
# Expando characters ast-grep substitutes for `$` in languages where `$` is not an identifier
# character (crates/language: impl_lang_expando!); `$` itself where it is one.
_EXPANDO = {
    "c": "_",
    "cpp": "_",
    "css": "_",
    "csharp": "µ",
    "go": "µ",
    "python": "µ",
    "ruby": "µ",
    "rust": "µ",
    "html": "$",
    "java": "$",
    "javascript": "$",
    "json": "$",
    "lua": "$",
    "scala": "$",
    "tsx": "$",
    "typescript": "$",
    "yaml": "$",
}
# Languages whose files cannot hold a bare statement at top level: a pattern is also parsed
# inside a function body, where real code lives (CASES S3: Go's `fmt.Println($$$A)` alone is a
# type conversion, inside a function a call, so the CLI silently finds nothing).
_BODY_WRAPPERS = {
    "go": "func µxcsh() {{\n{}\n}}",
    "rust": "fn xcsh() {{\n{}\n}}",
    "c": "void xcsh() {{\n{}\n}}",
    "cpp": "void xcsh() {{\n{}\n}}",
    "csharp": "class Xcsh {{ void M() {{\n{}\n}} }}",
    "java": "class Xcsh {{ void m() {{\n{}\n}} }}",
}
# For the other languages each candidate is tried, and no pre-filter tokens are derived.
_EXPANDO_CANDIDATES = ("µ", "_", "$")


@dataclass(frozen=True, kw_only=True)
class CompiledPattern:
    """A checked pattern, ready to run on files (picklable for worker processes).

    Attributes:
        source: the pattern text as given.
        language: the ast-grep-py language id.
        selector: the ``sel`` node kind, or ``None``.
        strictness: one of :data:`STRICTNESS_LEVELS`.
        rule: keyword arguments for ``SgNode.find_all``.
        single: names bound as single metavariables (``$A``), in order of appearance.
        multi: names bound as multi metavariables (``$$$A``).
        tokens: UTF-8 byte strings that every match contains (may be empty).
    """

    source: str
    language: str
    selector: str | None
    strictness: str
    rule: dict[str, Any]
    single: tuple[str, ...]
    multi: tuple[str, ...]
    tokens: tuple[bytes, ...]


def bound_metavariables(pattern: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The capturing metavariable names of ``pattern``: ``(single, multi)``.

    Names starting with ``_`` (``$_``, ``$$$_X``) capture nothing, as in ast-grep.
    """
    single: list[str] = []
    multi: list[str] = []
    for sigil, name in _PATTERN_META.findall(pattern):
        if name.startswith("_"):
            continue
        bucket = multi if sigil == "$$$" else single
        if name not in bucket:
            bucket.append(name)
    return tuple(single), tuple(multi)


def _substitute_expando(pattern: str, expando: str) -> str:
    # ast-grep's pre_process_pattern: `$` before [A-Z_] or in `$$$` becomes the expando char.
    if expando == "$":
        return pattern
    out: list[str] = []
    dollars = 0
    for ch in pattern:
        if ch == "$":
            dollars += 1
            continue
        sigil = expando if ("A" <= ch <= "Z" or ch == "_" or dollars == 3) else "$"
        out.append(sigil * dollars)
        dollars = 0
        out.append(ch)
    out.append((expando if dollars == 3 else "$") * dollars)
    return "".join(out)


def _rule_for(pattern: str, selector: str | None, strictness: str) -> dict[str, Any]:
    if selector is None and strictness == "smart":
        return {"pattern": pattern}
    spec: dict[str, Any] = {"context": pattern, "strictness": strictness}
    if selector is not None:
        spec["selector"] = selector
    return {"pattern": spec}


def _ast_grep_message(exc: BaseException) -> str:
    text = str(exc).split("Stack backtrace:")[0].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if re.match(r"^\d+:", line)]
    return causes[-1] if causes else (lines[0] if lines else type(exc).__name__)


def _has_error(node: SgNode) -> bool:
    return node.kind() == "ERROR" or node.find(kind="ERROR") is not None


def _leaves(node: SgNode, out: list[SgNode]) -> None:
    children = node.children()
    if not children:
        out.append(node)
        return
    for child in children:
        _leaves(child, out)


def _metavariable_texts(pattern: str, expando: str) -> set[str]:
    """How the pattern's metavariables read after ast-grep substituted ``$`` (``µA``, ``_A``)."""
    texts = {expando * 3}
    for sigil, name in _PATTERN_META.findall(pattern):
        texts.add(expando * len(sigil) + name)
        texts.add(sigil + name)
    return texts


def _fixed_tokens(node: SgNode, strictness: str, metavariables: set[str]) -> tuple[bytes, ...]:
    if strictness == "signature":  # leaf text is not compared at this level
        return ()
    leaves: list[SgNode] = []
    _leaves(node, leaves)
    tokens: list[bytes] = []
    for leaf in leaves:
        text = leaf.text()
        if (
            not text.strip()
            or text in metavariables
            or "$" in text
            or "µ" in text
            or "comment" in leaf.kind()
        ):
            continue
        if strictness in ("ast", "relaxed") and not leaf.is_named():
            continue  # unnamed nodes may be skipped at these levels
        token = text.encode("utf-8")
        if token not in tokens:
            tokens.append(token)
    return tuple(tokens)


def _context_hint(language: Language) -> str:
    return (
        "Add context: write enough surrounding code for the pattern to parse as one complete "
        f"{language.display} node, and pick the part to match with `sel` (its node kind), "
        "for example pat `func t() { fmt.Println($$$ARGS) }` with sel `call_expression` in Go."
    )


def _node_with_text(node: SgNode, text: str) -> SgNode | None:
    # The innermost node spanning exactly ``text``.
    for child in node.children():
        found = _node_with_text(child, text)
        if found is not None:
            return found
    return node if node.text() == text else None


def _check_in_body(
    pattern: str, language: Language, rule: dict[str, Any], probe: str, kind: str
) -> None:
    wrapper = _BODY_WRAPPERS.get(language.name)
    if wrapper is None:
        return
    body = SgRoot(wrapper.format(probe), language.name).root()
    if _has_error(body) or body.find(**rule) is not None:
        return  # not a statement-level snippet, or it matches where real code lives
    real = _node_with_text(body, probe)
    real_kind = real.kind() if real is not None else "something else"
    raise ToolError(
        f"The pattern `{pattern}` parses as `{kind}` on its own, but the same code inside a "
        f"function parses as `{real_kind}`, so it would match nothing. " + _context_hint(language)
    )


def compile_pattern(
    pattern: str,
    language: Language,
    *,
    selector: str | None = None,
    strictness: str = "smart",
) -> CompiledPattern:
    """Check ``pattern`` for ``language`` and compile it.

    Args:
        pattern: ast-grep pattern text (``$A``, ``$$$A``, ``$_``).
        language: from :func:`~xcsh.structural.languages.resolve_language`.
        selector: the node kind inside the pattern to match (``sel``), for
            patterns that need context to parse.
        strictness: one of :data:`STRICTNESS_LEVELS`.

    Returns:
        The compiled pattern with its bound metavariables and fixed tokens.

    Raises:
        ToolError: empty pattern, unknown strictness, an ast-grep configuration
            error (unknown ``sel`` kind, several nodes), or a pattern that does
            not parse as one node / cannot match its own kind (SPEC §4).
    """
    if not pattern.strip():
        raise ToolError("The pattern is empty. Give an ast-grep pattern such as `print($$$A)`.")
    if strictness not in STRICTNESS_LEVELS:
        raise ToolError(
            f"Unknown strictness '{strictness}'. Use one of: {', '.join(STRICTNESS_LEVELS)}."
        )
    selector = selector.strip() if selector and selector.strip() else None
    rule = _rule_for(pattern, selector, strictness)
    single, multi = bound_metavariables(pattern)
    config_error: str | None = None
    fallback: SgNode | None = None
    known = _EXPANDO.get(language.name)
    for expando in (known,) if known else _EXPANDO_CANDIDATES:
        probe = SgRoot(_substitute_expando(pattern, expando), language.name).root()
        try:
            found = probe.find(**rule)
        except RuntimeError as exc:  # ast-grep refused the rule itself
            config_error = _ast_grep_message(exc)
            break
        if found is None:
            continue
        if not _has_error(found):  # the node the pattern stands for parsed cleanly
            if selector is None:
                _check_in_body(pattern, language, rule, probe.text(), found.kind())
            return CompiledPattern(
                source=pattern,
                language=language.name,
                selector=selector,
                strictness=strictness,
                rule=rule,
                single=single,
                multi=multi,
                tokens=(
                    _fixed_tokens(found, strictness, _metavariable_texts(pattern, expando))
                    if known
                    else ()
                ),
            )
        fallback = fallback or found
    if config_error is not None:
        raise ToolError(
            f"ast-grep cannot use the pattern `{pattern}` for {language.display}: {config_error}. "
            + _context_hint(language)
        )
    what = (
        "contains a syntax error (an ERROR node)"
        if fallback is not None
        else ("does not parse as one node that it could match")
    )
    raise ToolError(
        f"The pattern `{pattern}` {what} in {language.display}, so it would match nothing. "
        + _context_hint(language)
    )
