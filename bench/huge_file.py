"""The one-huge-file cases of the structural benchmark: a 4.6 MB Python file holding
100,000 matches, where printing each match (or each replacement) is the work, the
floor of its preview (``preview_floor.py``), and a 3.7 MB file whose preview holds
200,000 replacements."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agcli import match_keys, parse_stream, run_args
from rows import Row, measure_processes

HUGE_PATTERN = "compute($$$A)"
HUGE_REWRITE = "calc($$$A)"
HUGE_GOAL = 1.5
HUGE_JSON_GOAL = 1.3
"""The search with ``--json``: its lines are the work, and the CLI's are Rust's."""
MATCHES = 100_000
PAIRS_PATTERN = "f($A)"
PAIRS_REWRITE = "g($A)"
PAIRS_GOAL_SECONDS = 10.0
PAIRS_GOAL_KIB = 600 * 1000


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
        ("--json", run_args(HUGE_PATTERN, lang="python"), [*search, "--json"], HUGE_JSON_GOAL),
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
            HUGE_GOAL,
        ),
    ]
    rows = []
    for name, theirs_cmd, ours_cmd, goal in cases:
        keys = _json_keys if "--json" in name else _first_positions
        ours_times, cli_times, our_peak, cli_peak, ours, theirs = measure_processes(
            ours_cmd, theirs_cmd, folder, runs, keys
        )
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
    rows.append(_bench_floor(folder, runs))
    rows.append(_bench_pairs(work, runs))
    return rows


def _count(stdout: bytes) -> set[Any]:
    """How many matches an output reports: the floor's one number, or the CLI's lines."""
    text = stdout.strip()
    return {int(text)} if text.isdigit() else {len(text.splitlines())}


def _bench_floor(folder: Path, runs: int) -> Row:
    """``bench/preview_floor.py`` as a process against ``ast-grep run -r --json=stream``:
    the least a Python preview on ast-grep-py does (parse, find, read the ranges,
    splice, parse again, walk for errors), so the ``ast-edit --json`` row's ratio can be
    read against it."""
    floor = [sys.executable, str(Path(__file__).resolve().parent / "preview_floor.py"), "big.py"]
    theirs_cmd = run_args(HUGE_PATTERN, lang="python", rewrite=HUGE_REWRITE)
    ours_times, cli_times, our_peak, cli_peak, ours, theirs = measure_processes(
        floor, theirs_cmd, folder, runs, _count
    )
    return Row(
        "huge file, preview floor on ast-grep-py",
        HUGE_PATTERN,
        ours_times,
        cli_times,
        our_peak,
        cli_peak,
        ours == theirs == {MATCHES},
        None,
        "bench/preview_floor.py: parse, find, ranges, splice, parse again, walk; no output",
    )


def _json_keys(stdout: bytes) -> set[Any]:
    return match_keys(parse_stream(stdout))


def _bench_pairs(work: Path, runs: int) -> Row:
    """``xcsh ast-edit --json`` on a 3.7 MB file of 200,000 replacements (two per line)
    against ``ast-grep run -r --json=stream``; the goal is absolute (10 s, 600 MB), as
    the CLI's own ``-U`` takes minutes on it."""
    folder = work / "pairs"
    folder.mkdir(exist_ok=True)
    lines = "".join(f"    v{i} = f(a{i}) + f(b)  # two\n" for i in range(MATCHES))
    (folder / "pairs.py").write_text("def h():\n" + lines)
    size = (folder / "pairs.py").stat().st_size
    xcsh = [sys.executable, "-m", "xcsh", "ast-edit", "-p", PAIRS_PATTERN, "-r", PAIRS_REWRITE]
    ours_cmd = [*xcsh, "-l", "python", "--json"]
    theirs_cmd = run_args(PAIRS_PATTERN, lang="python", rewrite=PAIRS_REWRITE)
    ours_times, cli_times, our_peak, cli_peak, ours, theirs = measure_processes(
        ours_cmd, theirs_cmd, folder, runs, _json_keys
    )
    within = max(ours_times) <= PAIRS_GOAL_SECONDS and our_peak <= PAIRS_GOAL_KIB
    return Row(
        f"big file, {2 * MATCHES:,} replacements, ast-edit --json",
        PAIRS_PATTERN,
        ours_times,
        cli_times,
        our_peak,
        cli_peak,
        ours == theirs and len(ours) == 2 * MATCHES,
        None,
        f"{size / 1e6:.1f} MB; goal 10 s and 600 MB: "
        f"{'met' if within else 'NOT met'} (slowest {max(ours_times):.1f} s)",
    )
