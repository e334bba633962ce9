"""What a ``bash`` entry records besides files: the folders its command created (undo and
rewind remove them when left empty, never a folder that was there before), and not the
changes another journal entry recorded while it ran. Through the installed ``xcsh``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from helpers import WAITING_COMMAND, ast_edit_while_waiting, run_steps, run_xcsh, start_xcsh

SETTINGS = 'sandbox = "auto"\n'


def _bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command}}


def _paths(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def test_undo_removes_the_folders_a_command_created_and_keeps_those_there_before(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "keep.md").write_text("kept\n")
    (project / "empty").mkdir()  # there before, empty: never removed
    before = _paths(project)
    made = (
        "mkdir -p gen/deep/er docs/new && echo x > gen/deep/er/f.txt && "
        "echo y > docs/new/g.md && echo z > empty/h.txt"
    )
    code, _events, err = run_steps(tmp_path, xcsh_home, [_bash(made)], SETTINGS)
    assert code == 0, err
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert _paths(project) == before  # gen/, gen/deep/, gen/deep/er/, docs/new/ gone
    assert "Removed the folders it created: " in undone.stdout, undone.stdout
    assert "docs/new" in undone.stdout and "empty" not in undone.stdout.split("Removed")[1]


def test_undo_keeps_a_created_folder_that_holds_something_new(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    code, _events, err = run_steps(
        tmp_path, xcsh_home, [_bash("mkdir -p gen/out && echo x > gen/out/f.txt")], SETTINGS
    )
    assert code == 0, err
    (project / "gen" / "mine.txt").write_text("the user's\n")
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert _paths(project) == {"gen", "gen/mine.txt"}  # gen/out removed, gen holds a file


def test_a_change_another_entry_recorded_meanwhile_is_not_recorded_again(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".gitignore").write_text("*.flag\n")
    (project / "a.py").write_text("print(1)\n")
    (project / "b.txt").write_text("b\n")
    (xcsh_home / "settings.toml").write_text(SETTINGS)
    command = WAITING_COMMAND + "echo c > b.txt"
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"tool_calls": [_bash(command)]}, {"text": "done"}]))
    argv = ["--provider", "scripted", "--model", str(steps), "-p", "go"]
    run = start_xcsh(argv, cwd=project, home=xcsh_home)
    ast_edit_while_waiting(run, project, xcsh_home)
    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home).stdout.splitlines()
    assert len(listed) == 2, listed
    assert listed[0].endswith("AST Edit: 1 replacement in 1 file: a.py")
    assert listed[1].endswith(f"{command}: b.txt"), listed  # a.py is the ast-edit's alone
    for _ in range(2):
        undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
        assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (project / "a.py").read_text() == "print(1)\n"
    assert (project / "b.txt").read_text() == "b\n"


def test_a_command_creating_git_or_xcsh_folders_is_told_they_are_not_recorded(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "a.txt").write_text("a\n")
    commit = "git status --short > /dev/null; echo c > c.txt"
    create = "mkdir sub && git init -q sub && echo x > sub/b.txt && mkdir -p deep/.hg"
    code, events, err = run_steps(
        tmp_path, xcsh_home, [_bash(commit), _bash(create)], SETTINGS, one_per_turn=True
    )
    assert code == 0, err
    first, second = [e["text"] for e in events if e["type"] == "tool_result"]
    assert "[undo]" not in first, first  # the workspace's own .git was there: nothing said
    assert (
        "[undo] Not recorded: deep/.hg, sub/.git (folders named .git, .hg or .xcsh, whose "
        "contents xcsh never records); xcsh undo and xcsh rewind leave them and what they "
        "hold as they are."
    ) in second, second
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert not (project / "sub" / "b.txt").exists()
    assert (project / "sub" / ".git").is_dir()  # left as it is, as the result said
