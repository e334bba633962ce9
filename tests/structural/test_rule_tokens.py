"""The text a rule needs in a file before it runs there: sound (never skips a file the
rule matches in) and useful (rules of library calls skip files that never name them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.structural import MatchSpec, ScopeSpec, search
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.rules.schema import parse_rule
from xcsh.structural.rules.tokens import Requirement, admits, regex_clause, required_text

PYTHON = resolve_language("python")


def _required(rule: dict[str, object], utils: dict[str, dict[str, object]]) -> Requirement:
    """What ``rule`` (as written in YAML, with its ``utils``) needs in a Python file."""
    return required_text(
        parse_rule(rule, "rule", "test"),
        {name: parse_rule(util, name, "test") for name, util in utils.items()},
        PYTHON,
    )


@pytest.mark.parametrize(
    ("regex", "clause"),
    [
        ("^pymysql.connect$", (b"pymysql",)),
        ("^(password|passwd)$", (b"password", b"passwd")),
        ("^password$|^passwd$", (b"password", b"passwd")),
        (r"^x\.y+z?w", (b"x.y",)),
        ("^foo(bar)?$", (b"foo",)),  # an optional group needs nothing
        ("^(a|b)cd$", ()),  # alternation inside a group: not followed
        ("(?i)secret", ()),  # flags change what matches
        ("[ab]c", ()),
        (r"^\w+$", ()),
        ("^a$", ()),  # too short to be worth a check
    ],
)
def test_a_regex_needs_the_longest_literal_run_of_each_alternative(
    regex: str, clause: tuple[bytes, ...]
) -> None:
    assert regex_clause(regex) == clause


def test_a_rule_needs_what_each_part_needs_and_one_branch_of_any() -> None:
    rule = {
        "kind": "call",
        "any": [
            {"has": {"regex": "^hashlib.md5$"}},
            {"pattern": "token.sign($$$)"},
        ],
        "has": {"matches": "secret"},
        "not": {"regex": "^ignored$"},
    }
    utils = {"secret": {"kind": "keyword_argument", "regex": "^secret="}}
    required = _required(rule, utils)
    assert required == ((b"hashlib", b"token"), (b"secret=",))
    assert admits(required, b"token.sign(key, secret=1)")
    assert not admits(required, b"hashlib.md5(payload)")  # no `secret=`
    assert not admits(required, b"ignored(secret=1)")
    # a branch that needs nothing makes the whole `any` need nothing
    rule["any"].append({"kind": "identifier"})  # type: ignore[attr-defined]
    assert _required(rule, utils) == ((b"secret=",),)


def test_the_pre_filter_leaves_out_files_without_the_text_never_matches(tmp_path: Path) -> None:
    from xcsh.structural.rules.compile import parse_rules

    (tmp_path / "a.py").write_text("import hashlib\nhashlib.md5(data)\n")
    (tmp_path / "b.py").write_text("md5(data)\n")
    (rule,) = parse_rules(
        "id: r\nlanguage: python\nrule:\n  kind: call\n"
        "  has: {field: function, regex: '^hashlib.md5$'}\n",
        origin="r.yml",
    )
    assert rule.matcher.admits(b"hashlib.md5(x)") and not rule.matcher.admits(b"md5(x)")
    found = search(MatchSpec(rules=(rule,)), ScopeSpec(root=tmp_path), workers=1)
    assert [(m.file, m.text) for m in found.matches] == [("a.py", "hashlib.md5(data)")]
