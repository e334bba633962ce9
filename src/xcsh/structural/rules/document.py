"""A YAML rule document as typed values, around its rule objects.

The ``fix``, the ``transform`` entries, the ``rewriters`` and the document itself
(:class:`RuleDocument`), as :mod:`xcsh.structural.rules.read` reads them; the
rule objects inside are :mod:`xcsh.structural.rules.model`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias, cast

from xcsh.structural.base.languages import Language
from xcsh.structural.rules.labels import RuleLabel
from xcsh.structural.rules.model import JsonObject, JsonValue, RuleObject

if TYPE_CHECKING:
    from ast_grep_py import Config


@dataclass(frozen=True, kw_only=True)
class Fix:
    """A rule's ``fix``: the template, and rules widening the replaced range.

    Attributes:
        template: the fix template (metavariables expanded per match).
        expand_start: siblings before the match that match it are replaced too.
        expand_end: siblings after the match that match it are replaced too.
        is_text: written as a string (``fix: ...``), not as ``{template: ...}``.
    """

    template: str
    expand_start: RuleObject | None = None
    expand_end: RuleObject | None = None
    is_text: bool = True


@dataclass(frozen=True, kw_only=True)
class NativeTransform:
    """A transformation ast-grep-py evaluates, handed on as written.

    It is ``replace``, ``substring``, ``convert``, or the string form.
    """

    name: str
    written: JsonValue


@dataclass(frozen=True, kw_only=True)
class RewriteTransform:
    """A ``rewrite`` transformation, evaluated by xcsh with the rule's rewriters.

    Attributes:
        name: the metavariable it defines.
        source: the metavariable rewritten (``$A`` or ``$$$A``).
        rewriters: the ids of the rewriters tried, in order.
        join_by: the text joining the rewritten nodes of a ``$$$`` source, or ``None``.
    """

    name: str
    source: str
    rewriters: tuple[str, ...]
    join_by: str | None = None


Transform: TypeAlias = NativeTransform | RewriteTransform
"""One entry of ``transform:``."""


@dataclass(frozen=True, kw_only=True)
class Transforms:
    """A rule's ``transform:``, in the order written."""

    entries: tuple[Transform, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every name defined, in order."""
        return tuple(entry.name for entry in self.entries)

    @property
    def native_first(self) -> tuple[str, ...]:
        """Every name defined: those ast-grep-py evaluates, then the ``rewrite`` ones."""
        return tuple(e.name for e in self.native) + tuple(e.name for e in self.rewrites)

    @property
    def native(self) -> tuple[NativeTransform, ...]:
        """The transformations ast-grep-py evaluates."""
        return tuple(e for e in self.entries if isinstance(e, NativeTransform))

    @property
    def rewrites(self) -> tuple[RewriteTransform, ...]:
        """The ``rewrite`` transformations."""
        return tuple(e for e in self.entries if isinstance(e, RewriteTransform))


@dataclass(frozen=True, kw_only=True)
class RewriterSpec:
    """One of a rule's ``rewriters`` as written: a rule with a fix.

    Attributes:
        id: its ``id``.
        where: its YAML path (``rewriters[0]``), for messages.
        rule: its ``rule``.
        constraints: its ``constraints`` by metavariable name.
        utils: its own ``utils`` by id.
        transforms: its ``transform``.
        fix: its ``fix``.
    """

    id: str
    where: str
    rule: RuleObject
    constraints: dict[str, RuleObject] = field(default_factory=dict)
    utils: dict[str, RuleObject] = field(default_factory=dict)
    transforms: Transforms = Transforms()
    fix: Fix


@dataclass(frozen=True, kw_only=True)
class RuleDocument:
    """One rule document, read and typed (see :mod:`xcsh.structural.rules.read`).

    Attributes:
        id: the rule's ``id``.
        origin: the file (or the tools' ``rule`` parameter) it came from.
        where: where it is, for messages (``rules/a.yml (document 2) rule `x```).
        language: its ``language``, resolved.
        rule: its ``rule``.
        utils: its own ``utils`` by id (a project's shared ones come apart).
        constraints: its ``constraints`` by metavariable name.
        transforms: its ``transform``.
        rewriters: its ``rewriters``, in order.
        fix: its ``fix``, or ``None``.
        files: ``files`` globs (empty: every file).
        ignores: ``ignores`` globs.
        severity: one of ``hint``, ``info``, ``warning``, ``error``, ``off``.
        message: its ``message`` (``""`` when none).
        note: its ``note``, or ``None``.
        labels: its ``labels:``, or ``None`` (the default labels).
    """

    id: str
    origin: str
    where: str
    language: Language
    rule: RuleObject
    utils: dict[str, RuleObject] = field(default_factory=dict)
    constraints: dict[str, RuleObject] = field(default_factory=dict)
    transforms: Transforms = Transforms()
    rewriters: tuple[RewriterSpec, ...] = ()
    fix: Fix | None = None
    files: tuple[str, ...] = ()
    ignores: tuple[str, ...] = ()
    severity: str = "hint"
    message: str = ""
    note: str | None = None
    labels: tuple[RuleLabel, ...] | None = None


def ast_grep_config(
    rule: RuleObject,
    *,
    constraints: Mapping[str, RuleObject],
    utils: Mapping[str, RuleObject],
    native: tuple[NativeTransform, ...],
) -> Config:
    """The configuration ast-grep-py's ``find_all(config)`` runs.

    It holds the rule, with the constraints, utility rules and native transforms
    given (each left out when empty).
    """
    out: JsonObject = {"rule": rule.to_json()}
    if constraints:
        out["constraints"] = {name: sub.to_json() for name, sub in constraints.items()}
    if utils:
        out["utils"] = {name: sub.to_json() for name, sub in utils.items()}
    if native:
        out["transform"] = {entry.name: entry.written for entry in native}
    return cast("Config", out)


__all__ = [
    "Fix",
    "NativeTransform",
    "RewriteTransform",
    "RewriterSpec",
    "RuleDocument",
    "Transform",
    "Transforms",
    "ast_grep_config",
]
