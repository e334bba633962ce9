"""The README's sample project of rules works as shown, through the installed ``xcsh``,
and a pattern rewrite without ``-l`` leaves the project's rule files alone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from sgcli import ast_grep_binary

from helpers import run_xcsh

README = Path(__file__).resolve().parents[2] / "README.md"
APP = 'def greet(name):\n    print("hello", name)\n'


def _sample(root: Path) -> str:
    """Write the README's ``sgconfig.yml`` and rule file under ``root``; the output shown."""
    section = README.read_text(encoding="utf-8").split("A project's rules, from nothing", 1)[1]
    for name, body in re.findall(r"```yaml\n# (\S+)\n(.*?)```", section, re.DOTALL)[:2]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    (root / "app.py").write_text(APP)
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def test_the_readme_sample_project_scans_and_fixes_as_shown(
    tmp_path: Path, xcsh_home: Path
) -> None:
    shown = _sample(tmp_path)
    assert (tmp_path / "sgconfig.yml").is_file() and (tmp_path / "rules/no-print.yml").is_file()
    scanned = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    assert (scanned.returncode, scanned.stdout) == (0, shown), scanned.stderr
    theirs = subprocess.run(
        [ast_grep_binary(), "scan", "--color", "never"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert theirs.stdout == shown
    fixed = run_xcsh(["scan", "--fix", "--yes"], cwd=tmp_path, home=xcsh_home)
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "app.py").read_text() == APP.replace("print(", "log.info(")
    assert run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home).returncode == 0
    assert (tmp_path / "app.py").read_text() == APP


def test_a_pattern_rewrite_without_a_language_leaves_the_rule_files_alone(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # print($$$ARGS) is a YAML scalar too: the rule file's `pattern:` line matched, and
    # the rewrite was refused for changing "several languages" (python and yaml)
    _sample(tmp_path)
    rule = (tmp_path / "rules/no-print.yml").read_text()
    edit = ["ast-edit", "-p", "print($$$ARGS)", "-r", "log.info($$$ARGS)", "--yes"]
    done = run_xcsh(edit, cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert "Applied 1 replacement in 1 file: app.py." in done.stdout
    assert (tmp_path / "rules/no-print.yml").read_text() == rule
    assert (tmp_path / "app.py").read_text() == APP.replace("print(", "log.info(")
    as_yaml = run_xcsh([*edit[:-1], "--dry-run", "-l", "yaml"], cwd=tmp_path, home=xcsh_home)
    assert "--- a/rules/no-print.yml" in as_yaml.stdout  # asked for by name: edited as YAML
