"""The result rows of the structural benchmark, and running its measured child process."""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
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


def measure_processes(
    ours_cmd: list[str],
    theirs_cmd: list[str],
    folder: Path,
    runs: int,
    keys: Callable[[bytes], set[Any]],
) -> tuple[list[float], list[float], int, int, set[Any], set[Any]]:
    """Run the CLI's command then ours ``runs`` times, alternating, in ``folder``:
    ``(our times, CLI times, our peak KiB, CLI peak KiB, our keys, CLI keys)``, the keys
    (``keys`` of the output) of the last run."""
    cli_times: list[float] = []
    ours_times: list[float] = []
    cli_peak = our_peak = 0
    theirs: set[Any] = set()
    ours: set[Any] = set()
    for _ in range(runs):
        timed = run_with_rusage(theirs_cmd, cwd=folder)
        cli_times.append(timed.seconds)
        cli_peak = max(cli_peak, timed.max_rss_kib)
        e2e = run_with_rusage(ours_cmd, cwd=folder)
        ours_times.append(e2e.seconds)
        our_peak = max(our_peak, e2e.max_rss_kib)
        theirs, ours = keys(timed.stdout), keys(e2e.stdout)
    return ours_times, cli_times, our_peak, cli_peak, ours, theirs
