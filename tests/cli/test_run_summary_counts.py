"""``xcsh -p``'s closing line ("xcsh: this run applied ...") counts each file once, shows
names safely, and names only what this run's session applied, through the installed
``xcsh``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import WAITING_COMMAND, ast_edit_while_waiting, run_xcsh, start_xcsh


def _edit(old: str, new: str) -> dict[str, Any]:
    return {"name": "edit", "arguments": {"path": "a.py", "old_text": old, "new_text": new}}


def _argv(tmp_path: Path, calls: list[dict[str, Any]]) -> list[str]:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([*({"tool_calls": [c]} for c in calls), {"text": "done"}]))
    return ["--provider", "scripted", "--model", str(steps), "-p", "go"]


def _last(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_a_file_changed_twice_counts_once_and_names_are_shown_safely(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("x = 1\n")
    hostile = {
        "name": "bash",
        "arguments": {"command": "printf x > \"$(printf 'e\\033]0;t\\007\\nx')\""},
    }
    calls = [_edit("x = 1", "x = 2"), _edit("x = 2", "x = 3"), hostile]
    done = run_xcsh(_argv(tmp_path, calls), cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    last = _last(done.stderr)
    assert last.startswith("xcsh: this run applied 3 changes to 2 files: "), last
    assert "(e^[]0;t^G^Jx)" in last and "\x1b" not in last and "\x07" not in last, last


def test_another_process_applying_meanwhile_is_not_this_runs(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".gitignore").write_text("*.flag\n")
    (project / "a.py").write_text("print(1)\n")
    wait = WAITING_COMMAND + "echo c > c.txt"
    calls = [{"name": "bash", "arguments": {"command": wait}}]
    run = start_xcsh(_argv(tmp_path, calls), cwd=project, home=xcsh_home)
    err = ast_edit_while_waiting(run, project, xcsh_home)
    last = _last(err)
    assert (
        last
        == f"xcsh: this run applied 1 change to 1 file: '{wait}' (c.txt). Nothing is left to apply."
    )


def test_an_entry_of_many_files_names_three_and_counts_the_rest_once(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    make = "for n in 1 2 3 4 5 6 7 8 9; do echo $n > f$n.txt; done"
    calls = [{"name": "bash", "arguments": {"command": make}}]
    done = run_xcsh(_argv(tmp_path, calls), cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    last = _last(done.stderr)
    assert last == (
        f"xcsh: this run applied 1 change to 9 files: '{make}' "
        "(f1.txt, f2.txt, f3.txt and 6 more). Nothing is left to apply."
    ), last
