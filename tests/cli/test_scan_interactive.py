"""``xcsh scan --fix -i``: the rules' fixes gone through one by one on a terminal, as
``xcsh ast-edit -i`` does; the kept ones are written at the end, all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import CTRL_C, run_on_pty, run_xcsh

RULE = """\
id: no-print
language: python
severity: warning
message: use log
rule: { pattern: print($A) }
fix: log($A)
"""
ORIGINAL = {"a.py": "print(1)\nprint(2)\n", "b.py": "x = 0\nprint(3)\n"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "rules").mkdir(parents=True)
    (root / "rules" / "no-print.yml").write_text(RULE)
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    for name, text in ORIGINAL.items():
        (root / name).write_text(text)
    return root


def _texts(root: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(root.glob("*.py"))}


def test_scan_fix_interactive_writes_the_kept_fixes_and_undo_puts_them_back(
    project: Path,
) -> None:
    run = run_on_pty(
        ["scan", "--fix", "-i"],
        cwd=project,
        answers=[
            ("c1 (1/3) a.py:1:1", "y"),
            ("c2 (2/3) a.py:2:1", "n"),
            ("c3 (3/3) b.py:2:1", "y"),
            ("Reason", "not the second"),
        ],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert _texts(project) == {"a.py": "log(1)\nprint(2)\n", "b.py": "x = 0\nlog(3)\n"}
    assert "Applied 2 of 3 changes of p1" in run.output
    assert "Discarded: c2 in a.py." in run.output
    assert run_xcsh("undo", cwd=project).returncode == 0
    assert _texts(project) == ORIGINAL


def test_scan_fix_interactive_ctrl_c_writes_nothing(project: Path) -> None:
    run = run_on_pty(
        ["scan", "--fix", "-i"],
        cwd=project,
        answers=[("c1 (1/3)", "y"), ("c2 (2/3)", CTRL_C)],
        NO_COLOR="1",
    )
    assert run.returncode == 130, run.output
    assert _texts(project) == ORIGINAL


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fix", "-i"], "-i asks about each change and needs a terminal: nothing changed."),
        (["--fix", "-i", "--json"], "-i asks about each change and --json never asks"),
        (["-i"], "--yes, --dry-run and -i go with --fix"),
    ],
)
def test_scan_interactive_refuses_when_it_cannot_ask(
    project: Path, args: list[str], message: str
) -> None:
    done = run_xcsh("scan", *args, cwd=project)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""
    assert _texts(project) == ORIGINAL
