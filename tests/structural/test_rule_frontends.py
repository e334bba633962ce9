"""YAML rules through every front end: the tools' ``rule``, ``--rule``, ``xcsh scan``.

Results are compared with the real ``ast-grep scan`` on the same files; bad
rules must name the YAML path of the problem and the fix.
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sgcli import ast_grep_binary

from helpers import run_xcsh
from xcsh import PendingActionStore, ToolError
from xcsh.structural import RuleError, parse_rules
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool

YODA = """\
id: yoda
language: python
severity: warning
message: write $A == $B
rule:
  pattern: $B == $A
  inside: { kind: if_statement, field: condition, stopBy: neighbor }
constraints:
  B: { kind: integer }
fix: $A == $B
"""
SOURCE = "if 1 == x:\n    pass\ny = 2 == x\n"
UTIL = "id: is-int\nlanguage: python\nrule: { kind: integer }\n"
USES_UTIL = """\
id: int-compare
language: python
rule:
  pattern: $A == $B
  has: { matches: is-int }
fix: ($A) == ($B)
"""


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ast_grep_binary(), *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def _parsed(line: str) -> dict[str, Any]:
    obj: dict[str, Any] = json.loads(line)
    return obj


async def test_the_tools_take_a_rule_object_or_yaml_text(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "yoda.yml").write_text(YODA)
    expected = [
        _parsed(line)
        for line in _cli(tmp_path, "scan", "--rule", "yoda.yml", "--json=stream").stdout.split("\n")
        if line
    ]
    grep = create_ast_grep_tool(str(tmp_path))
    import yaml

    found = await grep.execute("g", {"rule": yaml.safe_load(YODA), "path": "a.py"})
    assert [_parsed(json.dumps(m)) for m in found.details["matches"]] == expected
    assert "yoda" in found.content[0].text  # type: ignore[union-attr]

    store = PendingActionStore()
    edit = create_ast_edit_tool(str(tmp_path), store)
    previewed = await edit.execute("e", {"rule": YODA, "path": "a.py"})
    assert previewed.details["total"] == 1
    await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "test"})
    ours = (tmp_path / "a.py").read_text()
    (tmp_path / "a.py").write_text(SOURCE)
    _cli(tmp_path, "scan", "--rule", "yoda.yml", "-U")
    assert ours == (tmp_path / "a.py").read_text() == "if x == 1:\n    pass\ny = 2 == x\n"

    with pytest.raises(ToolError, match="Give `pat` or `rule`"):
        await grep.execute("g", {"pat": ["x"], "rule": YODA})
    with pytest.raises(ToolError, match="nothing to rewrite"):
        await edit.execute("e", {"rule": "id: a\nlanguage: python\nrule: {kind: integer}\n"})


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("id: a\nlanguage: python\nrule:\n  insde: {kind: call}\n", ["rule.insde", "inside"]),
        (
            "id: a\nlanguage: python\nrule:\n  pattern: f($A)\n  inside: {kind: x, stopBy: far}\n",
            ["rule.inside.stopBy", "`neighbor`, `end` or a rule"],
        ),
        ("id: a\nlanguage: python\nrule:\n  any: []\n", ["rule.any", "non-empty list"]),
        ("id: a\nlanguage: python\nrule: {kind: nosuch}\n", ["rule", "nosuch", "invalid"]),
        ("id: a\nlanguage: klingon\nrule: {kind: call}\n", ["language", "Supported languages"]),
        ("id: a\nlanguage: python\nrule: {kind: call\n", ["not valid YAML", "line"]),
        ("id: a\nlanguage: python\nfix: x\n", ["rule", "missing"]),
        (
            "id: a\nlanguage: python\nrule: {pattern: f($A)}\n"
            "transform:\n  B: {rewrite: {source: $A, rewriters: [nope]}}\n",
            ["transform.B.rewrite.rewriters[0]", "no rewriter `nope`"],
        ),
        (
            "id: a\nlanguage: python\nrule: {kind: call}\n---\nid: b\nlanguage: python\n"
            "rule: {kind: call, stopBy: end}\n",
            ["document 2", "rule `b`", "rule.stopBy", "relational rule"],
        ),
        ("id: a\nlanguage: python\nrule: {kind: call}\nfix: {templat: x}\n", ["fix.templat"]),
        (
            "id: a\nlanguage: python\nid: b\nrule: {kind: call}\n",
            ["not valid YAML: line 3, column 1: the key `id` is given twice", "first at line 1"],
        ),
    ],
)
def test_a_bad_rule_names_its_yaml_path_and_the_fix(text: str, needles: list[str]) -> None:
    with pytest.raises(RuleError) as info:
        parse_rules(text, origin="r.yml")
    message = str(info.value)
    assert message.startswith("r.yml")
    for needle in needles:
        assert needle in message, message


def test_commands_run_rules_as_ast_grep_scan(tmp_path: Path, xcsh_home: Path) -> None:
    project = tmp_path / "p"
    (project / "rules").mkdir(parents=True)
    (project / "utils").mkdir()
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text(SOURCE)
    (project / "rules" / "yoda.yml").write_text(YODA)
    (project / "rules" / "int.yml").write_text(USES_UTIL)
    (project / "utils" / "is-int.yml").write_text(UTIL)
    (project / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")

    def key(obj: dict[str, Any]) -> tuple[Any, ...]:
        return (obj["file"], obj["range"]["byteOffset"]["start"], obj["ruleId"])

    expected = sorted(
        (
            _parsed(line)
            for line in _cli(project, "scan", "--json=stream").stdout.split("\n")
            if line
        ),
        key=key,
    )
    assert {o["ruleId"] for o in expected} == {"yoda", "int-compare"}
    xcsh = functools.partial(run_xcsh, cwd=project, home=xcsh_home, inherit=True)
    done = xcsh(["scan", "--json"])
    assert done.returncode == 0, done.stderr
    assert sorted((_parsed(line) for line in done.stdout.splitlines()), key=key) == expected

    one = xcsh(["ast-grep", "--rule", "rules/yoda.yml"])
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("warning[yoda]: write x == 1\nsrc/a.py:1:4:if 1 == x:")

    edited = xcsh(["ast-edit", "--rule", "rules/yoda.yml", "--yes"])
    assert edited.returncode == 0, edited.stderr
    assert (project / "src" / "a.py").read_text().startswith("if x == 1:")
    assert xcsh(["undo"]).returncode == 0
    assert (project / "src" / "a.py").read_text() == SOURCE

    fixed = xcsh(["scan", "--fix", "--yes"])
    assert fixed.returncode == 0, fixed.stderr
    ours = (project / "src" / "a.py").read_text()
    (project / "src" / "a.py").write_text(SOURCE)
    _cli(project, "scan", "-U")
    assert ours == (project / "src" / "a.py").read_text()

    bad = xcsh(["ast-grep", "--rule", "missing.yml"])
    assert bad.returncode == 2 and "missing.yml" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    ("broken", "shown"),
    [
        ("utils/bad.yml", "utils/bad.yml: not valid YAML: line 2, column 6: mapping values"),
        ("sgconfig.yml", "sgconfig.yml: not valid YAML: line 3, column 1: expected ',' or ']'"),
    ],
)
def test_broken_yaml_in_the_project_configuration_is_named_in_one_line(
    tmp_path: Path, xcsh_home: Path, broken: str, shown: str
) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "rules" / "yoda.yml").write_text(YODA)
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")
    (tmp_path / broken).write_text(
        "id: x\n  foo: [\n" if broken.startswith("utils") else "ruleDirs: [rules\n\n"
    )
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.startswith(f"xcsh: {shown}"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ("ruleDirs: rules\n", "ruleDirs: must be a list of folders, as ast-grep reads it"),
        ("ruleDirs: [rules]\nutilDirs: utils\n", "utilDirs: must be a list of folders"),
    ],
)
def test_a_folder_not_in_a_list_is_refused_as_ast_grep_scan_refuses_it(
    tmp_path: Path, xcsh_home: Path, config: str, words: str
) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "rules" / "yoda.yml").write_text(YODA)
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "sgconfig.yml").write_text(config)
    assert _cli(tmp_path, "scan").returncode != 0
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.startswith(f"xcsh: sgconfig.yml: {words}"), done.stderr


def test_an_empty_sgconfig_is_refused_where_ast_grep_scan_checks_nothing(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # a difference on purpose (docs/structural.md): a scan of no rules would look clean
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "sgconfig.yml").write_text("")
    theirs = _cli(tmp_path, "scan")
    assert (theirs.returncode, theirs.stdout) == (0, "")
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert "sgconfig.yml: ruleDirs: missing" in done.stderr


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("language: python\nrule: {pattern: $B == $A}\n", "id: every rule needs an `id`"),
        (
            "id: r\nlanguage: python\nrule: {pattern: $B == $A}\n"
            "transform:\n  C: {rewrite: {source: $A, rewriters: [nope]}}\nfix: $C\n",
            "transform.C.rewrite.rewriters[0]: no rewriter `nope`",
        ),
    ],
)
def test_a_rule_ast_grep_scan_half_reads_is_refused(
    tmp_path: Path, xcsh_home: Path, rule: str, words: str
) -> None:
    # differences on purpose (docs/structural.md): the CLI names a rule without an id
    # after its file, and rewrites with an unknown rewriter as if it were not given
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "r.yml").write_text(rule)
    assert _cli(tmp_path, "scan", "--rule", "r.yml", "a.py").returncode == 0
    done = run_xcsh(["scan", "--rule", "r.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert words in done.stderr, done.stderr


BROKEN_PATTERNS = [
    # the QA case: in a flow mapping the pattern is `print($A`, which does not parse
    ("rule: {pattern: print($A}\n", "rule.pattern"),
    ("rule: {pattern: '[1, 2'}\n", "rule.pattern"),
    ("rule: {pattern: {context: 'print($A}', strictness: cst}}\n", "rule.pattern.context"),
    ("rule: {any: [{pattern: 'print($A)'}, {pattern: '$A ='}]}\n", "rule.any[1].pattern"),
    ("rule: {pattern: 'print($A', inside: {kind: module}}\n", "rule.pattern"),
    ("rule: {matches: u}\nutils: {u: {pattern: 'print($A'}}\n", "utils.u.pattern"),
]


@pytest.mark.parametrize(("rule", "path"), BROKEN_PATTERNS)
async def test_a_rule_whose_pattern_does_not_parse_is_refused_at_load(
    tmp_path: Path, xcsh_home: Path, rule: str, path: str
) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    text = f"id: x\nlanguage: python\nseverity: error\n{rule}"
    (tmp_path / "rules" / "x.yml").write_text(text)
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode == 8 and "set of AST kinds" in theirs.stderr, theirs.stderr
    said = f"xcsh: rules/x.yml rule `x`: {path}: the pattern does not parse as python code"
    for args in (["scan"], ["ast-grep", "--rule", "rules/x.yml"]):
        done = run_xcsh(args, cwd=tmp_path, home=xcsh_home)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith(said), done.stderr
        assert "add a `kind` rule" in done.stderr
    with pytest.raises(ToolError) as info:
        await create_ast_grep_tool(str(tmp_path)).execute("g", {"rule": text, "path": "a.py"})
    assert f"rule `x`: {path}: the pattern does not parse" in str(info.value)


@pytest.mark.parametrize(
    "rule",
    [
        "rule: {all: [{pattern: 'print($A'}, {kind: call}]}\n",
        "rule: {kind: call, has: {pattern: 'print($A'}}\n",
        "rule: {pattern: 'print($A)', not: {pattern: 'print($A'}}\n",
        "rule: {pattern: 'print($A)', inside: {pattern: 'def f(: $$$', stopBy: end}}\n",
        "rule: {pattern: 'def f(: $$$'}\n",
        "rule: {kind: call}\nutils: {u: {pattern: 'print($A'}}\n",
        "rule: {pattern: 'print($A)'}\nconstraints: {A: {pattern: 'print($A'}}\n",
    ],
)
def test_a_pattern_with_a_syntax_error_ast_grep_accepts_stays_accepted(
    tmp_path: Path, xcsh_home: Path, rule: str
) -> None:
    # ast-grep refuses only a rule that cannot tell the node kinds it matches
    (tmp_path / "rules").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "rules" / "x.yml").write_text(f"id: x\nlanguage: python\nseverity: error\n{rule}")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode in (0, 1), theirs.stderr
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == theirs.returncode, done.stderr


def test_a_shared_utility_rule_whose_pattern_does_not_parse_is_named(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "utils" / "u.yml").write_text(
        "id: u\nlanguage: python\nrule: {pattern: print($A}\n"
    )
    (tmp_path / "rules" / "x.yml").write_text("id: x\nlanguage: python\nrule: {matches: u}\n")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode == 8 and "set of AST kinds" in theirs.stderr, theirs.stderr
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.startswith(
        "xcsh: rules/x.yml rule `x`: rule.matches: the pattern of the shared utility rule `u` "
        "(utilDirs) does not parse as python code"
    ), done.stderr


@pytest.mark.parametrize(
    ("config", "files", "said"),
    [
        # two rules of one file
        (
            "ruleDirs: [rules]\n",
            {
                "rules/a.yml": "id: x\nlanguage: python\nrule: {pattern: print($A)}\n---\n"
                "id: x\nlanguage: python\nrule: {pattern: log($A)}\n"
            },
            "rules/a.yml: id: the id `x` is twice in the project's rules",
        ),
        # two files
        (
            "ruleDirs: [rules]\n",
            {
                "rules/a.yml": "id: x\nlanguage: python\nrule: {pattern: print($A)}\n",
                "rules/b.yml": "id: x\nlanguage: python\nrule: {pattern: log($A)}\n",
            },
            "rules/b.yml: id: the id `x` is in rules/a.yml too",
        ),
        # one folder listed twice (each match was reported twice)
        (
            "ruleDirs: [rules, ./rules]\n",
            {"rules/a.yml": "id: x\nlanguage: python\nrule: {pattern: print($A)}\n"},
            "rules/a.yml: id: the id `x` is twice in the project's rules",
        ),
    ],
)
def test_a_project_whose_rules_share_an_id_is_refused_as_ast_grep_scan_refuses_it(
    tmp_path: Path, xcsh_home: Path, config: str, files: dict[str, str], said: str
) -> None:
    (tmp_path / "rules").mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "sgconfig.yml").write_text(config)
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode == 8 and "Duplicate rule id `x`" in theirs.stderr
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"xcsh: {said}: rules of a project need ids"), done.stderr
    assert "Give each rule its own id." in done.stderr


RULE_AT = "rules/r.yml"
UTIL_AT = "utils/u.yml"
GOOD_RULE = "id: r\nlanguage: python\nrule: {matches: u}\n"
GOOD_UTIL = "id: u\nlanguage: python\nrule: {pattern: print($A)}\n"


@pytest.mark.parametrize(
    ("broken", "text", "said"),
    [
        (
            RULE_AT,
            "id: r\nlanguage: python\nid: s\nrule: {matches: u}\n",
            "rules/r.yml: not valid YAML: line 3, column 1: the key `id` is given twice in one "
            "mapping (first at line 1); ast-grep refuses that, keep one.",
        ),
        (
            RULE_AT,
            "id: r\nlanguage: python\nrule: {matches: u}\nrule:\n  pattern: log($A)\n",
            "rules/r.yml: not valid YAML: line 4, column 1: the key `rule` is given twice",
        ),
        (
            RULE_AT,
            "id: r\nlanguage: python\nrule:\n  pattern: print($A)\n  pattern: log($A)\n",
            "rules/r.yml: not valid YAML: line 5, column 3: the key `pattern` is given twice",
        ),
        (
            UTIL_AT,
            "id: u\nlanguage: python\nid: v\nrule: {pattern: print($A)}\n",
            "utils/u.yml: not valid YAML: line 3, column 1: the key `id` is given twice",
        ),
        (
            UTIL_AT,
            GOOD_UTIL + "---\nid: v\nlanguage: python\nrule: {pattern: log($A)}\n",
            "utils/u.yml: a second YAML document starts at line 4: a utility rule file holds one "
            "rule, as ast-grep requires",
        ),
        (
            UTIL_AT,
            GOOD_UTIL + "---\n",
            "utils/u.yml: a second YAML document starts at line 4",
        ),
        (
            "sgconfig.yml",
            "ruleDirs: [rules]\nutilDirs: [utils]\nruleDirs: [utils]\n",
            "sgconfig.yml: not valid YAML: line 3, column 1: the key `ruleDirs` is given twice",
        ),
    ],
)
def test_a_key_given_twice_or_a_second_utility_document_is_refused_as_ast_grep_refuses_it(
    tmp_path: Path, xcsh_home: Path, broken: str, text: str, said: str
) -> None:
    """A key given twice, or a utility file of two documents, is refused with its line.

    PyYAML keeps the last of two equal keys; ast-grep (serde_yaml) refuses them, and
    a utility file of two documents: so does xcsh, naming the file, line and key.
    """
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")
    (tmp_path / RULE_AT).write_text(GOOD_RULE)
    (tmp_path / UTIL_AT).write_text(GOOD_UTIL)
    assert _cli(tmp_path, "scan").returncode == 0
    (tmp_path / broken).write_text(text)
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode != 0, theirs.stdout
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.startswith(f"xcsh: {said}"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize(
    ("util", "rule", "said"),
    [
        # a shared utility rule ast-grep refuses is named by its own file, used or not
        (
            "id: u\nlanguage: python\nrule: {kind: nosuch}\n",
            GOOD_RULE,
            "utils/u.yml: rule: ast-grep refused it: `rule` is not configured correctly.",
        ),
        (
            "id: u\nlanguage: python\nrule: {kind: nosuch}\n",
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\n",
            "utils/u.yml: rule: ast-grep refused it:",
        ),
        # a refused constraint, transform or local utility rule is named by its YAML path
        (
            GOOD_UTIL,
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\n"
            "constraints:\n  A: {kind: call}\n  B: {kind: nosuch}\n",
            "rules/r.yml rule `r`: constraints.B: ast-grep refused it: `constraints` is not "
            "configured correctly.",
        ),
        (
            GOOD_UTIL,
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\n"
            "transform:\n  B: {substring: {source: $Z, startChar: 1}}\nfix: $B\n",
            "rules/r.yml rule `r`: transform.B: ast-grep refused it: Undefined meta var `Z`",
        ),
        (
            GOOD_UTIL,
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\ntransform:\n"
            "  C: {substring: {source: $A, startChar: 1}}\n"
            "  B: {convert: {source: $C, toCase: nope}}\nfix: $B\n",
            "rules/r.yml rule `r`: transform.B: ast-grep refused it:",
        ),
        (
            GOOD_UTIL,
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\n"
            "utils:\n  v: {kind: call}\n  w: {kind: nosuch}\n",
            "rules/r.yml rule `r`: utils.w: ast-grep refused it: `utils` is not configured",
        ),
        (
            GOOD_UTIL,
            "id: r\nlanguage: python\nrule: {pattern: print($A)}\n"
            "rewriters:\n- id: q\n  rule: {kind: nosuch}\n  fix: x\n",
            "rules/r.yml rule `r`: rewriters[0].rule: ast-grep refused it:",
        ),
    ],
    ids=[
        "util-used",
        "util-unused",
        "constraint",
        "transform-source",
        "transform-case",
        "local-util",
        "rewriter",
    ],
)
def test_a_refused_part_is_named_by_its_file_and_yaml_path(
    tmp_path: Path, xcsh_home: Path, util: str, rule: str, said: str
) -> None:
    """A part ast-grep refuses is named by its own file and YAML path.

    A bad utility rule names its utilDirs file, not the rule using it; a bad
    constraint or transform names `constraints.X` / `transform.X`, not `rule`.
    """
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")
    (tmp_path / RULE_AT).write_text(rule)
    (tmp_path / UTIL_AT).write_text(util)
    theirs = _cli(tmp_path, "scan")
    assert theirs.returncode != 0, theirs.stdout
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2
    assert done.stderr.startswith(f"xcsh: {said}"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_a_utility_rule_naming_a_missing_rule_is_refused_only_where_used(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """ast-grep accepts an unused utility rule whose `matches` names no rule: so does xcsh."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "utils").mkdir()
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\nutilDirs: [utils]\n")
    (tmp_path / RULE_AT).write_text("id: r\nlanguage: python\nrule: {pattern: print($A)}\n")
    (tmp_path / UTIL_AT).write_text("id: u\nlanguage: python\nrule: {matches: nowhere}\n")
    assert _cli(tmp_path, "scan").returncode == 0
    done = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert "help[r]" in done.stdout
