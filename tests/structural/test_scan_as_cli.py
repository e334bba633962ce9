"""``xcsh scan`` as ``ast-grep scan`` runs it: exit status, rule globs, rule files the
CLI reads leniently, projects without files of their rules' language.

Each case runs the real ``ast-grep scan`` on the same tree and compares.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sgcli import ast_grep_binary

from helpers import run_xcsh

RULE = "id: {id}\nlanguage: python\nseverity: {severity}\nrule: {{pattern: 'f($A)'}}\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ast_grep_binary(), "scan", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def _objects(stdout: str) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return sorted(found, key=lambda o: (o["file"], json.dumps(o, sort_keys=True)))


@pytest.mark.parametrize(
    ("severities", "code"),
    [(("error",), 1), (("warning",), 0), (("hint", "error"), 1), (("info", "hint"), 0)],
)
def test_scan_exits_as_ast_grep_scan_by_severity(
    tmp_path: Path, xcsh_home: Path, severities: tuple[str, ...], code: int
) -> None:
    files = {"src/a.py": "f(1)\n", "sgconfig.yml": "ruleDirs: [rules]\n"}
    for index, severity in enumerate(severities):
        files[f"rules/r{index}.yml"] = RULE.format(id=f"r{index}", severity=severity)
    _write(tmp_path, files)
    theirs = _cli(tmp_path)
    assert theirs.returncode == code, theirs.stderr
    for args in ([], ["--json"]):
        ours = run_xcsh(["scan", *args], cwd=tmp_path, home=xcsh_home, inherit=True)
        assert ours.returncode == code, ours.stderr
        assert "f(1)" in ours.stdout
    # nothing matched: 0 for scan, as the CLI; `ast-grep`/`--rule` keep 1 for none
    (tmp_path / "src" / "a.py").write_text("g(1)\n")
    assert _cli(tmp_path).returncode == 0
    assert run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home, inherit=True).returncode == 0
    rule = ["--rule", "rules/r0.yml"]
    assert run_xcsh(["ast-grep", *rule], cwd=tmp_path, home=xcsh_home, inherit=True).returncode == 1


def test_a_project_without_files_of_its_rules_language_is_no_error(
    tmp_path: Path, xcsh_home: Path
) -> None:
    _write(
        tmp_path,
        {
            "x.js": "f(1)\n",
            "sgconfig.yml": "ruleDirs: [rules]\n",
            "rules/r.yml": RULE.format(id="r", severity="error"),
        },
    )
    theirs = _cli(tmp_path)
    ours = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home, inherit=True)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, "", "") == (0, "", "")


@pytest.mark.parametrize("where", [".", "src", "src/sub"])
def test_rule_globs_are_read_from_the_project_folder(
    tmp_path: Path, xcsh_home: Path, where: str
) -> None:
    _write(
        tmp_path,
        {
            "sgconfig.yml": "ruleDirs: [rules]\n",
            "rules/g.yml": "id: g\nlanguage: python\nfiles: [src/**/*.py]\n"
            "ignores: [src/sub/skip.py]\nrule: {pattern: 'f($A)'}\n",
            "src/sub/a.py": "f(1)\n",
            "src/sub/skip.py": "f(2)\n",
            "top.py": "f(3)\n",
        },
    )
    cwd = tmp_path / where
    expected = _objects(_cli(cwd, "--json=stream").stdout)
    assert [o["text"] for o in expected] == ["f(1)"]
    ours = run_xcsh(["scan", "--json"], cwd=cwd, home=xcsh_home, inherit=True)
    assert _objects(ours.stdout) == expected, ours.stderr


@pytest.mark.parametrize(
    ("cwd", "rule", "files"),
    [
        ("src", "g.yml", "sub/*.py"),
        (".", "src/g.yml", "sub/*.py"),
        (".", "src/g.yml", "src/**"),
        # ast-grep's globs: `*` also crosses `/`, a plain name is a whole path
        (".", "src/g.yml", "sub*.py"),
        (".", "src/g.yml", "a.py"),
        (".", "src/g.yml", "**/a.py"),
        (".", "src/g.yml", "sub/[!b].py"),
    ],
)
def test_globs_of_a_rule_file_are_read_from_its_folder(
    tmp_path: Path, xcsh_home: Path, cwd: str, rule: str, files: str
) -> None:
    _write(
        tmp_path,
        {
            "src/g.yml": f"id: g\nlanguage: python\nfiles: ['{files}']\n"
            "rule: {pattern: 'f($A)'}\n",
            "src/sub/a.py": "f(1)\n",
        },
    )
    expected = _objects(_cli(tmp_path / cwd, "--rule", rule, "--json=stream").stdout)
    for command in ("scan", "ast-grep"):
        ours = run_xcsh(
            [command, "--rule", rule, "--json"], cwd=tmp_path / cwd, home=xcsh_home, inherit=True
        )
        assert _objects(ours.stdout) == expected, ours.stderr


LENIENT = """\
id: lenient
language: python
rule:
  pattern: f($A)
  inside:
    kind: expression_statement
    stopby: end
    parent: module
rewriters:
- id: unused
  language: python
  rule: { pattern: x }
  fix: y
---
id: lenient
language: python
rule:
  pattern: f($A)
  has:
    kind: argument_list
    position: 1
    nthchild: 1
"""


def test_rule_files_ast_grep_reads_leniently_run_with_warnings(
    tmp_path: Path, xcsh_home: Path
) -> None:
    _write(tmp_path, {"r.yml": LENIENT, "a.py": "def g():\n    f(1)\n    return f(2)\n"})
    expected = _objects(_cli(tmp_path, "--rule", "r.yml", "--json=stream").stdout)
    assert len(expected) == 3
    ours = run_xcsh(["scan", "--rule", "r.yml", "--json"], cwd=tmp_path, home=xcsh_home)
    assert ours.returncode == 0, ours.stderr
    assert _objects(ours.stdout) == expected
    warnings = ours.stderr.splitlines()
    for needle in (
        "rule.inside.stopby: unknown key (did you mean `stopBy`?)",
        "rule.inside.parent: unknown key",
        "rewriters[0].language: unknown key",
        "rule.has.position: unknown key (`position` belongs inside `nthChild`)",
        "rule.has.nthchild: unknown key (did you mean `nthChild`?)",
        "2 rules share the id `lenient`",
    ):
        assert any(needle in line and line.startswith("xcsh: warning: ") for line in warnings), (
            needle,
            warnings,
        )

    strict = run_xcsh(["scan", "--strict-rules", "--rule", "r.yml"], cwd=tmp_path, home=xcsh_home)
    assert strict.returncode == 2 and strict.stdout == ""
    assert "rule.inside.stopby: unknown key (did you mean `stopBy`?)" in strict.stderr

    (xcsh_home / "settings.toml").write_text("strict_rules = true\n")
    by_setting = run_xcsh(["scan", "--rule", "r.yml"], cwd=tmp_path, home=xcsh_home)
    assert by_setting.returncode == 2 and "rule.inside.stopby" in by_setting.stderr
    (xcsh_home / "settings.toml").write_text("strict_rules = 'yes'\n")
    bad = run_xcsh(["scan", "--rule", "r.yml"], cwd=tmp_path, home=xcsh_home)
    assert bad.returncode == 2 and "strict_rules" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("style", ["pretty", "compact", "stream"])
@pytest.mark.parametrize("source", ["f(1)\nf('é\\t')\n", "g(1)\n"])
def test_json_styles_print_the_bytes_of_ast_grep(
    tmp_path: Path, xcsh_home: Path, style: str, source: str
) -> None:
    _write(tmp_path, {"a.py": source, "r.yml": RULE.format(id="r", severity="info")})
    for ours_args, theirs_args in (
        (["ast-grep", "-p", "f($A)"], ["run", "-p", "f($A)"]),
        (["scan", "--rule", "r.yml"], ["scan", "--rule", "r.yml"]),
    ):
        theirs = subprocess.run(
            [ast_grep_binary(), *theirs_args, f"--json={style}", "a.py"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        ours = run_xcsh([*ours_args, f"--json={style}", "a.py"], cwd=tmp_path, home=xcsh_home)
        assert ours.stdout == theirs.stdout, ours.stderr


def test_a_bad_json_style_is_a_usage_error(tmp_path: Path, xcsh_home: Path) -> None:
    (tmp_path / "a.py").write_text("f(1)\n")
    done = run_xcsh(["ast-grep", "-p", "f($A)", "--json=yaml"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2 and "--json takes pretty, stream, compact" in done.stderr
    # a PATH after a bare --json stays a PATH, as in ast-grep
    bare = run_xcsh(["ast-grep", "-p", "f($A)", "--json", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert bare.returncode == 0 and json.loads(bare.stdout)["file"] == "a.py"
