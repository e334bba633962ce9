"""What a query runs on each file: the :class:`Matcher` protocol.

It is in the style of ast-grep's core: find in a tree, match a node, and the text
a file must hold first.

A ``-p``/``pat`` pattern (:class:`~xcsh.structural.pattern.compile.CompiledPattern`) and a
YAML rule (:class:`~xcsh.structural.rules.compile.CompiledRule`) both satisfy it;
the engine runs either through it. What only a rule has (a fix with a widened
range, transforms, a severity, a message and labels) is reached through
:attr:`Matcher.yaml_rule`, ``None`` for a pattern.

A file's pre-filter is a :data:`Requirement`: a conjunction of clauses, each a set of
alternatives (``((b"jwt",), (b"password", b"passwd"))``: the file holds ``jwt``
and one of ``password``/``passwd``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ast_grep_py import SgNode

from xcsh.structural.base.errors import Doubt

if TYPE_CHECKING:
    from xcsh.structural.rules.compile import CompiledRule

Clause = tuple[bytes, ...]
"""Alternatives: the file must hold at least one."""

Requirement = tuple[Clause, ...]
"""Clauses: the file must satisfy each."""


def admits(requirement: Requirement, raw: bytes) -> bool:
    """Whether ``raw`` (a file's bytes) satisfies ``requirement``."""
    return all(any(alt in raw for alt in clause) for clause in requirement)


class Matcher(Protocol):
    """A compiled pattern or rule for one language, ready to run on files.

    Attributes:
        source: the pattern text, or where the rule came from, for messages.
        language: the ast-grep-py language id.
        single: the single metavariables (``$A``) a match may bind, in order.
        multi: the ``$$$`` names a match may bind, in order.
        required: what a file's bytes must hold for a match to be possible
            (``()``: nothing is known).
        has_error: the pattern's tree (a rule: never) holds an ERROR node.
        doubt: why it probably matches nothing, or ``None``.
    """

    @property
    def source(self) -> str:
        """The pattern text, or where the rule came from."""
        ...

    @property
    def language(self) -> str:
        """The ast-grep-py language id."""
        ...

    @property
    def single(self) -> tuple[str, ...]:
        """The single metavariables a match may bind."""
        ...

    @property
    def multi(self) -> tuple[str, ...]:
        """The ``$$$`` names a match may bind."""
        ...

    @property
    def required(self) -> Requirement:
        """What a file's bytes must hold for a match to be possible."""
        ...

    @property
    def has_error(self) -> bool:
        """The pattern's tree holds an ERROR node."""
        ...

    @property
    def doubt(self) -> Doubt | None:
        """Why it probably matches nothing, or ``None``."""
        ...

    @property
    def yaml_rule(self) -> CompiledRule | None:
        """The YAML rule behind the matches, ``None`` for a pattern.

        Its fix, transforms, severity, message and labels come with each match.
        """
        ...

    def find_all(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` (itself included) that matches, in source order."""
        ...

    def matches(self, node: SgNode) -> bool:
        """Whether ``node`` itself matches."""
        ...

    def may_match(self, raw: bytes, file: str, path: Path | None = None) -> bool:
        """Whether a file may hold a match.

        Its bytes ``raw`` must hold :attr:`required`, and for a rule its
        workspace-relative name ``file`` (absolute ``path``) must pass the rule's
        ``files``/``ignores``.
        """
        ...

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether ``$$$name``, which captured nothing in the match ``node``, is bound."""
        ...


__all__ = ["Clause", "Matcher", "Requirement", "admits"]
