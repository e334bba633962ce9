"""Compiling what a call matches (patterns, or YAML rules) for the languages of its scope."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict, Unpack

from xcsh.core import ToolError
from xcsh.structural.base.errors import (
    Doubt,
    EmptyPatterns,
    MixedLanguages,
    PatternMatchesNothing,
)
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import EditPreview
from xcsh.structural.matches.matching import LanguageQuery, Query
from xcsh.structural.pattern.compile import bound_metavariables, compile_pattern
from xcsh.structural.pattern.rewrite import Template, parse_template
from xcsh.structural.scan.scope import HOSTED_LANGUAGES, Scope
from xcsh.structural.scan.spec import MatchSpec

if TYPE_CHECKING:
    from xcsh.structural.matches.records import RecordFormat
    from xcsh.structural.rules.compile import CompiledRule


class QueryFlags(TypedDict, total=False):
    """The settings of a :class:`~xcsh.structural.matches.matching.Query` besides what it matches.

    Each is the query's attribute of that name (its default when not given).
    """

    skip_parse_errors: bool
    captures: bool
    max_matches: int | None
    keep_broken: bool
    records: RecordFormat | None


def error_patterns_of(query: Query) -> tuple[str, ...]:
    """The sources of the query's patterns that parsed with errors, each once, in order."""
    out: list[str] = []
    for unit in query.languages.values():
        for pattern in unit.patterns:
            if pattern is not None and pattern.has_error and pattern.source not in out:
                out.append(pattern.source)
    return tuple(out)


def doubt_of(query: Query, scope: Scope) -> Doubt | None:
    """The doubt to raise when nothing was found, else ``None``.

    That is a pattern doubtful in every language it compiled in (the language with
    the most files speaks).
    """
    order = {name: i for i, name in enumerate(scope.counts())}
    units = sorted(query.languages.values(), key=lambda u: order.get(u.name, len(order)))
    count = max((len(u.patterns) for u in units), default=0)
    for index in range(count):
        compiled = [u.patterns[index] for u in units if u.patterns[index] is not None]
        if compiled and all(c.doubt for c in compiled if c is not None):
            return compiled[0].doubt if compiled[0] is not None else None
    return None


def rule_query(
    rules: Sequence[CompiledRule],
    scope: Scope,
    *,
    edit: bool = False,
    **flags: Unpack[QueryFlags],
) -> Query:
    """A query running YAML rules, each on the files of its language.

    JavaScript, TypeScript and CSS rules also run on the code inside HTML files.
    Files of other languages are left out of ``scope``; ``flags`` set the query's
    other attributes.

    Raises:
        ToolError: ``edit`` and none of the rules has a ``fix``.
    """
    names = list(dict.fromkeys(rule.language for rule in rules))
    languages = {
        name: LanguageQuery(
            name=name,
            display=resolve_language(name).display,
            patterns=tuple(rule.matcher if rule.language == name else None for rule in rules),
        )
        for name in names
    }
    wanted = set(names) | ({"html"} if set(names) & HOSTED_LANGUAGES else set())
    keep = [i for i, (_, _, name) in enumerate(scope.files) if name in wanted]
    if len(keep) != len(scope.files):
        known = len(scope.sizes) == len(scope.files)
        scope.files = [scope.files[i] for i in keep]
        scope.sizes = [scope.sizes[i] for i in keep] if known else []
        scope.total_bytes = sum(scope.sizes)
    templates: tuple[Template | None, ...] = ()
    extras = tuple(rule.extras for rule in rules)
    if edit:
        templates = tuple(rule.template for rule in extras)
        if all(t is None for t in templates):
            raise ToolError(
                "None of the rules has a `fix`, so there is nothing to rewrite. Add "
                "`fix: <template>` to a rule, or search with it instead."
            )
    return Query(languages=languages, templates=templates, rules=extras, **flags)


def compile_query(
    what: MatchSpec,
    scope: Scope,
    templates: Sequence[str] | None = None,
    **flags: Unpack[QueryFlags],
) -> Query:
    """Compile every pattern for every language of ``scope`` (and those HTML embeds).

    A pattern that does not compile in a language is left out there,
    as the CLI leaves it out; when ``lang`` was given, or no language accepts a
    pattern, its error is raised. With ``rules``, they are the query instead.
    """
    patterns, rules = what.patterns, what.rules
    selector, strictness = what.selector, what.strictness
    if rules:
        if patterns:
            raise ToolError("Give patterns or rules, not both.")
        return rule_query(rules, scope, edit=templates is not None, **flags)
    if not patterns:
        raise EmptyPatterns()
    names = list(scope.counts())
    if scope.language is not None:
        names = [scope.language.name]
    elif "html" in names:
        names += [name for name in ("javascript", "typescript", "css") if name not in names]
    languages: dict[str, LanguageQuery] = {}
    errors: dict[int, ToolError] = {}
    for name in names:
        language = scope.languages.get(name) or resolve_language(name)
        compiled: list[Matcher | None] = []
        for index, pattern in enumerate(patterns):
            try:
                compiled.append(
                    compile_pattern(pattern, language, selector=selector, strictness=strictness)
                )
            except ToolError as exc:
                if scope.language is not None:
                    raise
                errors.setdefault(index, exc)
                compiled.append(None)
        if any(c is not None for c in compiled):
            languages[name] = LanguageQuery(
                name=name, display=language.display, patterns=tuple(compiled)
            )
    for index in range(len(patterns)):
        if index in errors and not any(u.patterns[index] is not None for u in languages.values()):
            raise errors[index]
    parsed: tuple[Template, ...] = ()
    if templates is not None:
        parsed = tuple(
            _template(out, pattern, [u.patterns[index] for u in languages.values()])
            for index, (pattern, out) in enumerate(zip(patterns, templates, strict=True))
        )
    return Query(languages=languages, templates=parsed, **flags)


def _template(out: str, pattern: str, compiled: Sequence[Matcher | None]) -> Template:
    """The rewrite ``out`` of ``pattern``, checked against what the pattern binds.

    Raises:
        PatternMatchesNothing: the pattern is a syntax error in every language it
            compiled in, and the rewrite is refused: the pattern is what to fix
            (``bar($`` binds nothing, so any ``$A`` in the rewrite looks unbound).
        ToolError: the rewrite uses a metavariable the pattern does not bind.
    """
    single, multi = bound_metavariables(pattern)
    try:
        return parse_template(out, single=single, multi=multi, pattern=pattern)
    except ToolError as exc:
        present = [c for c in compiled if c is not None]
        doubts = [c.doubt for c in present if c.doubt and c.doubt.reason == "syntax-error"]
        if doubts and len(doubts) == len(present):
            raise PatternMatchesNothing(doubts[0]) from exc
        raise


_FAMILIES = {"JavaScript": "JavaScript", "TypeScript": "JavaScript", "Tsx": "JavaScript"}


def check_one_language(preview: EditPreview) -> None:
    """Refuse a rewrite preview that would change files of several languages.

    One rewrite is written for one language (contract §4): without ``lang``, a
    preview that would change files of several (JavaScript, TypeScript and TSX count
    as one) is refused, so a rewrite meant for one never lands in another. Files left
    out because the rewrite would break them count too: the rewrite matched there.

    Raises:
        MixedLanguages: naming each language with its changed files.
    """
    by_language: dict[str, list[str]] = {}
    for edit in preview.files:
        by_language.setdefault(edit.language, []).append(edit.file)
    for skipped in preview.skipped:
        if skipped.language:
            by_language.setdefault(skipped.language, []).append(skipped.file)
    if len({_FAMILIES.get(name, name) for name in by_language}) <= 1:
        return
    raise MixedLanguages(tuple((name, tuple(files)) for name, files in sorted(by_language.items())))
