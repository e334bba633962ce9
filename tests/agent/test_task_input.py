"""``xcsh -p -`` reads the task from standard input; an empty task is refused."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh


def scripted(folder: Path, steps: list[dict[str, object]]) -> list[str]:
    path = folder / "steps.json"
    path.write_text(json.dumps(steps))
    return ["--provider", "scripted", "--model", str(path)]


def first_user_text(folder: Path) -> str:
    request = json.loads((folder / "steps.requests.jsonl").read_text().splitlines()[0])
    user = [m for m in request["messages"] if m["role"] == "user"]
    return str(user[0]["content"][0]["text"])


def test_dash_reads_the_task_from_stdin(tmp_path: Path, xcsh_home: Path) -> None:
    args = scripted(tmp_path, [{"text": "done"}])
    task = "rename foo to bar\nin every file\n"
    done = run_xcsh([*args, "-p", "-"], cwd=tmp_path, home=xcsh_home, input=task)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"
    assert first_user_text(tmp_path) == task


def test_an_empty_task_is_refused_before_any_request(tmp_path: Path, xcsh_home: Path) -> None:
    args = scripted(tmp_path, [{"text": "done"}])
    for argv, stdin, what in (
        (["-p", ""], None, "the task is empty"),
        (["-p", "  \n"], None, "the task is empty"),
        (["-p", "-"], "", "the task read from standard input is empty"),
        (["-p", "-"], " \n\t\n", "the task read from standard input is empty"),
    ):
        refused = run_xcsh([*args, *argv], cwd=tmp_path, home=xcsh_home, input=stdin)
        assert refused.returncode == 2, (argv, refused.stderr)
        assert refused.stderr.startswith(f"xcsh: {what}\nHint: "), refused.stderr
        assert "xcsh -p -" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "steps.requests.jsonl").exists()
    assert not (xcsh_home / "sessions").exists()
