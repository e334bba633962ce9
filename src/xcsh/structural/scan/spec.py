"""What a structural call matches and where: the typed values the engine takes.

Every entry point of the engine (:func:`~xcsh.structural.engine.search`,
:func:`~xcsh.structural.engine.iter_matches`,
:func:`~xcsh.structural.engine.preview_edit`, ...) takes one
:class:`ScopeSpec` (where: the workspace, a path or glob inside it, extra
globs, a language) and one :class:`MatchSpec` (what: patterns or YAML rules,
a selector, a strictness) or, for a rewrite, an :class:`EditSpec`. Front
ends (the tools, ``xcsh ast-grep``/``ast-edit``/``scan``) build them from
their own arguments; the engine checks them and raises a typed error
(:mod:`xcsh.structural.base.errors`) naming what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xcsh.structural.rules.compile import CompiledRule


@dataclass(frozen=True, kw_only=True)
class ScopeSpec:
    """Where a call looks.

    Attributes:
        root: the workspace folder; nothing outside its real path is read.
        path: a file, folder or glob relative to ``root`` (``None``: all of it).
        globs: extra gitwildmatch filters relative to ``root`` (any may match;
            ``!`` leaves files out).
        lang: a language name or alias; ``None`` reads each file in the
            language of its extension.
    """

    root: str | Path
    path: str | None = None
    globs: tuple[str, ...] = ()
    lang: str | None = None


@dataclass(frozen=True, kw_only=True)
class MatchSpec:
    """What a search matches: ast-grep patterns, or YAML rules instead.

    Attributes:
        patterns: ast-grep patterns; a file's matches are merged in source order.
        rules: YAML rules (:mod:`xcsh.structural.rules`) run instead of
            ``patterns`` (give one or the other); each runs on the files of its language.
        selector: the node kind inside a pattern to match, for patterns that
            need context (the tools' ``sel``, the command's ``--selector``).
        strictness: one of ``cst``/``smart``/``ast``/``relaxed``/``signature``/``template``.
    """

    patterns: tuple[str, ...] = ()
    rules: tuple[CompiledRule, ...] = ()
    selector: str | None = None
    strictness: str = "smart"


@dataclass(frozen=True, kw_only=True)
class EditOp:
    """One rewrite: ``pat`` becomes ``out`` (empty ``out`` deletes the match)."""

    pat: str
    out: str


@dataclass(frozen=True, kw_only=True)
class EditSpec:
    """What a rewrite changes: ops ``{pat, out}``, or YAML rules with a ``fix``.

    Attributes:
        ops: the rewrites; all are matched against the file as it is on disk.
        rules: YAML rules whose ``fix`` is the rewrite, instead of ``ops``.
        selector, strictness: as in :class:`MatchSpec`.
        limit: most replacements (positive; ``None``: all); the scan stops there.
        include_broken: keep files whose rewritten text has parse errors the
            old text did not have (left out and listed by default).
        include_parse_errors: rewrite files that already have parse errors
            (skipped by default).
    """

    ops: tuple[EditOp, ...] = ()
    rules: tuple[CompiledRule, ...] = ()
    selector: str | None = None
    strictness: str = "smart"
    limit: int | None = None
    include_broken: bool = False
    include_parse_errors: bool = False

    @property
    def match(self) -> MatchSpec:
        """What the edit matches: the ops' patterns (or the rules)."""
        return MatchSpec(
            patterns=tuple(op.pat for op in self.ops),
            rules=self.rules,
            selector=self.selector,
            strictness=self.strictness,
        )
