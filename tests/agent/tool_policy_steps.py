"""Running ``xcsh -p`` with the scripted provider making given tool calls, with given
settings; the JSON events and tool results for the approval-rule tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import xcsh_env


def run_steps(
    tmp_path: Path, home: Path, calls: list[dict[str, Any]], settings: str, **env: str
) -> tuple[int, list[dict[str, Any]], str]:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    (home / "settings.toml").write_text(settings)
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"tool_calls": calls}, {"text": "done"}]))
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
    import subprocess

    from helpers import XCSH

    done = subprocess.run(
        [*XCSH, *argv],
        cwd=project,
        env=xcsh_env(home, **env),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return done.returncode, events, done.stderr


def results(events: list[dict[str, Any]]) -> list[tuple[bool, str]]:
    """The tool results in call order: (is_error, text)."""
    return [(e["message"]["is_error"], e["text"]) for e in events if e["type"] == "tool_result"]
