"""A session file torn by a crash mid-write stays resumable (its torn line is dropped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_xcsh
from xcsh.agent import SessionRecorder, load_session
from xcsh.agent.record.persistence import drop_torn_tail


def test_torn_last_line_then_resume_twice(tmp_path: Path, xcsh_home: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "one"}, {"text": "two"}, {"text": "three"}]))
    model = ["--provider", "scripted", "--model", str(steps)]
    first = run_xcsh([*model, "-p", "go"], cwd=tmp_path, home=xcsh_home)
    assert first.returncode == 0, first.stderr
    (path,) = (xcsh_home / "sessions").glob("*.jsonl")
    size = path.stat().st_size
    os.truncate(path, size - 10)  # a crash in the middle of the last record
    session_id = path.stem
    for prompt in ("a", "b"):
        again = run_xcsh(
            [*model, "--session", session_id, "-p", prompt], cwd=tmp_path, home=xcsh_home
        )
        assert again.returncode == 0, again.stderr
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line is whole JSON again
    assert [r["type"] for r in records].count("run_end") == 3
    users = [
        m.content[0].text
        for m in load_session(path).messages
        if getattr(m, "role", "") == "user" and not m.hidden
    ]
    assert users == ["go", "a", "b"]


def test_a_record_missing_only_its_line_break_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": str(tmp_path)})
    recorder.write({"type": "run_end", "reason": "stop", "message": ""})
    recorder.close()
    os.truncate(path, path.stat().st_size - 1)
    assert drop_torn_tail(path) == 0
    assert path.read_bytes().endswith(b'"message": ""}\n')
    SessionRecorder(path).write({"type": "run_end", "reason": "stop", "message": "x"})
    assert len([json.loads(x) for x in path.read_text().splitlines()]) == 3


@pytest.mark.parametrize("tail", [b'{"type": "mess', b"\xff\xfe", b"[1, 2"])
def test_torn_tail_is_cut(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "s.jsonl"
    whole = b'{"type": "session", "version": 1, "id": "s"}\n'
    path.write_bytes(whole + tail)
    assert drop_torn_tail(path) == len(tail)
    assert path.read_bytes() == whole


TORN_IN_A_CHARACTER = b'{"type": "message", "message": {"role": "user", "content": "caf\xc3'
"""A crash while writing ``café``: the line stops between the two bytes of ``é``."""


def _first_run(tmp_path: Path, xcsh_home: Path) -> tuple[list[str], Path]:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "one"}, {"text": "two"}, {"text": "three"}]))
    model = ["--provider", "scripted", "--model", str(steps)]
    first = run_xcsh([*model, "-p", "go"], cwd=tmp_path, home=xcsh_home)
    assert first.returncode == 0, first.stderr
    (path,) = (xcsh_home / "sessions").glob("*.jsonl")
    return model, path


def test_a_last_line_torn_inside_a_character_is_ignored(tmp_path: Path, xcsh_home: Path) -> None:
    model, path = _first_run(tmp_path, xcsh_home)
    with path.open("ab") as fh:
        fh.write(TORN_IN_A_CHARACTER)
    listed = run_xcsh(["rewind", "--list"], cwd=tmp_path, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    assert "go" in listed.stdout
    assert load_session(path).messages[-1].role == "assistant"
    for resume in (["--continue"], ["--session", path.stem]):
        again = run_xcsh([*model, *resume, "-p", "hi"], cwd=tmp_path, home=xcsh_home)
        assert again.returncode == 0, again.stderr
        assert "utf-8" not in again.stderr.lower()
        with path.open("ab") as fh:
            fh.write(TORN_IN_A_CHARACTER)  # torn again before the next resume
    users = [
        m.content[0].text
        for m in load_session(path).messages
        if getattr(m, "role", "") == "user" and not m.hidden
    ]
    assert users == ["go", "hi", "hi"]


def test_a_whole_line_that_is_not_utf8_is_named(tmp_path: Path, xcsh_home: Path) -> None:
    model, path = _first_run(tmp_path, xcsh_home)
    number = len(path.read_bytes().splitlines()) + 1
    with path.open("ab") as fh:
        fh.write(TORN_IN_A_CHARACTER + b'"}}\n{"type": "run_end"}\n')
    for args in (["rewind", "--list"], [*model, "--continue", "-p", "hi"]):
        refused = run_xcsh(args, cwd=tmp_path, home=xcsh_home)
        assert refused.returncode != 0
        problem, hint = refused.stderr.strip().split("\n")
        assert problem.endswith(f"{path}:{number}: not valid UTF-8 (byte 0xc3 at column 64)"), (
            refused.stderr
        )
        assert hint.startswith("Hint: ") and "--continue" in hint
        assert "Traceback" not in refused.stderr
