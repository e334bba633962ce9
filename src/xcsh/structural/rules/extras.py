"""What a YAML rule adds to each of its matches, beside what it matches.

A compiled rule is two values: its matcher
(:class:`~xcsh.structural.rules.matcher.RuleMatcher`: what it finds, which files it
reads) and :class:`RuleExtras`: its fix, its transforms and rewriters, and what its
report says (id, severity, message, note, labels). A query carries the extras beside
the matchers (:attr:`~xcsh.structural.matches.matching.Query.rules`, empty for a
pattern's query), so the records, the match records and the edits read them from
there, never from the matcher.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xcsh.structural.rules.document import Fix, RewriteTransform

if TYPE_CHECKING:
    from ast_grep_py import Config

    from xcsh.structural.pattern.rewrite import Template
    from xcsh.structural.rules.labels import RuleLabel


@dataclass(frozen=True, kw_only=True)
class Rewriter:
    """One of a rule's ``rewriters``: a rule with a fix, used by the ``rewrite`` transform.

    Attributes:
        id: its ``id``.
        config: the configuration ast-grep-py runs to find what it rewrites.
        fix: its ``fix``.
        template: the fix's template, parsed.
        rewrites: its own ``rewrite`` transformations.
        native: the names of the transformations ast-grep-py evaluates for it.
        names: the single metavariables it binds, then the names its transforms define.
        multi: the ``$$$`` names it binds.
    """

    id: str
    config: Config
    fix: Fix
    template: Template
    rewrites: tuple[RewriteTransform, ...] = ()
    native: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class RuleExtras:
    """What a YAML rule adds to each match (picklable for worker processes).

    Attributes:
        id: the rule's ``id``.
        fix: the fix, or ``None`` (the rule only reports).
        template: the fix's template, parsed (unbound metavariables insert nothing).
        rewrites: ``rewrite`` transforms (evaluated by xcsh), in order.
        native: the names of the transforms ast-grep-py evaluates (with the match).
        rewriters: the rule's rewriters by id.
        severity: one of ``hint``, ``info``, ``warning``, ``error``, ``off``.
        message: reported with each match (may hold metavariables).
        message_template: ``message`` parsed as a fix template, when it names a metavariable.
        note: reported with each match, or ``None``.
        labels: ``labels:``, which replace the default labels of the rule's report;
            ``None`` for the default ones.
    """

    id: str
    fix: Fix | None = None
    template: Template | None = None
    rewrites: tuple[RewriteTransform, ...] = ()
    native: tuple[str, ...] = ()
    rewriters: dict[str, Rewriter] = field(default_factory=dict)
    severity: str = "hint"
    message: str = ""
    message_template: Template | None = None
    note: str | None = None
    labels: tuple[RuleLabel, ...] | None = None


__all__ = ["Rewriter", "RuleExtras"]
