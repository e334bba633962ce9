"""The one-huge-file cases of the structural benchmark: a 4.6 MB Python file holding
100,000 matches, where printing each match (or each replacement) is the work."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agcli import match_keys, parse_stream, run_args, run_with_rusage
from rows import Row

HUGE_PATTERN = "compute($$$A)"
HUGE_REWRITE = "calc($$$A)"
HUGE_GOAL = 1.5
MATCHES = 100_000


def _first_positions(stdout: bytes) -> set[tuple[bytes, int]]:
    """``(file, line)`` of each text match line (the CLI adds headers and context)."""
    return {
        (line.split(b":")[0], int(line.split(b":")[1]))
        for line in stdout.splitlines()
        if line.startswith(b"big.py:")
    }


def bench_huge(work: Path, runs: int) -> list[Row]:
    """The ``xcsh ast-grep`` process vs ``ast-grep run``, with ``--json`` and in text, and
    the ``xcsh ast-edit --json`` preview vs ``ast-grep run -r --json=stream``."""
    folder = work / "huge"
    folder.mkdir(exist_ok=True)
    lines = "".join(f"    v{i} = compute(a{i}, b, c)  # padding\n" for i in range(MATCHES))
    (folder / "big.py").write_text("def f():\n" + lines)
    size = (folder / "big.py").stat().st_size
    xcsh = [sys.executable, "-m", "xcsh"]
    search = [*xcsh, "ast-grep", "-p", HUGE_PATTERN, "-l", "python"]
    cases = [
        ("--json", run_args(HUGE_PATTERN, lang="python"), [*search, "--json"], HUGE_GOAL),
        (
            "text",
            [arg for arg in run_args(HUGE_PATTERN, lang="python") if arg != "--json=stream"],
            search,
            HUGE_GOAL,
        ),
        (
            "ast-edit --json",
            run_args(HUGE_PATTERN, lang="python", rewrite=HUGE_REWRITE),
            [*xcsh, "ast-edit", "-p", HUGE_PATTERN, "-r", HUGE_REWRITE, "-l", "python", "--json"],
            None,
        ),
    ]
    rows = []
    for name, theirs_cmd, ours_cmd, goal in cases:
        cli_times, cli_peak, ours_times, our_peak = [], 0, [], 0
        theirs: set[Any] = set()
        ours: set[Any] = set()
        for _ in range(runs):
            timed = run_with_rusage(theirs_cmd, cwd=folder)
            cli_times.append(timed.seconds)
            cli_peak = max(cli_peak, timed.max_rss_kib)
            e2e = run_with_rusage(ours_cmd, cwd=folder)
            ours_times.append(e2e.seconds)
            our_peak = max(our_peak, e2e.max_rss_kib)
            if "--json" in name:
                theirs = match_keys(parse_stream(timed.stdout))
                ours = match_keys(parse_stream(e2e.stdout))
            else:
                theirs, ours = _first_positions(timed.stdout), _first_positions(e2e.stdout)
        rows.append(
            Row(
                f"huge file, {MATCHES:,} matches, {name}",
                HUGE_PATTERN,
                ours_times,
                cli_times,
                our_peak,
                cli_peak,
                ours == theirs and len(ours) == MATCHES,
                goal,
                f"{size / 1e6:.1f} MB, {len(theirs)} matches, both as processes",
            )
        )
    return rows
