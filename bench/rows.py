"""The result rows of the structural benchmark, and running its measured child process."""

from __future__ import annotations

import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agcli import run_with_rusage

CHILD = str(Path(__file__).resolve().parent / "_child.py")


@dataclass
class Row:
    """One line of the result table.

    ``xcsh`` and ``cli`` hold the seconds of each run, measured back to back;
    the ratio is the median of the per-run ratios, so that load from other
    work on the machine, which drifts over minutes, affects both sides alike.
    """

    what: str
    pattern: str
    xcsh: list[float]
    cli: list[float]
    xcsh_kib: int
    cli_kib: int
    identical: bool
    goal: float | None
    note: str = ""

    @property
    def ratio(self) -> float:
        return statistics.median(x / c for x, c in zip(self.xcsh, self.cli, strict=True))


def child(*args: str) -> tuple[dict[str, Any], int]:
    """Run bench/_child.py; returns its JSON and the peak RSS of its largest process."""
    timed = run_with_rusage([sys.executable, CHILD, *args])
    if timed.returncode != 0:
        raise SystemExit(f"xcsh child failed: {args}")
    data: dict[str, Any] = json.loads(timed.stdout)
    peak = data["peak"]
    return data, max(peak["self_kib"], peak["workers_kib"])


def median(values: list[float]) -> float:
    return statistics.median(values)
