"""A preview that cannot outlive xcsh is discarded, its ``reject`` run, when the session ends.

The example ``batch_rename_preview`` writes a plan file ``.xcsh/batch_rename/<call>.json``
that only its ``reject`` (or ``apply``) removes. Its action cannot be rebuilt by
``--continue``, so every ending (the model stopped, SIGTERM, Ctrl-C, leaving the
terminal session) must discard it and say so; an ``ast_edit`` preview is kept.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

XCSH_BIN = str(Path(sys.executable).with_name("xcsh"))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "custom_tools"
RENAME = {
    "name": "batch_rename_preview",
    "arguments": {"renames": [{"from": "n.txt", "to": "m.txt"}]},
}
EDIT = {
    "name": "ast_edit",
    "arguments": {"ops": [{"pat": "foo($A)", "out": "bar($A)"}], "lang": "python", "path": "m.py"},
}
REASON = (
    "The xcsh run ended with this preview still pending, and it cannot be rebuilt "
    "in a later session, so it was discarded."
)


@pytest.fixture
def project(tmp_path: Path, xcsh_home: Path) -> Path:
    (xcsh_home / "tools").mkdir()
    shutil.copy(EXAMPLES / "batch_rename_preview.py", xcsh_home / "tools")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "n.txt").write_text("notes\n")
    (root / "m.py").write_text("x = foo(1)\n")
    return root


def steps(project: Path, *turns: dict[str, Any]) -> Path:
    path = project.parent / "steps.json"
    path.write_text(json.dumps(list(turns)))
    return path


def xcsh(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "XCSH_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [XCSH_BIN, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def records(home: Path) -> list[dict[str, Any]]:
    (saved,) = (home / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in saved.read_text().splitlines()]


def test_print_run_discards_a_custom_preview_and_keeps_ast_edit_for_continue(
    project: Path, xcsh_home: Path
) -> None:
    # one turn leaves both pending (the rename at the bottom); the model then never resolves
    script = steps(project, {"tool_calls": [RENAME, EDIT]}, {"text": "stop"})
    done = xcsh(project, xcsh_home, "--provider", "scripted", "--model", str(script), "-p", "go")

    assert done.returncode == 1, done.stderr  # the forced-turn cap
    assert not (project / ".xcsh").exists()  # reject removed the plan file and its folder
    assert (project / "n.txt").read_text() == "notes\n" and not (project / "m.txt").exists()
    assert "Discard: 1 file" in done.stderr and f"reason: {REASON}" in done.stderr
    assert "The run ended, so Batch rename: 1 file (it cannot be rebuilt" in done.stderr
    saved = records(xcsh_home)
    (resolved,) = [r for r in saved if r["type"] == "resolved"]
    assert (resolved["action"], resolved["reason"]) == ("discard", REASON)
    assert [p["label"] for p in saved[-1]["stack"]] == ["AST Edit: 1 replacement in 1 file"]

    script = steps(project, {"text": "ok"})
    again = xcsh(
        project,
        xcsh_home,
        "--provider",
        "scripted",
        "--model",
        str(script),
        "--continue",
        "-p",
        "go",
    )
    assert "resumed: re-previewed" in again.stderr, again.stderr
    assert "dropped" not in again.stderr  # nothing was left behind to drop silently
    assert (project / "m.py").read_text() == "x = foo(1)\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_run_still_runs_reject(
    project: Path, xcsh_home: Path, sig: signal.Signals
) -> None:
    sleep = {"name": "bash", "arguments": {"command": "sleep 30"}}
    script = steps(project, {"tool_calls": [RENAME, sleep]})
    argv = ["--provider", "scripted", "--model", str(script), "--mode", "json", "-p", "go"]
    env = {"PATH": "/usr/bin:/bin", "XCSH_HOME": str(xcsh_home), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [XCSH_BIN, *argv],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(json.loads(line))
        if seen[-1]["type"] == "tool_call_start" and seen[-1]["name"] == "bash":
            break
    assert list((project / ".xcsh" / "batch_rename").glob("*.json"))  # the plan is pending
    proc.send_signal(sig)
    rest, err = proc.communicate(timeout=30)
    events = seen + [json.loads(line) for line in rest.splitlines()]

    assert proc.returncode == 128 + int(sig), err  # 143, or 130 for Ctrl-C
    assert not (project / ".xcsh").exists()
    resolved = [e for e in events if e["type"] == "resolved"]
    assert [(e["action"], e["reason"], e["label"]) for e in resolved] == [
        ("discard", REASON, "Batch rename: 1 file")
    ]
    assert events[-1]["type"] == "run_end" and events[-1]["pending"] == 0
    saved = records(xcsh_home)
    assert saved[-1] == {"type": "pending", "stack": []}
    assert any(r["type"] == "resolved" and r["reason"] == REASON for r in saved)
