"""Ctrl-C, SIGTERM or SIGHUP while the agent's ``resolve`` writes an edit (``xcsh -p``).

The apply runs in a worker thread; the signal arrives as it writes its k-th file
(the process sends it to itself at that write, so the moment is exact). An
apply that started is never cut short: every file is written, the session
records the ``resolve`` result as applied (so ``--continue`` neither applies it
again nor believes it pending), the run then ends cancelled with the signal's
code, and stderr says the files were written and how to undo them.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from helpers import SIGNAL_AT_WRITE, tool_call, user_texts, xcsh_env
from xcsh.agent import load_session
from xcsh.core import AssistantMessage, ToolResultMessage
from xcsh.journal import finish_in_thread

FILES = 60
AT_WRITE = 30

SCRIPT = (
    SIGNAL_AT_WRITE
    + """
import sys
from xcsh.cli import main

sig, times = int(sys.argv[1]), int(sys.argv[2])
for _ in range(times):  # each wrapper sends it once, at the same write
    _signal_at_write(sig, int(sys.argv[3]))
sys.argv = ["xcsh", *sys.argv[4:]]
sys.exit(main())
"""
)
"""``python -c SCRIPT SIG TIMES K ARGS...``: ``xcsh ARGS`` that sends itself ``SIG``
``TIMES`` times as its ``K``-th file write starts."""

STEPS = [
    {
        "tool_calls": [
            tool_call(
                "ast_edit",
                ops=[{"pat": "print($A)", "out": "log($A)"}],
                lang="python",
                path="pkg",
            )
        ]
    },
    {"tool_calls": [tool_call("resolve", action="apply", reason="use the logger")]},
    {"text": "all done"},
]


def workspace(root: Path) -> Path:
    ws = root / "ws"
    (ws / "pkg").mkdir(parents=True)
    for i in range(FILES):
        (ws / "pkg" / f"m{i:02}.py").write_text(f"print({i})\n")
    return ws


def rewritten(ws: Path) -> int:
    return sum(1 for p in (ws / "pkg").iterdir() if p.read_text().startswith("log("))


def run_interrupted(
    root: Path,
    home: Path,
    sig: signal.Signals,
    mode: str,
    times: int = 1,
    steps_given: list[dict[str, Any]] = STEPS,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    ws = workspace(root)
    steps = root / "steps.json"
    steps.write_text(json.dumps(steps_given))
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", mode, "-p", "log it"]
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(int(sig)), str(times), str(AT_WRITE), *argv],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env=xcsh_env(home, inherit=True),
    )
    return ws, run


def session_records(home: Path) -> list[dict[str, Any]]:
    (path,) = (home / "sessions").rglob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


CASES = [
    (signal.SIGINT, "text", 1),
    (signal.SIGINT, "json", 2),
    (signal.SIGTERM, "json", 1),
    (signal.SIGHUP, "text", 1),
]


@pytest.mark.parametrize(
    ("sig", "mode", "times"), CASES, ids=["ctrl-c-text", "ctrl-c-twice-json", "term-json", "hup"]
)
def test_a_signal_mid_apply_lets_the_apply_finish_and_says_so(
    tmp_path: Path, xcsh_home: Path, sig: signal.Signals, mode: str, times: int
) -> None:
    ws, run = run_interrupted(tmp_path, xcsh_home, sig, mode, times)

    assert run.returncode == 128 + sig, run.stderr
    assert "Traceback" not in run.stderr
    assert rewritten(ws) == FILES  # never cut short
    said = (
        "xcsh: the run was cancelled after applying 'AST Edit: 60 replacements in 60 files': "
        "an apply is never cut short, so every file it changes was written. "
        "Undo it with: xcsh undo"
    )
    assert said in run.stderr.splitlines()
    # the session holds the apply as done, and nothing left pending
    (path,) = (xcsh_home / "sessions").rglob("*.jsonl")
    messages = load_session(path).messages
    calls = [c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == calls  # every call answered, none "Cancelled"
    (result,) = [r for r in results if r.tool_name == "resolve"]
    assert not result.is_error
    assert result.content[0].text.startswith("Applied 60 replacements in 60 files")  # type: ignore[union-attr]
    records = session_records(xcsh_home)
    assert [r["reason"] for r in records if r["type"] == "run_end"] == ["cancelled"]
    assert [r for r in records if r["type"] == "pending"][-1]["stack"] == []
    if mode == "json":
        events = [json.loads(line) for line in run.stdout.splitlines()]
        (resolved,) = [e for e in events if e["type"] == "resolved"]
        assert resolved["action"] == "apply" and not resolved["is_error"]
        assert events[-1]["type"] == "run_end"
        assert events[-1]["reason"] == "cancelled" and events[-1]["pending"] == 0
    # xcsh undo takes it back, as stderr said
    undo = subprocess.run(
        [sys.executable, "-m", "xcsh", "undo"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env=xcsh_env(xcsh_home, inherit=True),
    )
    assert undo.returncode == 0, undo.stderr
    assert rewritten(ws) == 0


def test_a_signal_mid_apply_of_some_parts_names_the_parts_applied(
    tmp_path: Path, xcsh_home: Path
) -> None:
    only = [f"pkg/m{i:02}.py" for i in range(40)]
    apply = tool_call("resolve", action="apply", reason="these first", only=only)
    ws, run = run_interrupted(
        tmp_path, xcsh_home, signal.SIGTERM, "json", steps_given=[STEPS[0], {"tool_calls": [apply]}]
    )
    assert run.returncode == 143, run.stderr
    assert rewritten(ws) == 40
    assert run.stderr.splitlines() == [
        "xcsh: the run was cancelled after applying 40 of the 60 changes of 'AST Edit: 60 "
        "replacements in 60 files': an apply is never cut short, so every file it changes was "
        "written. Undo it with: xcsh undo",
        "xcsh: cancelled (SIGTERM)",
    ]
    events = [json.loads(line) for line in run.stdout.splitlines()]
    (resolved,) = [e for e in events if e["type"] == "resolved"]
    assert not resolved["is_error"] and resolved["text"].startswith("Applied 40 of 60 changes")
    assert events[-1]["type"] == "run_end" and events[-1]["pending"] == 0


def test_continue_after_an_interrupted_apply_tells_the_model_it_was_applied(
    tmp_path: Path, xcsh_home: Path
) -> None:
    ws, run = run_interrupted(tmp_path, xcsh_home, signal.SIGINT, "text")
    assert run.returncode == 130, run.stderr
    steps = tmp_path / "again.json"
    steps.write_text(json.dumps([{"text": "nothing left to do"}]))
    argv = ["--provider", "scripted", "--model", str(steps), "--continue", "-p", "is it done?"]
    again = subprocess.run(
        [sys.executable, "-m", "xcsh", *argv],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env=xcsh_env(xcsh_home, inherit=True),
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "nothing left to do"
    assert rewritten(ws) == FILES
    log = steps.with_name("again.requests.jsonl")
    (request,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert user_texts(request)[-1] == "is it done?"
    (told,) = [
        block["text"]
        for m in request["messages"]
        if m["role"] == "tool_result" and m.get("tool_name") == "resolve"
        for block in m["content"]
    ]
    assert told.startswith("Applied 60 replacements in 60 files")
    assert request["tool_choice"] == "auto"  # no preview is pending
    assert "Previewed again" not in again.stderr and "pending" not in again.stderr.lower()


def test_finish_in_thread_lets_a_cancel_in_only_after_the_work_returned() -> None:
    """A cancel while the work runs: its result still comes back, then the task ends cancelled."""
    started, go_on = threading.Event(), threading.Event()
    seen: list[str] = []

    def work() -> str:
        started.set()
        go_on.wait(10)
        return "written"

    async def caller() -> None:
        seen.append(await finish_in_thread(work))
        await asyncio.sleep(0)  # the next await is where the cancel lands
        seen.append("went on")

    async def main() -> None:
        task = asyncio.create_task(caller())
        await asyncio.to_thread(started.wait, 10)
        task.cancel()
        await asyncio.sleep(0.05)
        assert not task.done()  # still waiting for the work
        go_on.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert seen == ["written"]
