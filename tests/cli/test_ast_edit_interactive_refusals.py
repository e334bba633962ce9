"""``xcsh ast-edit -i`` refuses up front when it cannot ask: nothing is previewed or written."""

from __future__ import annotations

from pathlib import Path

from clirun import run_xcsh


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("foo(1)\n")
    return tmp_path


def test_interactive_with_json_is_a_usage_error(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    done = run_xcsh("ast-edit", "-p", "foo($A)", "-r", "bar($A)", "-i", "--json", cwd=root)
    assert done.returncode == 2
    assert "-i asks about each change and --json never asks" in done.stderr
    assert done.stdout == ""  # no JSON preview printed as if -i had been ignored
    assert (root / "a.py").read_text() == "foo(1)\n"


def test_interactive_without_a_terminal_refuses_before_previewing(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    done = run_xcsh("ast-edit", "-p", "foo($A)", "-r", "bar($A)", "-i", cwd=root)
    assert done.returncode == 2
    assert "needs a terminal: nothing changed" in done.stderr
    assert "Preview" not in done.stdout
    assert (root / "a.py").read_text() == "foo(1)\n"
