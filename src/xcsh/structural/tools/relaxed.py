"""A pattern written in words, and the relaxed form of it that finds what was meant.

Asked to rewrite ``old(VALUE, fmt)`` into ``new(VALUE, fmt)`` "keeping both
arguments", a small model writes the placeholder words into ``pat`` as they
are: names, which match only calls passing exactly those names. When such a
pattern matches nothing, :func:`relaxed_forms` gives the forms to try in its
place, in order:

1. the names in argument or operand positions that occur in no file in scope
   (they bind nothing there, so they can only be placeholders) taken as
   metavariables (``VALUE`` as ``$VALUE``);
2. every name in those positions taken as a metavariable (a literal reading
   matched nothing, so it cannot be what was meant);
3. a call pattern whose arguments are all metavariables, with ``$$$ARGS`` (any
   number of arguments) in their place: the calls have another arity;
4. for a search, a written-out definition (``def name(self, x): ...``) as the
   name alone, which finds the definition and every use (a small model asked
   which functions call ``name`` searched for an invented definition).

The same names are metavariables in ``out``. The first form that matches is
offered: named in the result with its count (every profile), or previewed in
the pattern's place (the compact profile).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

from xcsh.core import JsonObject, ToolError
from xcsh.core.wording import name_list, plural
from xcsh.structural.base.results import EditPreview, SearchResult
from xcsh.structural.engine import resolve_scope
from xcsh.structural.scan.spec import EditOp, EditSpec, MatchSpec, ScopeSpec
from xcsh.structural.tools.rename_hint import Hinted

_METAVARIABLE = re.compile(r"\$\$?\$?[A-Z_][A-Z0-9_]*|\$\$\$|\$_")
"""A metavariable as a pattern writes it (``$A``, ``$$$ARGS``, ``$$$``, ``$_``)."""

_STAND_IN = "xcshmv{}_"
"""The identifier a metavariable stands as while a pattern is parsed as code."""

_ARGUMENT_PARENTS = frozenset(
    {
        "argument_list",
        "arguments",
        "binary_operator",
        "comparison_operator",
        "boolean_operator",
        "binary_expression",
        "keyword_argument",
        "pair",
    }
)
"""Node kinds whose identifier children are arguments or operands (Python, JS/TS, Go, Rust)."""

_DEFINITION = re.compile(
    r"\s*(?:(?:export|pub|async)\s+)*(?:def|function|fn|func|fun)\s+(?P<name>[A-Za-z_]\w*)\s*\("
)
"""A search pattern that writes out a function's definition (a small model asked who calls it)."""

_CALL = re.compile(r"(?P<callee>[A-Za-z_][\w.]*)\((?P<args>.*)\)", re.DOTALL)


@dataclass(frozen=True, kw_only=True)
class Relaxed:
    """A relaxed form of one pattern (and of its rewrite, for an edit).

    Args:
        pat: the relaxed pattern.
        out: the rewrite with the same metavariables, or ``None`` (a search, or a
            rewrite that cannot follow the relaxed pattern).
        how: what was relaxed, worded for a note (``VALUE and fmt as metavariables``).
    """

    pat: str
    out: str | None
    how: str


def relaxed_forms(
    pat: str, out: str | None, language: str, occurs: Callable[[str], bool]
) -> list[Relaxed]:
    """The relaxed forms of ``pat`` to try in order (see the module docstring); ``[]``: none.

    Args:
        pat: a pattern that matched nothing.
        out: its rewrite (``None`` for a search).
        language: the language ``pat`` is parsed in (ast-grep's name).
        occurs: whether a name occurs as a word in a file in scope.
    """
    names = _argument_names(pat, language)
    forms: list[Relaxed] = []
    unbound = [n for n in names if not occurs(n)]
    if unbound:
        forms.append(_as_metavariables(pat, out, unbound, language))
    if names and set(unbound) != set(names):
        forms.append(_as_metavariables(pat, out, names, language))
    last = forms[-1] if forms else Relaxed(pat=pat, out=out, how="")
    any_arity = _any_arity(last)
    if any_arity is not None:
        forms.append(any_arity)
    defined = _DEFINITION.match(pat)
    if out is None and defined is not None:
        name = defined.group("name")
        forms.append(Relaxed(pat=name, out=None, how=f"`{name}` alone: its definition and uses"))
    return forms


def _stand_ins(text: str) -> tuple[str, dict[str, str]]:
    """``text`` with each metavariable as an identifier, and the way back."""
    back: dict[str, str] = {}

    def stand_in(match: re.Match[str]) -> str:
        name = _STAND_IN.format(len(back))
        back[name] = match.group(0)
        return name

    return _METAVARIABLE.sub(stand_in, text), back


def _argument_names(pat: str, language: str) -> list[str]:
    """The names (identifiers) ``pat`` has in argument or operand positions, in order."""
    code, back = _stand_ins(pat)
    try:
        root = SgRoot(code, language).root()
    except (ValueError, RuntimeError):
        return []
    names: list[str] = []
    for node in root.find_all(kind="identifier"):
        name = node.text()
        if name in back or name in names or not _in_argument_position(node):
            continue
        names.append(name)
    return names


def _in_argument_position(node: SgNode) -> bool:
    parent = node.parent()
    if parent is None or parent.kind() not in _ARGUMENT_PARENTS:
        return False
    if parent.kind() in ("keyword_argument", "pair"):
        value = parent.field("value")
        return value is not None and value.range() == node.range()
    return True


def _metavariable_names(names: Sequence[str], taken: str) -> dict[str, str]:
    """A metavariable for each name: ``VALUE`` → ``$VALUE``, ``fmt`` → ``$FMT``, unique."""
    chosen: dict[str, str] = {}
    for name in names:
        base = re.sub(r"\W", "_", name.upper()).lstrip("_") or "ARG"
        base = base if not base[0].isdigit() else f"ARG{base}"
        candidate, n = f"${base}", 2
        while candidate in chosen.values() or re.search(re.escape(candidate) + r"\b", taken):
            candidate, n = f"${base}{n}", n + 1
        chosen[name] = candidate
    return chosen


def _replace_names(text: str, chosen: dict[str, str], language: str) -> str:
    """``text`` with every identifier named in ``chosen`` replaced by its metavariable."""
    code, back = _stand_ins(text)
    try:
        root = SgRoot(code, language).root()
    except (ValueError, RuntimeError):
        return text
    edits = [
        node.replace(chosen[node.text()])
        for node in root.find_all(kind="identifier")
        if node.text() in chosen
    ]
    replaced = root.commit_edits(edits) if edits else code
    for stand_in, original in back.items():
        replaced = replaced.replace(stand_in, original)
    return replaced


def _as_metavariables(pat: str, out: str | None, names: Sequence[str], language: str) -> Relaxed:
    chosen = _metavariable_names(names, f"{pat}\n{out or ''}")
    listed = name_list([f"`{n}` as `{m}`" for n, m in chosen.items()])
    return Relaxed(
        pat=_replace_names(pat, chosen, language),
        out=_replace_names(out, chosen, language) if out is not None else None,
        how=f"{listed}: a metavariable stands for any argument",
    )


def _any_arity(form: Relaxed) -> Relaxed | None:
    """``callee($A, $B)`` as ``callee($$$ARGS)``, when every argument is a metavariable."""
    call = _CALL.fullmatch(form.pat.strip())
    if call is None:
        return None
    args = [a.strip() for a in call.group("args").split(",")]
    if not all(re.fullmatch(r"\$[A-Z_][A-Z0-9_]*", a) for a in args):
        return None
    out: str | None = None
    if form.out is not None:
        wanted = _CALL.fullmatch(form.out.strip())
        if wanted is None or [a.strip() for a in wanted.group("args").split(",")] != args:
            return None
        out = f"{wanted.group('callee')}($$$ARGS)"
    return Relaxed(
        pat=f"{call.group('callee')}($$$ARGS)",
        out=out,
        how="`$$$ARGS` in place of the arguments: any number of them",
    )


def word_finder(files: Sequence[Path]) -> Callable[[str], bool]:
    """Whether a name occurs as a whole word in any of ``files`` (read once, when first asked)."""
    texts: list[str] = []

    def occurs(name: str) -> bool:
        if not texts:
            for path in files:
                try:
                    texts.append(path.read_bytes().decode("utf-8", errors="replace"))
                except OSError:
                    continue
        word = re.compile(rf"(?<![\w$]){re.escape(name)}(?!\w)")
        return any(word.search(text) for text in texts)

    return occurs


@dataclass(frozen=True, kw_only=True)
class ScopeWords:
    """What relaxing a pattern needs of the files in scope.

    Args:
        language: the language patterns are parsed in: ``lang``, else the
            language most files in scope have (``None``: no file in scope).
        occurs: whether a name occurs as a word in a file in scope.
    """

    language: str | None
    occurs: Callable[[str], bool]


def scope_words(where: ScopeSpec) -> ScopeWords:
    """The language and the words of the files ``where`` covers (read only when asked)."""
    try:
        scope = resolve_scope(where)
    except ToolError:
        return ScopeWords(language=None, occurs=lambda name: False)
    language = scope.language.name if scope.language else next(iter(scope.counts()), None)
    return ScopeWords(language=language, occurs=word_finder([f for f, _, _ in scope.files]))


def languages_held(where: ScopeSpec) -> dict[str, int]:
    """How many files of each language ``where`` holds when ``lang`` is left out, most first.

    ``{}`` when it holds none (or its path is wrong: the call's own error says so).
    """
    try:
        return resolve_scope(replace(where, lang=None)).counts()
    except ToolError:
        return {}


async def relaxed_edit(
    edit: EditSpec,
    offered: Hinted,
    scan: Callable[[EditSpec], Awaitable[EditPreview]],
    words: ScopeWords,
    *,
    widen: bool,
) -> Hinted:
    """``offered`` (a preview that replaced nothing), or what its relaxed form offers.

    Only an edit of one op (no rule, no ``sel``) is relaxed. The first relaxed form
    (:func:`relaxed_forms`) that matches is previewed with ``scan``: with ``widen``
    (the compact profile) it is offered in the op's place, its note first; otherwise
    the result keeps saying nothing was replaced, with a note naming the relaxed op,
    its count and the call that previews it.
    """
    if edit.rules or edit.selector is not None or len(edit.ops) != 1 or words.language is None:
        return offered
    (op,) = edit.ops
    for form in relaxed_forms(op.pat, op.out, words.language, words.occurs):
        if form.out is None:
            continue
        wide_edit = replace(edit, ops=(EditOp(pat=form.pat, out=form.out),))
        try:
            wide = await scan(wide_edit)
        except ToolError:
            continue
        if not wide.total:
            continue
        ops: list[JsonObject] = [{"pat": form.pat, "out": form.out}]
        if widen:
            note = (
                f"`{op.pat}` matched nothing, so this preview rewrites the relaxed pattern "
                f"`{form.pat}` to `{form.out}` in its place ({form.how}): "
                f"{plural(wide.total, 'replacement')}."
            )
            return Hinted(
                edit=wide_edit,
                preview=wide,
                arguments={**offered.arguments, "ops": list(ops)},
                notes=(note, *offered.notes),
            )
        note = (
            f"`{op.pat}` matches nothing; the relaxed pattern `{form.pat}` ({form.how}) "
            f"matches {plural(wide.total, 'time')}. To preview that rewrite, call ast_edit "
            f"again with ops {json.dumps(ops)}."
        )
        return replace(offered, notes=(*offered.notes, note))
    return offered


async def relaxed_search(
    what: MatchSpec,
    search: Callable[[MatchSpec], Awaitable[SearchResult]],
    words: ScopeWords,
) -> tuple[Relaxed, SearchResult] | None:
    """The first relaxed form of a one-pattern search that matches, with its result.

    ``None`` when the search has several patterns, a rule or a ``sel``, or no relaxed
    form matches.
    """
    if what.rules or what.selector is not None or len(what.patterns) != 1:
        return None
    if words.language is None:
        return None
    for form in relaxed_forms(what.patterns[0], None, words.language, words.occurs):
        try:
            wide = await search(replace(what, patterns=(form.pat,)))
        except ToolError:
            continue
        if wide.total:
            return form, wide
    return None


def relaxed_search_note(pat: str, form: Relaxed, total: int, *, shown: bool) -> str:
    """The note on a search pattern that found nothing where its relaxed form found ``total``.

    ``shown``: the relaxed form's matches are listed in the pattern's place (compact profile).
    """
    found = f"matches {plural(total, 'time')}"
    if shown:
        return (
            f"`{pat}` matched nothing, so these are the matches of the relaxed pattern "
            f"`{form.pat}` in its place ({form.how}): it {found}."
        )
    return (
        f"The relaxed pattern `{form.pat}` ({form.how}) {found}: call ast_grep with pat "
        f"`{form.pat}` to see them."
    )


__all__ = [
    "Relaxed",
    "ScopeWords",
    "languages_held",
    "relaxed_edit",
    "relaxed_forms",
    "relaxed_search",
    "relaxed_search_note",
    "scope_words",
    "word_finder",
]
