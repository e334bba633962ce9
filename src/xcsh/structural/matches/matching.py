"""What a scan runs on each file, what it returns, and a match record from a node.

:class:`Query` (the compiled patterns or rules per language, and how to
treat each file) and :class:`Outcome` (one file's matches, edit, or why it
was skipped) are picklable, so the same values serve the in-process scan and
the worker processes (:mod:`xcsh.structural.scan.per_file`, :mod:`xcsh.structural.scan.runner`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ast_grep_py import SgNode

from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import (
    Capture,
    FileEdit,
    Match,
    MatchLabel,
    RuleReport,
    SkippedFile,
)
from xcsh.structural.matches.records import (
    Offsets,
    RecordFormat,
    line_bounds,
    rule_parts,
    secondary_nodes,
)
from xcsh.structural.pattern.rewrite import Template

if TYPE_CHECKING:
    from xcsh.structural.rules.extras import RuleExtras


@dataclass(frozen=True, kw_only=True)
class LanguageQuery:
    """The patterns of a call compiled for one language.

    Attributes:
        name: the ast-grep-py language id.
        display: the CLI's language name (JSON ``language`` field).
        patterns: parallel to the call's patterns (or ops); ``None`` where a pattern
            does not compile in this language (it is left out there, as the CLI does).
    """

    name: str
    display: str
    patterns: tuple[Matcher | None, ...]


@dataclass(frozen=True, kw_only=True)
class Query:
    """What to do with each file.

    Attributes:
        languages: the compiled patterns per language name; a file is searched with
            the entry of its own language, and an HTML file also with the entries of
            the languages embedded in it (``<script>``, ``<style>``).
        templates: the rewrites of an edit, parallel to the patterns (``None`` for a rule
            without ``fix``: it is not rewritten); empty for a search.
        rules: what each YAML rule adds to its matches (fix, transforms, report),
            parallel to the patterns; empty for a query of patterns (see :meth:`rule`).
        skip_parse_errors: edits leave files whose tree has ERROR nodes alone (contract §4).
        captures: record metavariable captures on the matches of an edit (searches always
            do), and the nested matches an edit leaves alone.
        max_matches: a search builds at most this many matches per file (in source
            order) and only counts the others (``Outcome.unbuilt``): with a limit,
            a file holding 50,000 matches costs 5 match records, not 50,000.
        keep_broken: an edit keeps a file whose new text has parse errors its
            old text did not have (noted on the edit); by default it is left
            out, with the first new error's position.
        records: a search renders each match as this printed record
            (``Outcome.records``) instead of building ``Outcome.matches``.
    """

    languages: dict[str, LanguageQuery]
    templates: tuple[Template | None, ...] = ()
    rules: tuple[RuleExtras, ...] = ()
    skip_parse_errors: bool = False
    captures: bool = True
    max_matches: int | None = None
    keep_broken: bool = False
    records: RecordFormat | None = None

    @property
    def is_edit(self) -> bool:
        """True for an edit preview."""
        return bool(self.templates)

    def rule(self, index: int) -> RuleExtras | None:
        """What the YAML rule of pattern ``index`` adds to its matches; ``None`` for a pattern."""
        return self.rules[index] if self.rules else None


@dataclass(kw_only=True)
class Outcome:
    """The result for one file (``None`` fields when not applicable)."""

    matches: list[Match] = field(default_factory=list)
    edit: FileEdit | None = None
    skipped: SkippedFile | None = None
    identical: int = 0
    conflict: str | None = None
    unbuilt: int = 0
    """Matches found after ``Query.max_matches``: counted, not built."""
    records: Iterable[str] = ()
    """With ``Query.records``: the printed record of each kept match, in order. Produced
    lazily in-process (a failure part-way sets ``skipped``), as a list from the pool."""
    trees: object = None
    """With ``Query.records``, in-process only: the file's syntax trees and matched nodes
    the records are rendered from (``None`` from the pool, or once handed on)."""


def find_nodes(root: SgNode, matcher: Matcher) -> list[SgNode]:
    """Every node under ``root`` (itself included) that ``matcher`` matches, in source order."""
    return matcher.find_all(root)


def make_match(
    node: SgNode,
    text: str,
    offsets: Offsets,
    pattern: Matcher,
    index: int,
    path: Path,
    file: str,
    display: str,
    captures: bool = True,
    extras: RuleExtras | None = None,
) -> Match:
    """Build the match record of ``node`` in ``text``.

    ``node`` was found by ``pattern``, the call's pattern number ``index``; the record
    holds its captures unless ``captures`` is false, and what ``extras`` adds when
    the pattern is a YAML rule's (:meth:`Query.rule`).
    """
    rng = node.range()
    start, end = rng.start.index, rng.end.index
    line_start, line_end = line_bounds(text, start, end)
    single: dict[str, Capture] = {}
    multi: dict[str, list[Capture]] = {}
    transformed: dict[str, str] = {}
    if captures:
        for name in pattern.single:
            captured = node.get_match(name)
            if captured is not None:
                single[name] = Capture(text=captured.text(), span=offsets.span(captured))
        for name in pattern.multi:
            nodes = node.get_multiple_matches(name)
            if not nodes and not pattern.multi_bound(node, name):
                continue  # the CLI does not bind it
            multi[name] = [Capture(text=n.text(), span=offsets.span(n)) for n in nodes]
    rule: RuleReport | None = None
    fix: tuple[str, int, int] | None = None
    secondary: tuple[Capture, ...] = ()
    labels: tuple[MatchLabel, ...] | None = None
    if extras is not None:
        transformed, fix, rule = rule_parts(node, extras, text, offsets, fix=captures)
        if captures:
            secondary = tuple(
                Capture(text=n.text(), span=offsets.span(n)) for n in secondary_nodes(node)
            )
            if extras.labels is not None:
                # only a YAML rule has labels: a pattern search never loads the rule machinery
                from xcsh.structural.rules.labels import label_nodes

                labels = tuple(
                    MatchLabel(
                        text=text[lab.first.range().start.index : lab.last.range().end.index],
                        span=offsets.span_of(lab.first, lab.last),
                        primary=lab.primary,
                        message=lab.message,
                    )
                    for lab in label_nodes(node, extras.labels)
                )
    return Match(
        path=path,
        file=file,
        language=display,
        pattern_index=index,
        text=text[start:end],
        span=offsets.span(node),
        lines=text[line_start:line_end],
        leading=start - line_start,
        trailing=line_end - end,
        single=single,
        multi=multi,
        transformed=transformed,
        rule=rule,
        fix=fix,
        secondary=secondary,
        labels=labels,
    )
