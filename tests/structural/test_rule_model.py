"""A YAML rule read once into typed values, and the one :class:`Matcher` protocol a
pattern and a rule both run through.

ast-grep must see the rule as written (less the keys it ignores), whatever the
typed model makes of it; a pattern and a rule must find, match and pre-filter
alike through the protocol the engine uses.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ast_grep_py import SgRoot

from xcsh.structural import compile_pattern, parse_rules, resolve_language
from xcsh.structural.base.matcher import Matcher
from xcsh.structural.rules import RuleError, RuleWarning, compile_rule
from xcsh.structural.rules.model import (
    AnyRule,
    NthChildRule,
    PatternObject,
    PatternRule,
    Relation,
    RuleObject,
    StopBy,
)
from xcsh.structural.rules.schema import parse_rule

PYTHON = resolve_language("python")

WRITTEN: dict[str, object] = {
    "kind": "call",
    "inside": {"stopBy": "end", "kind": "function_definition", "field": "body"},
    "any": [
        {"pattern": {"context": "f($A)", "strictness": "relaxed"}},
        {"has": {"pattern": "$B", "stopBy": {"kind": "argument_list"}}},
    ],
    "nthChild": {"position": 1, "ofRule": {"pattern": "$C"}},
    "range": {"start": {"line": 0, "column": 0}, "end": {"line": 9, "column": 0}},
    "not": {"regex": "^print"},
    "matches": "util",
}


def test_a_rule_object_is_its_parts_in_the_order_written() -> None:
    rule = parse_rule(WRITTEN, "rule", "r.yml")
    assert [part.key for part in rule.parts] == list(WRITTEN)
    inside = rule.parts[1]
    assert isinstance(inside, Relation) and inside.relation == "inside"
    assert inside.rule.parts[0] == StopBy("end")
    branches = rule.parts[2]
    assert isinstance(branches, AnyRule)
    assert branches.rules[0] == RuleObject(
        (PatternRule(PatternObject(context="f($A)", strictness="relaxed")),)
    )
    nth = rule.parts[3]
    assert isinstance(nth, NthChildRule) and nth.of_rule is not None
    # metavariables in the order ast-grep first sees them, `ofRule` included
    assert list(rule.patterns()) == ["f($A)", "$B", "$C"]


def test_ast_grep_receives_the_rule_as_written() -> None:
    assert parse_rule(WRITTEN, "rule", "r.yml").to_json() == WRITTEN


def test_a_bad_rule_is_refused_with_its_yaml_path() -> None:
    with pytest.raises(RuleError, match=r"r\.yml: rule\.any\[1\]\.has\.stopBy: `stopBy` is"):
        parse_rule(
            {"any": [{"kind": "call"}, {"has": {"kind": "x", "stopBy": "far"}}]}, "rule", "r.yml"
        )
    with pytest.raises(RuleError, match=r"rule\.pattern: a pattern object takes `context`"):
        parse_rule({"pattern": {"selector": "call"}}, "rule", "r.yml")


def test_the_keys_ast_grep_ignores_are_left_out_with_a_warning() -> None:
    warnings: list[RuleWarning] = []
    document = {
        "id": "r",
        "language": "python",
        "rule": {"pattern": "f($A)", "inside": {"kind": "call", "stopby": "end"}},
        "fix": {"template": "g($A)", "expandEnd": {"kind": ",", "bogus": 1}},
    }
    rule = compile_rule(document, origin="r.yml", strict=False, warnings=warnings)
    assert [w.yaml_path for w in warnings] == ["rule.inside.stopby", "fix.expandEnd.bogus"]
    assert rule.fix is not None and rule.fix.expand_end is not None
    assert rule.fix.expand_end.to_json() == {"kind": ","}
    with pytest.raises(RuleError, match=r"rule\.inside\.stopby: unknown key"):
        compile_rule(document, origin="r.yml")


RULE = """\
id: call-of-int
language: python
files: ["src/**"]
rule:
  pattern: f($A)
  has: { matches: is-int, stopBy: end }
utils:
  is-int: { kind: integer }
"""


def test_a_pattern_and_a_rule_run_through_one_protocol(tmp_path: Path) -> None:
    root = SgRoot("f(1)\nf(x)\ng(2)\n", "python").root()
    pattern: Matcher = compile_pattern("f($A)", PYTHON)
    (compiled,) = parse_rules(RULE, origin="r.yml")
    rule: Matcher = compiled.matcher
    assert [n.text() for n in pattern.find_all(root)] == ["f(1)", "f(x)"]
    assert [n.text() for n in rule.find_all(root)] == ["f(1)"]  # utils honoured
    calls = root.find_all(kind="call")
    assert [pattern.matches(n) for n in calls] == [True, True, False]
    assert [rule.matches(n) for n in calls] == [True, False, False]
    # what only a rule has (its id, fix, report) travels beside its matcher, not behind it
    assert not hasattr(pattern, "yaml_rule") and not hasattr(rule, "yaml_rule")
    assert compiled.extras.id == "call-of-int" and not hasattr(rule, "id")
    assert pattern.single == rule.single == ("A",)
    # the pre-filter: the fixed text, and for a rule its `files`
    assert pattern.may_match(b"f(1)", "lib/a.py") and not pattern.may_match(b"g(1)", "a.py")
    assert rule.may_match(b"f(1)", "src/a.py") and not rule.may_match(b"f(1)", "lib/a.py")
    assert rule.required == pattern.required == ((b"f",), (b"(",), (b")",))


def test_a_rewriters_own_utils_are_checked_as_the_rules_are() -> None:
    document = {
        "id": "r",
        "language": "python",
        "rule": {"pattern": "f($A)"},
        "rewriters": [{"id": "w", "rule": {"matches": "u"}, "utils": {"u": "call"}, "fix": "g"}],
    }
    with pytest.raises(RuleError, match=r"rewriters\[0\]\.utils\.u: a rule must be a mapping"):
        compile_rule(document, origin="r.yml")


@pytest.mark.parametrize("bound_by", ["rule", "constraints"])
def test_a_label_must_name_a_metavariable_the_rule_or_a_constraint_binds(bound_by: str) -> None:
    rule = {"all": [{"pattern": "f($A)"}, {"has": {"pattern": "$B"}}]}
    document: dict[str, object] = {
        "id": "r",
        "language": "python",
        "rule": {"pattern": "f($A)"} if bound_by == "constraints" else rule,
        "labels": {"B": {"style": "primary"}},
    }
    if bound_by == "constraints":
        document["constraints"] = {"A": {"has": {"pattern": "$B"}}}
    assert compile_rule(document, origin="r.yml").labels is not None
    # as `ast-grep scan` refuses it at load: a label on nothing is never silently dropped
    document["labels"] = {"X": {"style": "primary"}}
    with pytest.raises(RuleError, match=r"labels\.X: the label names `\$X`, which the rule"):
        compile_rule(document, origin="r.yml")
