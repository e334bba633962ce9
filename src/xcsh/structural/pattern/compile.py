"""Compiling and checking ast-grep patterns before any file is read.

What happens here, and why:

- The pattern becomes an ast-grep-py rule (``pattern: {context, selector,
  strictness}``, see ast-grep's rule reference); configuration errors from
  ast-grep (an unknown ``sel`` kind, a pattern of several nodes) become a
  :class:`~xcsh.core.ToolError` with ast-grep's own explanation.
- The pattern is parsed the way ast-grep parses it (``$`` replaced by the
  language's expando character) and the rule is run on that text. It is
  refused (contract §4) only when ast-grep itself would find nothing in code
  that parses: it does not match its own source; its root is an ERROR node
  and no completion of its text (a closing ``)``, ``}``, ``;``, ...) gives
  code it matches (at ``cst``/``smart``, without ``$$$``); or (Go, Rust, C,
  C++, C#, Java) the same code inside a function parses cleanly as another
  kind that the pattern does not match (contract case S3). Any other pattern
  the CLI accepts is accepted,
  ERROR nodes included: ast-grep matches an ERROR node in a pattern against
  a node of any kind with the same children (``kind_utils::are_kinds_matching``),
  so ``if ($C) { $$$B }`` in C matches although ``{ $$$B }`` alone is not C.
  :attr:`CompiledPattern.has_error` lets callers say so when nothing matched.
- The *fixed tokens* of a pattern, the text of its leaves that are not
  metavariables, are collected: every match contains each of them, so a
  file whose bytes lack one cannot match and is never parsed. The CLI's own
  pre-filter is mirrored too: ``ast-grep run`` skips a file whose text lacks
  the pattern's longest fixed string (``Pattern::fixed_string``), at every
  strictness, so at ``signature`` `isinstance($A, $B)` finds ``g(x, y)`` only
  in a file that mentions ``isinstance`` somewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ast_grep_py import SgNode, SgRoot

from xcsh.core import ToolError
from xcsh.structural.base.errors import Doubt, PatternNotUsable, UnknownNodeKind
from xcsh.structural.base.languages import Language
from xcsh.structural.base.matcher import Matcher, Requirement
from xcsh.structural.base.strictness import STRICTNESS_LEVELS
from xcsh.structural.pattern.checks import (
    EXPANDO_CANDIDATES,
    cannot_match,
    check_in_body,
    check_pattern_size,
    holds_error,
    named_kinds,
)
from xcsh.structural.pattern.tokens import (
    cli_fixed_string,
    fixed_tokens,
    holds_word,
    metavariable_texts,
    trailing_multi,
    word_tokens,
)

if TYPE_CHECKING:
    from ast_grep_py import Rule

# A metavariable is a whole leaf: `$NAME`, `$$NAME` (also matches unnamed nodes) or `$$$NAME`,
# NAME of [A-Z0-9_] (ast-grep meta_var.rs).
_PATTERN_META = re.compile(r"(?<![\w$])(\$\$\$|\$\$|\$)([A-Z0-9_]+)(?![\w$])")
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
# For the other languages each candidate (EXPANDO_CANDIDATES) is tried, and no pre-filter
# tokens are derived.


@dataclass(frozen=True, kw_only=True)
class CompiledPattern(Matcher):
    """A checked pattern, ready to run on files (picklable for worker processes).

    Attributes:
        source: the pattern text as given.
        language: the ast-grep-py language id.
        selector: the ``sel`` node kind, or ``None``.
        strictness: one of :data:`STRICTNESS_LEVELS`.
        rule: keyword arguments for ``SgNode.find_all``.
        single: names bound as single metavariables (``$A``), in order of appearance.
        multi: names bound as multi metavariables (``$$$A``).
        required: the fixed tokens, each a clause of its own: UTF-8 byte strings a
            file must all contain to be searched (may be empty).
        has_error: the pattern's tree holds an ERROR node (it may find less than meant).
        doubt: why the pattern probably matches nothing (its own source, or the same code
            inside a function, does not match it), with the fix; ``None`` when it looks
            fine. The pattern is still run, as the CLI runs it: the doubt becomes an
            error only when nothing at all was found.
    """

    source: str
    language: str
    selector: str | None
    strictness: str
    rule: Rule
    single: tuple[str, ...]
    multi: tuple[str, ...]
    required: Requirement
    has_error: bool = False
    doubt: Doubt | None = None
    trailing_multi: tuple[str, ...] = ()
    """``$$$`` names last among their siblings: left unbound by ast-grep when they match nothing."""
    words: tuple[bytes, ...] = ()
    """Fixed tokens that are identifiers: a file must hold each as a word of its own
    (:func:`~xcsh.structural.pattern.tokens.holds_word`), not only inside longer words."""

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether ``$$$name``, which captured nothing in the match ``node``, is bound."""
        return name not in self.trailing_multi

    def find_all(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` (itself included) the pattern matches, in source order."""
        return root.find_all(**self.rule)

    def matches(self, node: SgNode) -> bool:
        """Whether ``node`` itself matches the pattern."""
        return node.matches(**self.rule)

    def may_match(self, raw: bytes, file: str, path: Path | None = None) -> bool:
        """Whether a file of bytes ``raw`` holds every fixed token.

        ``file`` and ``path`` do not matter to a pattern.
        """
        return all(token in raw for (token,) in self.required) and all(
            holds_word(raw, word) for word in self.words
        )


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


def _rule_for(pattern: str, selector: str | None, strictness: str) -> Rule:
    """The ast-grep-py rule of a pattern: its text alone, or a pattern object."""
    if selector is None and strictness == "smart":
        return {"pattern": pattern}
    spec: dict[str, str] = {"context": pattern, "strictness": strictness}
    if selector is not None:
        spec["selector"] = selector
    return cast("Rule", {"pattern": spec})


def _ast_grep_message(exc: BaseException) -> str:
    text = str(exc).split("Stack backtrace:")[0].strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if re.match(r"^\d+:", line)]
    return causes[-1] if causes else (lines[0] if lines else type(exc).__name__)


_INVALID_KIND = re.compile(r"Kind `[^`]*` is invalid")


def _unknown_kind(selector: str, language: Language, probe: SgNode) -> UnknownNodeKind:
    """`sel` names no node kind of the language: the error, with the close kinds of the pattern."""
    kinds: list[str] = []
    named_kinds(probe, kinds)
    import difflib

    close = difflib.get_close_matches(selector, kinds, n=3, cutoff=0.5)
    return UnknownNodeKind(selector, language.name, tuple(close), tuple(kinds))


def _pattern_root(root: SgNode) -> SgNode:
    # ast-grep's Pattern::single_matcher: descend while the node has one child (a second,
    # empty-kind or MISSING child is ignored).
    node = root
    while True:
        children = node.children()
        if len(children) == 2 and (not children[1].kind() or not children[1].text()):
            children = children[:1]
        if len(children) != 1:
            return node
        node = children[0]


def root_is_error(pattern: str, language: Language) -> bool:
    """Whether the node ast-grep matches ``pattern`` by is an ERROR node.

    That node is the one ast-grep keeps of the pattern's tree (descending while a node
    has one child), parsed with ``$`` replaced by the language's expando character; for
    a language whose expando is not known, the pattern is an ERROR only if it is one
    with every candidate. ast-grep cannot tell which node kinds such a pattern matches.
    """
    known = _EXPANDO.get(language.name)
    for expando in (known,) if known else EXPANDO_CANDIDATES:
        root = SgRoot(_substitute_expando(pattern, expando), language.name).root()
        if _pattern_root(root).kind() != "ERROR":
            return False
    return True


def _probe(
    pattern: str, language: Language, rule: Rule, selector: str | None, strictness: str
) -> tuple[tuple[SgNode, SgNode, str] | None, SgNode | None]:
    """Parse ``pattern`` with each candidate metavariable stand-in and find it in itself.

    Returns the accepted ``(probe root, node found, stand-in)``, preferring a parse
    without errors, and a node found that cannot match anything (``None`` when none).

    Raises:
        ToolError: ast-grep refuses the rule (an unknown ``sel`` kind, several nodes).
    """
    fallback: SgNode | None = None
    accepted: tuple[SgNode, SgNode, str] | None = None
    known = _EXPANDO.get(language.name)
    for expando in (known,) if known else EXPANDO_CANDIDATES:
        probe = SgRoot(_substitute_expando(pattern, expando), language.name).root()
        try:
            found = probe.find(**rule)
        except RuntimeError as exc:  # ast-grep refused the rule itself
            config_error = _ast_grep_message(exc)
            if selector is not None and _INVALID_KIND.search(config_error):
                raise _unknown_kind(selector, language, probe) from exc
            raise PatternNotUsable(pattern, language.name, config_error) from None
        if found is None:
            continue  # it cannot match its own source
        root = found if selector is not None else _pattern_root(probe)
        if cannot_match(root, probe.text(), rule, language, strictness):
            fallback = fallback or found
            continue
        if accepted is None or not holds_error(found):
            accepted = (probe, found, expando)
        if not holds_error(found):
            break
    return accepted, fallback


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
        language: from :func:`~xcsh.structural.base.languages.resolve_language`.
        selector: the node kind inside the pattern to match (``sel``), for
            patterns that need context to parse.
        strictness: one of :data:`STRICTNESS_LEVELS`.

    Returns:
        The compiled pattern with its bound metavariables and fixed tokens.

    Raises:
        ToolError: empty pattern, unknown strictness, or an ast-grep configuration
            error (unknown ``sel`` kind, several nodes). A pattern that probably
            matches nothing is compiled with a :attr:`CompiledPattern.doubt`; the
            engine raises it only when the scan finds nothing (contract §4).
    """
    if not pattern.strip():
        raise ToolError("The pattern is empty. Give an ast-grep pattern such as `print($$$A)`.")
    if strictness not in STRICTNESS_LEVELS:
        raise ToolError(
            f"Unknown strictness '{strictness}'. Use one of: {', '.join(STRICTNESS_LEVELS)}."
        )
    check_pattern_size(pattern, language)
    selector = selector.strip() if selector and selector.strip() else None
    rule = _rule_for(pattern, selector, strictness)
    single, multi = bound_metavariables(pattern)
    known = _EXPANDO.get(language.name)
    accepted, fallback = _probe(pattern, language, rule, selector, strictness)
    tokens: list[bytes] = []
    doubt: Doubt | None = None
    trailing: tuple[str, ...] = ()
    words: tuple[bytes, ...] = ()
    if accepted is not None:
        probe, found, expando = accepted
        if multi:
            trailing = trailing_multi(found, expando, strictness)
        has_error = holds_error(found)
        if selector is None:
            doubt = check_in_body(pattern, language, rule, probe.text(), found.kind())
        if known:
            metavariables = metavariable_texts(pattern, expando)
            if not has_error:  # leaves inside ERROR nodes may split a metavariable
                tokens += fixed_tokens(found, strictness, metavariables)
                words = word_tokens(found, strictness, metavariables)
            cli_fixed = cli_fixed_string(
                found if selector is not None else _pattern_root(probe), expando
            ).encode("utf-8")
            if cli_fixed.strip() and cli_fixed not in tokens:
                tokens.append(cli_fixed)
    else:
        # Never refuse what ast-grep may still match (it parses patterns its own way, and
        # ERROR nodes match nodes of any kind): run it without a pre-filter, and turn the
        # doubt into an error only if nothing at all is found.
        has_error = True
        doubt = Doubt(
            pattern=pattern,
            language=language.name,
            reason="syntax-error" if fallback is not None else "not-one-node",
        )
    return CompiledPattern(
        source=pattern,
        language=language.name,
        selector=selector,
        strictness=strictness,
        rule=rule,
        single=single,
        multi=multi,
        required=tuple((token,) for token in tokens),
        has_error=has_error,
        doubt=doubt,
        trailing_multi=trailing,
        words=words,
    )
