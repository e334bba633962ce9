"""The shape of a YAML rule object, checked key by key, and the errors of reading rules.

A rule object is made typed (:class:`~xcsh.structural.rules.model.RuleObject`);
each problem names its YAML path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from xcsh.core import ToolError
from xcsh.structural.rules.model import (
    AllRule,
    AnyRule,
    FieldRule,
    JsonObject,
    JsonValue,
    KindRule,
    MatchesRule,
    NotRule,
    NthChildRule,
    PatternObject,
    PatternRule,
    RangeRule,
    RegexRule,
    Relation,
    RelationName,
    RuleObject,
    RulePart,
    StopBy,
)


class RuleError(ToolError):
    """A rule file or rule object that cannot be used; the message names where and the fix.

    Attributes:
        origin: the file (or ``rule`` parameter) the rule came from.
        yaml_path: the dotted path inside the document (``rule.inside.stopBy``), or ``""``.
    """

    def __init__(self, origin: str, yaml_path: str, problem: str) -> None:
        where = f"{origin}: {yaml_path}: " if yaml_path else f"{origin}: "
        super().__init__(where + problem)
        self.origin = origin
        self.yaml_path = yaml_path


ATOMIC_KEYS = ("pattern", "kind", "regex", "nthChild", "range")


RELATIONAL_KEYS = ("inside", "has", "precedes", "follows")


COMPOSITE_KEYS = ("all", "any", "not", "matches")


RULE_KEYS = ATOMIC_KEYS + RELATIONAL_KEYS + COMPOSITE_KEYS
"""The keys of a rule object, as ast-grep 0.51 knows them."""


TOP_KEYS = (
    "id",
    "language",
    "rule",
    "constraints",
    "utils",
    "transform",
    "fix",
    "rewriters",
    "files",
    "ignores",
    "severity",
    "message",
    "note",
    "url",
    "metadata",
    "labels",
)


PARAMETER_ORIGIN = "rule"
"""Where a rule given as the tools' ``rule`` parameter comes from, in messages: a rule
with an id is then named ``rule `ID```` alone (never ``rule rule `ID```)."""

SEVERITIES = ("hint", "info", "warning", "error", "off")


def yaml_path(parent: str, key: str | int) -> str:
    """The YAML path of ``key`` (a list index when an int) inside ``parent`` (``""``: top)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def parse_rule(value: object, where: str, origin: str, *, relation: bool = False) -> RuleObject:
    """A rule object, checked key by key and made typed.

    With ``relation``, it is a relational rule's own object, which may also hold
    ``stopBy`` and ``field``.

    Raises:
        RuleError: naming the YAML path of the first bad key or value.
    """
    if not isinstance(value, dict):
        raise RuleError(
            origin,
            where,
            f"a rule must be a mapping of rule keys ({', '.join(RULE_KEYS)}); "
            f"got {type(value).__name__}.",
        )
    allowed = RULE_KEYS + (("stopBy", "field") if relation else ())
    parts: list[RulePart] = []
    for key, sub in value.items():
        here = yaml_path(where, str(key))
        if key not in allowed:
            raise _unknown_rule_key(origin, here, key, allowed)
        parts.append(_nested_part(key, sub, here, origin) or _leaf_part(key, sub, here, origin))
    return RuleObject(tuple(parts))


def _unknown_rule_key(origin: str, here: str, key: object, allowed: Sequence[str]) -> RuleError:
    """The error for a key a rule object does not take, with where it belongs."""
    hint = ""
    if key in ("stopBy", "field"):
        hint = f" `{key}` belongs inside a relational rule (inside, has, precedes, follows)."
    elif key in TOP_KEYS:
        hint = f" `{key}` is a key of the rule file, beside `rule`, not inside it."
    return RuleError(
        origin,
        here,
        f"unknown rule key `{key}`. Use one of: {', '.join(allowed)}.{hint}",
    )


_RELATIONS: dict[str, RelationName] = {
    "inside": "inside",
    "has": "has",
    "precedes": "precedes",
    "follows": "follows",
}


def _nested_part(key: str, sub: object, here: str, origin: str) -> RulePart | None:
    """The part of a key holding rules, checked; ``None`` for another key.

    Relational keys, ``not``, ``all``/``any`` and ``stopBy`` hold rules.
    """
    if key in _RELATIONS:
        return Relation(_RELATIONS[key], parse_rule(sub, here, origin, relation=True))
    if key == "not":
        return NotRule(parse_rule(sub, here, origin))
    if key in ("all", "any"):
        if not isinstance(sub, list) or not sub:
            raise RuleError(origin, here, f"`{key}` takes a non-empty list of rules.")
        rules = tuple(parse_rule(item, yaml_path(here, i), origin) for i, item in enumerate(sub))
        return AllRule(rules) if key == "all" else AnyRule(rules)
    if key == "stopBy":
        if isinstance(sub, str):
            if sub not in ("neighbor", "end"):
                raise RuleError(
                    origin, here, f"`stopBy` is `neighbor`, `end` or a rule; got `{sub}`."
                )
            return StopBy("neighbor" if sub == "neighbor" else "end")
        return StopBy(parse_rule(sub, here, origin))
    return None


def _leaf_part(key: str, sub: JsonValue, here: str, origin: str) -> RulePart:
    """The part of a leaf key: a string, a pattern object or a valid regex.

    ``nthChild`` and ``range`` are kept as written (ast-grep checks them).
    """
    if (
        key in ("pattern", "kind", "regex", "matches", "field")
        and not isinstance(sub, str)
        and not (key == "pattern" and isinstance(sub, dict))
    ):
        raise RuleError(origin, here, f"`{key}` takes a string.")
    if isinstance(sub, dict):  # a pattern object, or nthChild's
        if key == "nthChild":
            return NthChildRule(sub, _of_rule(sub, here, origin))
        if key == "range":
            return RangeRule(sub)
        unknown = set(sub) - {"context", "selector", "strictness"}
        if unknown or "context" not in sub:
            raise RuleError(
                origin,
                here,
                "a pattern object takes `context` (required), `selector` and `strictness`.",
            )
        return PatternRule(PatternObject(**sub))
    if key == "nthChild":
        return NthChildRule(sub)
    if key == "range":
        return RangeRule(sub)
    text = str(sub)
    if key == "regex":
        problem = regex_problem(text)
        if problem:
            raise RuleError(origin, here, f"invalid regular expression: {problem}.")
        return RegexRule(text)
    if key == "pattern":
        return PatternRule(text)
    if key == "kind":
        return KindRule(text)
    return MatchesRule(text) if key == "matches" else FieldRule(text)


def _of_rule(nth_child: JsonObject, here: str, origin: str) -> RuleObject | None:
    """``nthChild.ofRule`` when it is a rule (ast-grep checks it; ``None`` otherwise)."""
    for key, sub in nth_child.items():
        if key == "ofRule":
            try:
                return parse_rule(sub, yaml_path(here, key), origin)
            except RuleError:
                return None  # ast-grep says what is wrong with it
    return None


def regex_problem(regex: str) -> str:
    r"""Why ast-grep refuses ``regex`` (Rust's syntax: ``\p{L}``, ``[[:alpha:]]``), or ``""``."""
    from ast_grep_py import SgRoot

    try:
        SgRoot("", "python").root().find_all({"rule": {"regex": regex}})
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # ast-grep-py reports a bad rule as a Rust panic or error
        text = str(exc).split("Stack backtrace:")[0]
        found = re.search(r"error: (.+)", text)
        return found.group(1).strip() if found else "not a valid regular expression"
    return ""


REWRITER_KEYS = ("id", "rule", "constraints", "utils", "transform", "fix", "rewriters")


FIX_KEYS = ("template", "expandStart", "expandEnd")


@dataclass(frozen=True, kw_only=True)
class RuleWarning:
    """Something in a rule file that ast-grep runs anyway, and so does xcsh unless strict.

    It is a key ast-grep ignores inside a rule, or two rules sharing an id.

    Attributes:
        origin: the file (with its document and rule id) it is in.
        yaml_path: the dotted path (``rule.inside.stopby``).
        problem: what is wrong, with the likely fix (``unknown key (did you mean
            `stopBy`?)``).
        ignored: what ast-grep does with it (``ignored``, ``both run``).
    """

    origin: str
    yaml_path: str
    problem: str
    ignored: str = "ignored"

    def __str__(self) -> str:
        return f"{self.origin}: {self.yaml_path}: {self.problem}; {self.ignored}, as ast-grep does."

    def as_error(self) -> RuleError:
        """The refusal strict rule checking gives instead of the warning."""
        return RuleError(
            self.origin, self.yaml_path, f"{self.problem}. Rules are checked strictly: fix it."
        )
