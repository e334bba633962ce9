"""What a query runs on each file: the :class:`Matcher` protocol.

It is in the style of ast-grep's core: find in a tree, match a node, and the text
a file must hold first.

A ``-p``/``pat`` pattern (:class:`~xcsh.structural.pattern.compile.CompiledPattern`) and
a YAML rule's matcher (:class:`~xcsh.structural.rules.matcher.RuleMatcher`) both
subclass it, and the scan runs either through it. What only a rule adds to a match
(its fix, transforms, severity, message and labels) is not a matcher's: it travels
beside the matcher on the query (:attr:`~xcsh.structural.matches.matching.Query.rules`).

A file's pre-filter is a :data:`Requirement`: a conjunction of clauses, each a set of
alternatives (``((b"jwt",), (b"password", b"passwd"))``: the file holds ``jwt``
and one of ``password``/``passwd``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ast_grep_py import SgNode

from xcsh.structural.base.errors import Doubt

Clause = tuple[bytes, ...]
"""Alternatives: the file must hold at least one."""

Requirement = tuple[Clause, ...]
"""Clauses: the file must satisfy each."""


def admits(requirement: Requirement, raw: bytes) -> bool:
    """Whether ``raw`` (a file's bytes) satisfies ``requirement``."""
    return all(any(alt in raw for alt in clause) for clause in requirement)


class Matcher(Protocol):
    """A compiled pattern or rule for one language, ready to run on files.

    Subclass it to get its defaults: a matcher says how it finds and matches nodes
    (:meth:`find_all`, :meth:`matches`); the rest defaults to "nothing known"
    (no pre-filter, no metavariables, no doubt).

    Attributes:
        source: the pattern text, or where the rule came from, for messages.
        required: what a file's bytes must hold for a match to be possible
            (``()``: nothing is known).
        single: the single metavariables (``$A``) a match may bind, in order.
        multi: the ``$$$`` names a match may bind, in order.
        has_error: the pattern's tree holds an ERROR node (it may find less than meant).
        doubt: why it probably matches nothing, or ``None``.
    """

    source: str
    required: Requirement = ()
    single: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()
    has_error: bool = False
    doubt: Doubt | None = None

    def find_all(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` (itself included) that matches, in source order."""
        ...

    def matches(self, node: SgNode) -> bool:
        """Whether ``node`` itself matches."""
        ...

    def may_match(self, raw: bytes, file: str, path: Path | None = None) -> bool:
        """Whether a file may hold a match: by default, its bytes ``raw`` hold :attr:`required`.

        ``file`` (workspace-relative, ``/``-separated) and ``path`` (absolute) are there
        for a matcher that also picks files by name (a rule's ``files``/``ignores``).
        """
        return admits(self.required, raw)

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether ``$$$name``, which captured nothing in the match ``node``, is bound.

        Bound, it is reported as ``[]``; the default is bound.
        """
        return True


__all__ = ["Clause", "Matcher", "Requirement", "admits"]
