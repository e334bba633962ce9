"""The matches of one op in one file, as the candidate changes of an edit.

:func:`op_candidates` turns the nodes an op matched into :class:`Candidate`
values: the range each would replace and its new text. A ``-p``/``-r``
pattern's change is made at once (:mod:`xcsh.structural.edit.pattern_edit`); a YAML
rule's (a fix that may widen its range, transforms) is made once the file's
changes are chosen (:mod:`xcsh.structural.edit.scan_edit`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from ast_grep_py import SgNode

from xcsh.structural.base.results import Replacement
from xcsh.structural.edit.pattern_edit import PatternChanges
from xcsh.structural.edit.pattern_records import PatternRecords
from xcsh.structural.matches.matching import LanguageQuery
from xcsh.structural.matches.records import Offsets, bounds
from xcsh.structural.pattern.rewrite import Template, expand_template

if TYPE_CHECKING:
    from xcsh.structural.rules.extras import RuleExtras


class Candidate(NamedTuple):
    """A match that may become a change.

    A match that may become a change: the code-point range it replaces, its op, its
    node (``None`` once freed: a pattern's change is then :attr:`made`), the new text,
    the language's patterns, and the change when it was made as the match was read.
    """

    start: int
    end: int
    op: int
    node: SgNode | None
    new: str
    unit: LanguageQuery
    made: Replacement | None

    def where(self) -> tuple[int, int]:
        """The match's start: 0-based line and column."""
        if self.made is not None:
            return self.made.line, self.made.column
        assert self.node is not None
        start = self.node.range().start
        return start.line, start.column


_new_tuple = tuple.__new__


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (back on after it, if it was)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def op_candidates(
    nodes: list[SgNode],
    op: int,
    unit: LanguageQuery,
    template: Template,
    text: str,
    offsets: Offsets,
    newline: str,
    records: PatternRecords | None,
    *,
    keep_nodes: bool,
    extras: RuleExtras | None = None,
) -> list[Candidate]:
    """The candidate changes of the nodes one op matched.

    The candidates of the ``nodes`` that op ``op`` (of ``unit``'s patterns, rewritten
    by ``template``) matched in ``text``, in the order of ``nodes``; ``extras`` is what
    the YAML rule behind the op adds (its fix's range, its transforms), ``None`` for
    a pattern.

    A pattern's changes are made here, with their JSON lines' numbers in
    ``records`` when given; each node handle (hundreds of bytes in ast-grep-py)
    is then freed at once, unless ``keep_nodes`` (the caller may still look at
    the nodes). ``nodes`` is emptied.
    """
    pattern = unit.patterns[op]
    assert pattern is not None
    candidates: list[Candidate] = []
    if extras is None:
        shared = PatternChanges(
            text=text,
            newline=newline,
            offsets=offsets,
            pattern=pattern,
            template=template,
            records=records,
            entry=records.add(pattern, unit.display) if records is not None else 0,
        )
        nodes.reverse()
        # 100,000 changes make 100,000 tuples that live on and hold no cycle: the cyclic
        # collector, run hundreds of times over them meanwhile, would find nothing
        with _collector_paused():
            while nodes:
                node = nodes.pop()
                start, end, made = shared.change(node)
                kept = node if keep_nodes else None
                fields = (start, end, op, kept, made.new_text, unit, made)
                candidates.append(_new_tuple(Candidate, fields))
        return candidates
    # loaded with the first rule's edit, so a search never imports the rule machinery
    from xcsh.structural.rules.evaluate import capture_spans, expanded_range, transformed_values

    for node in nodes:
        values = capture_spans(node, template)
        first, last = expanded_range(node, extras.fix)
        start, end = bounds(first)[0], bounds(last)[1]
        values.update(transformed_values(node, extras, text))
        new = expand_template(template, text, start, values, newline)
        candidates.append(Candidate(start, end, op, node, new, unit, None))
    nodes.clear()
    return candidates


__all__ = ["Candidate", "op_candidates"]
