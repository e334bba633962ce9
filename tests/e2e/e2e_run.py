"""Running the installed ``xcsh`` for the e2e layer, and reading what it left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stdlib_copy import copy_stdlib, stdlib_dir

from xcsh.agent import load_session
from xcsh.core import AssistantMessage, TextContent, ToolResultMessage

XCSH_BIN = str(Path(sys.executable).with_name("xcsh"))
"""The installed command, exactly what a user runs."""
REPEAT = int(os.environ.get("XCSH_E2E_REPEAT", "5"))
ROUNDS = int(os.environ.get("XCSH_E2E_ROUNDS", "1"))
CALLS = int(os.environ.get("XCSH_E2E_CALLS", "1"))
"""Searches per MCP client (``make stress-e2e``: 20 clients of 20 calls)."""
REPRODUCTION = "isinstance($A, $B)"


@dataclass(frozen=True)
class Tree:
    """The copied standard library and the package the scenarios scan.

    Attributes:
        root: the working folder (the whole copy).
        scope: the package scanned, relative to ``root`` (pool-sized).
        files: ``.py`` files under ``scope``.
    """

    root: Path
    scope: str
    files: int

    def restore(self) -> None:
        """Copy ``scope`` back from the standard library (undoes an applied edit)."""
        copy_stdlib(self.root / self.scope, source=stdlib_dir() / self.scope)

    def scope_text(self) -> str:
        """Every ``.py`` file of ``scope`` concatenated, for counting rewrites."""
        return "".join(
            p.read_text(encoding="utf-8", errors="replace")
            for p in sorted((self.root / self.scope).rglob("*.py"))
        )


def rounds() -> list[int]:
    """Parameters for a test that ``make stress-e2e`` repeats as a whole."""
    return list(range(ROUNDS))


def env(home: Path) -> dict[str, str]:
    """A small fixed environment: ``PATH``, ``HOME``, ``XCSH_HOME``, no colour."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", str(home)),
        "XCSH_HOME": str(home),
        "NO_COLOR": "1",
    }


def write_steps(folder: Path, name: str, turns: list[dict[str, Any]]) -> Path:
    """A steps file for ``--provider scripted``."""
    path = folder / f"{name}.json"
    path.write_text(json.dumps(turns))
    return path


def print_mode(
    steps: Path, cwd: Path, home: Path, *extra: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``xcsh --provider scripted --model STEPS -p go`` run to its end."""
    return subprocess.run(
        [XCSH_BIN, "--provider", "scripted", "--model", str(steps), *extra, "-p", "go"],
        cwd=cwd,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def newest_session(home: Path) -> Path:
    """The session file written last under ``home``."""
    return max((home / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)


def tool_results(session: Path) -> list[tuple[str, bool, str]]:
    """``(tool name, is_error, text)`` for each tool call of the session, in call order.

    Raises:
        AssertionError: a tool call has no result, or results are out of order.
    """
    messages = load_session(session).messages
    calls = [c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls]
    results = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == [c.id for c in calls], "a tool call is unanswered"
    out = []
    for call, result in zip(calls, results, strict=True):
        text = "".join(b.text for b in result.content if isinstance(b, TextContent))
        out.append((call.name, result.is_error, text))
    return out


def children(pid: int) -> list[int]:
    """Process ids of ``pid``'s children (Linux ``/proc``)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has already exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(predicate: Callable[[], object], seconds: float) -> bool:
    """Poll ``predicate`` every 20 ms until it is true or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False
