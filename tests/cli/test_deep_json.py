"""JSON nested a thousand levels deep, where xcsh reads JSON it did not write itself: a
session file's line, a scripted model's steps, the trust file. Each is a clear message
naming the file (and the line), exit 2, never a RecursionError traceback nor a message
about something else. (Journal records: tests/cli/test_undo_cmd.py, "deep".)"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh

DEEP = "[" * 1000 + "]" * 1000


def _deep_arguments(levels: int) -> dict[str, object]:
    value: dict[str, object] = {"a": 1}
    for _ in range(levels):
        value = {"x": value}
    return value


def test_a_session_line_nested_too_deep_is_named_with_its_line(
    tmp_path: Path, xcsh_home: Path
) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text('[{"text": "hi"}]')
    scripted = ["--provider", "scripted", "--model", str(steps)]
    assert run_xcsh([*scripted, "-p", "hello"], cwd=tmp_path, home=xcsh_home).returncode == 0
    [session] = (xcsh_home / "sessions").glob("*.jsonl")
    lines = session.read_text().splitlines()
    with session.open("a") as fh:  # a whole line, not one a crash cut short
        fh.write(f'{{"type": "message", "message": {DEEP}}}\n')
    said = f"{session}:{len(lines) + 1}: nested more than 100 levels deep\n"
    for args in ([*scripted, "--continue", "-p", "again"], ["rewind", "--list"]):
        done = run_xcsh(args, cwd=tmp_path, home=xcsh_home)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
        assert said in done.stderr, done.stderr
        assert "correct or delete that line" in done.stderr
    assert len(session.read_text().splitlines()) == len(lines) + 1  # nothing appended


def test_scripted_steps_nested_too_deep_are_named_not_misread(
    tmp_path: Path, xcsh_home: Path
) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps([{"tool_calls": [{"name": "ls", "arguments": _deep_arguments(300)}]}])
    )
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "-p", "go"], cwd=tmp_path, home=xcsh_home
    )
    assert done.returncode == 2, done.stderr
    assert f"scripted model: cannot read {steps}: nested more than 100 levels deep" in done.stderr
    assert "must be a list" not in done.stderr and "Traceback" not in done.stderr


def test_a_trust_file_nested_too_deep_is_named(tmp_path: Path, xcsh_home: Path) -> None:
    trust = xcsh_home / "trusted.json"
    trust.write_text(f'{{"version": 1, "folders": {DEEP}}}')
    done = run_xcsh(["trust", "--list"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 2, done.stderr
    assert f"{trust} is not valid JSON (nested more than 100 levels deep, line 1)" in done.stderr
    assert "Traceback" not in done.stderr
