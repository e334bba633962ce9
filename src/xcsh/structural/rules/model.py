"""A YAML rule object as typed values: what every phase after reading works on.

:mod:`xcsh.structural.rules.read` turns a parsed YAML document (or the
``ast_grep``/``ast_edit`` tools' ``rule`` argument) into a ``RuleDocument`` (the
document around the rule object: :mod:`xcsh.structural.rules.document`); nothing
after it reads a rule by key.

A rule object (:class:`RuleObject`) is the keys of one YAML mapping in the
order written, each a :data:`RulePart`: atomic (:class:`PatternRule`,
:class:`KindRule`, :class:`RegexRule`, :class:`NthChildRule`,
:class:`RangeRule`), relational (:class:`Relation`, whose own rule may also
hold :class:`StopBy` and :class:`FieldRule`) or composite (:class:`AllRule`,
:class:`AnyRule`, :class:`NotRule`, :class:`MatchesRule`). Several parts in
one object must all match, as in ast-grep. The order is kept because it is the
order in which metavariables are first seen, which fixes the order of a
match's captures.

What xcsh only hands on to ast-grep-py, without reading it (an ``nthChild``
or ``range`` value, a pattern object's ``selector`` and ``strictness``, the
body of a native transform), is kept as the :data:`JsonValue` written; the
configuration ast-grep-py runs is rebuilt from the parts
(:meth:`RuleObject.to_json`, :func:`ast_grep_config`), equal to the mapping
written less the keys ast-grep ignores.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, TypeAlias, cast

if TYPE_CHECKING:
    from ast_grep_py import Rule

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
"""A value as YAML or JSON gives it."""

JsonObject: TypeAlias = "dict[str, JsonValue]"
"""A mapping as YAML or JSON gives it."""


@dataclass(frozen=True, kw_only=True)
class PatternObject:
    """A pattern written as a mapping.

    ``context`` is required; ``selector`` and ``strictness`` are ``None`` when not written.
    """

    context: JsonValue
    selector: JsonValue = None
    strictness: JsonValue = None

    def to_json(self) -> JsonObject:
        """The mapping ast-grep-py reads, with the keys written."""
        out: JsonObject = {"context": self.context}
        if self.selector is not None:
            out["selector"] = self.selector
        if self.strictness is not None:
            out["strictness"] = self.strictness
        return out


@dataclass(frozen=True)
class PatternRule:
    """``pattern:``: a pattern text, or a pattern object."""

    pattern: str | PatternObject
    key: ClassVar[str] = "pattern"

    @property
    def text(self) -> str:
        """The pattern's text (a pattern object's ``context``)."""
        if isinstance(self.pattern, str):
            return self.pattern
        return str(self.pattern.context)

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.pattern if isinstance(self.pattern, str) else self.pattern.to_json()


@dataclass(frozen=True)
class KindRule:
    """``kind:``: a node kind."""

    kind: str
    key: ClassVar[str] = "kind"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.kind


@dataclass(frozen=True)
class RegexRule:
    """``regex:``: a regular expression (Rust's syntax) the node's text matches."""

    regex: str
    key: ClassVar[str] = "regex"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.regex


@dataclass(frozen=True)
class NthChildRule:
    """``nthChild:``, handed on as written; ``of_rule``: its ``ofRule``, when a rule."""

    written: JsonValue
    of_rule: RuleObject | None = None
    key: ClassVar[str] = "nthChild"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.written


@dataclass(frozen=True)
class RangeRule:
    """``range:``, handed on as written."""

    written: JsonValue
    key: ClassVar[str] = "range"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.written


RelationName: TypeAlias = Literal["inside", "has", "precedes", "follows"]


@dataclass(frozen=True)
class Relation:
    """``inside``/``has``/``precedes``/``follows``: a rule another node must match."""

    relation: RelationName
    rule: RuleObject

    @property
    def key(self) -> str:
        """The YAML key."""
        return self.relation

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.rule.to_json()


@dataclass(frozen=True)
class StopBy:
    """A relation's ``stopBy``: ``neighbor``, ``end`` or a rule."""

    stop: Literal["neighbor", "end"] | RuleObject
    key: ClassVar[str] = "stopBy"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.stop if isinstance(self.stop, str) else self.stop.to_json()


@dataclass(frozen=True)
class FieldRule:
    """A relation's ``field``: the related node's field name."""

    name: str
    key: ClassVar[str] = "field"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.name


@dataclass(frozen=True)
class AllRule:
    """``all:``: every rule matches (a non-empty list)."""

    rules: tuple[RuleObject, ...]
    key: ClassVar[str] = "all"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return [rule.to_json() for rule in self.rules]


@dataclass(frozen=True)
class AnyRule:
    """``any:``: one of the rules matches (a non-empty list)."""

    rules: tuple[RuleObject, ...]
    key: ClassVar[str] = "any"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return [rule.to_json() for rule in self.rules]


@dataclass(frozen=True)
class NotRule:
    """``not:``: the rule does not match."""

    rule: RuleObject
    key: ClassVar[str] = "not"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.rule.to_json()


@dataclass(frozen=True)
class MatchesRule:
    """``matches:``: the utility rule of that id matches."""

    util: str
    key: ClassVar[str] = "matches"

    def value(self) -> JsonValue:
        """The value ast-grep-py reads."""
        return self.util


RulePart: TypeAlias = (
    PatternRule
    | KindRule
    | RegexRule
    | NthChildRule
    | RangeRule
    | Relation
    | StopBy
    | FieldRule
    | AllRule
    | AnyRule
    | NotRule
    | MatchesRule
)
"""One key of a rule object."""


@dataclass(frozen=True)
class RuleObject:
    """A rule: its parts in the order written (see the module docstring)."""

    parts: tuple[RulePart, ...]

    def to_json(self) -> JsonObject:
        """The mapping ast-grep-py reads."""
        return {part.key: part.value() for part in self.parts}

    @functools.cached_property
    def config(self) -> Rule:
        """The rule as ast-grep-py's ``SgNode.matches(**rule)`` takes it (built once)."""
        return cast("Rule", self.to_json())

    def patterns(self) -> Iterator[str]:
        """Every pattern text inside, in document order.

        Sub-rules, ``not``, ``stopBy`` and ``nthChild.ofRule`` included.
        """
        for part in self.parts:
            yield from part_patterns(part)

    def any_branches(self) -> tuple[RuleObject, ...]:
        """The rules of the object's ``any`` part (``()``: none)."""
        found = next((p for p in self.parts if isinstance(p, AnyRule)), None)
        return () if found is None else found.rules

    def all_items(self) -> tuple[RuleObject, ...]:
        """The rules of the object's ``all`` part (``()``: none)."""
        found = next((p for p in self.parts if isinstance(p, AllRule)), None)
        return () if found is None else found.rules


def part_patterns(part: RulePart) -> Iterator[str]:
    """The pattern texts inside one part, in document order."""
    if isinstance(part, PatternRule):
        yield part.text
    elif isinstance(part, Relation | NotRule):
        yield from part.rule.patterns()
    elif isinstance(part, StopBy) and not isinstance(part.stop, str):
        yield from part.stop.patterns()
    elif isinstance(part, AllRule | AnyRule):
        for rule in part.rules:
            yield from rule.patterns()
    elif isinstance(part, NthChildRule) and part.of_rule is not None:
        yield from part.of_rule.patterns()


def table_patterns(table: Mapping[str, RuleObject]) -> Iterator[str]:
    """The pattern texts of a table of rules (``utils``, ``constraints``), in order."""
    for rule in table.values():
        yield from rule.patterns()


__all__ = [
    "AllRule",
    "AnyRule",
    "FieldRule",
    "JsonObject",
    "JsonValue",
    "KindRule",
    "MatchesRule",
    "NotRule",
    "NthChildRule",
    "PatternObject",
    "PatternRule",
    "RangeRule",
    "RegexRule",
    "Relation",
    "RelationName",
    "RuleObject",
    "RulePart",
    "StopBy",
    "part_patterns",
    "table_patterns",
]
