"""A session file torn by a crash mid-write stays resumable (its torn line is dropped)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_xcsh
from xcsh.agent import SessionRecorder, load_session
from xcsh.agent.persistence import drop_torn_tail


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
