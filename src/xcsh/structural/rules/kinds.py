"""The check that a rule's pattern parses where ast-grep needs it to.

``ast-grep scan`` refuses a rule when it cannot tell which node kinds the rule
matches ("Rule must specify a set of AST kinds to match"). A pattern tells them
by the kind of its node, unless that node is an ERROR node: a pattern that does
not parse in the rule's language. A rule object, whose keys all must match, tells
them when one of its keys does (``kind``, a pattern, an ``all`` member, a
``matches`` of a utility rule that does); an ``any`` only when each of its
branches does; ``not``, ``regex``, ``nthChild``, ``range`` and the relational
keys never do.

Only a rule refused *because of* a pattern that does not parse is refused here,
naming that pattern's YAML path (for a pattern of a project's shared utility
rule, the path of the ``matches`` naming it): the same pattern next to a
``kind``, or under ``not`` or ``inside``, stays accepted, as ast-grep accepts
it. A rule that tells no kinds for another reason (``pattern: $A`` alone, a
lone ``regex``) is run as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xcsh.structural.base.languages import Language
from xcsh.structural.pattern.compile import root_is_error
from xcsh.structural.rules.model import (
    AllRule,
    AnyRule,
    KindRule,
    MatchesRule,
    PatternObject,
    PatternRule,
    RuleObject,
    RulePart,
)
from xcsh.structural.rules.schema import RuleError, yaml_path


@dataclass(frozen=True)
class _Kinds:
    """What a rule (or one key of it) tells of the node kinds it matches.

    Attributes:
        known: ast-grep can tell the kinds.
        broken: when not ``known``, the YAML path of a pattern that does not parse and
            is one reason why (of the ``matches`` that reaches it, for a pattern of a
            project's shared utility rule); ``None`` when no such pattern is a reason.
        shared: the shared utility rule holding that pattern, or ``None``.
    """

    known: bool
    broken: str | None = None
    shared: str | None = None


_UNKNOWN = _Kinds(known=False)


@dataclass(frozen=True)
class _Context:
    """What the walk reads: the rule's language, the utility rules it sees, its own."""

    language: Language
    utils: Mapping[str, RuleObject]
    local: frozenset[str]


def check_pattern_kinds(
    rule: RuleObject,
    utils: tuple[Mapping[str, RuleObject], Mapping[str, RuleObject]],
    language: Language,
    origin: str,
) -> None:
    """Refuse a rule ast-grep refuses because a pattern of it does not parse.

    Args:
        rule: the document's ``rule``.
        utils: the utility rules it sees by name (the project's shared ones and its
            own), then its own ``utils``.
        language: the rule's language.
        origin: where the rule is, for the message.

    Raises:
        RuleError: at the YAML path of the pattern (``rule.pattern``,
            ``rule.any[0].pattern``, ``utils.NAME.pattern``), or of the ``matches``
            naming a shared utility rule whose pattern it is, with the language and
            the fix.
    """
    seen, own = utils
    found = _object_kinds(rule, "rule", _Context(language, seen, frozenset(own)), ())
    if found.known or found.broken is None:
        return
    subject = (
        "the pattern"
        if found.shared is None
        else f"the pattern of the shared utility rule `{found.shared}` (utilDirs)"
    )
    raise RuleError(
        origin,
        found.broken,
        f"{subject} does not parse as {language.name} code (its node is an ERROR), so "
        "ast-grep cannot tell which kind of node the rule matches and refuses the rule. "
        "Fix the pattern's syntax, give a pattern object with `context` and `selector`, "
        "or add a `kind` rule next to it.",
    )


def _object_kinds(rule: RuleObject, where: str, ctx: _Context, seen: tuple[str, ...]) -> _Kinds:
    """A rule object's kinds: known when one of its keys tells them."""
    broken = _UNKNOWN
    for part in rule.parts:
        found = _part_kinds(part, yaml_path(where, part.key), ctx, seen)
        if found.known:
            return found
        if broken.broken is None:
            broken = found
    return broken


def _part_kinds(part: RulePart, where: str, ctx: _Context, seen: tuple[str, ...]) -> _Kinds:
    """One key's kinds (``where`` is its YAML path)."""
    if isinstance(part, KindRule):
        return _Kinds(known=True)
    if isinstance(part, PatternRule):
        return _pattern_kinds(part, where, ctx.language)
    if isinstance(part, AllRule | AnyRule):
        members = [
            _object_kinds(rule, yaml_path(where, i), ctx, seen) for i, rule in enumerate(part.rules)
        ]
        known = any if isinstance(part, AllRule) else all
        if known(m.known for m in members):
            return _Kinds(known=True)
        return next((m for m in members if m.broken), _UNKNOWN)
    if isinstance(part, MatchesRule):
        return _util_kinds(part.util, where, ctx, seen)
    return _UNKNOWN


def _util_kinds(name: str, where: str, ctx: _Context, seen: tuple[str, ...]) -> _Kinds:
    """The kinds of the utility rule ``matches`` names (``where`` is the ``matches``)."""
    util = ctx.utils.get(name)
    if util is None or name in seen:
        return _Kinds(known=True)  # ast-grep refuses these for another reason
    if name in ctx.local:
        return _object_kinds(util, yaml_path("utils", name), ctx, (*seen, name))
    found = _object_kinds(util, "rule", ctx, (*seen, name))
    if found.known or found.broken is None or found.shared is not None:
        return found
    return _Kinds(known=False, broken=where, shared=name)


def _pattern_kinds(part: PatternRule, where: str, language: Language) -> _Kinds:
    """A pattern's kinds: unknown when its node is an ERROR (or a lone metavariable)."""
    pattern = part.pattern
    if isinstance(pattern, PatternObject) and pattern.selector is not None:
        return _Kinds(known=True)  # the selected kind (ast-grep checks that it is there)
    if not root_is_error(part.text, language):
        return _Kinds(known=True)  # a lone `$A` is left to run as before
    if isinstance(pattern, PatternObject):
        where = yaml_path(where, "context")
    return _Kinds(known=False, broken=where)
