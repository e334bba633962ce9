"""``xcsh -p -`` reads the task from standard input; an empty task is refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from helpers import run_xcsh
from xcsh.cli.agent_cmd import task_text
from xcsh.core import UsageError


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
    refused = run_xcsh([*args, "-p", "-"], cwd=tmp_path, home=xcsh_home, input=" \n\t\n")
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.startswith("xcsh: the task read from standard input is empty\nHint: ")
    assert "xcsh -p -" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "steps.requests.jsonl").exists()
    assert not (xcsh_home / "sessions").exists()


@pytest.mark.parametrize(
    ("prompt", "stdin", "error"),
    [
        ("", "", "the task is empty"),
        ("  \n", "", "the task is empty"),
        ("-", "", "the task read from standard input is empty"),
        ("-", "\n\n", "the task read from standard input is empty"),
        ("-", "fix the bug\n", None),
        ("--", "", None),  # only "-" alone means standard input
    ],
)
def test_which_tasks_are_empty(prompt: str, stdin: str, error: str | None) -> None:
    if error is None:
        assert task_text(prompt, io.StringIO(stdin)) == (stdin if prompt == "-" else prompt)
        return
    with pytest.raises(UsageError) as info:
        task_text(prompt, io.StringIO(stdin))
    assert str(info.value).startswith(error) and info.value.hint is not None
