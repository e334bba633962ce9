"""Many matches on one line: 10,000 to 80,000 calls in one Python expression.

Usage::

    .venv/bin/python bench/one_line.py [--runs 3] [--cli-timeout 60]

For each size the file is one line, ``x = [f(0), f(1), ...]``, and the edit is
``f($A)`` -> ``g($A)``. Two cases, each against the ``ast-grep`` CLI in the same
run, alternating, as processes (interpreter start-up included):

- preview: ``xcsh ast-edit --dry-run`` (the diff) against ``ast-grep run -p -r``
  (its diff);
- apply: ``xcsh ast-edit --yes`` (preview, journal, write) against
  ``ast-grep run -p -r -U``. The CLI's own apply grows quadratically with the
  matches of a line (minutes at 10,000); a run past ``--cli-timeout`` seconds is
  stopped and reported, and larger sizes are not tried on it.

The table shows the median seconds, the ratio (median of per-run ratios), and
how much xcsh's time grew from the size before (2.0 is linear for a doubling).
Each rewritten file is checked: byte for byte the CLI's where the CLI finished,
else the expected rewrite.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agcli import ast_grep_binary

SIZES = (10_000, 20_000, 40_000, 80_000)
PATTERN, REWRITE = "f($A)", "g($A)"


@dataclass
class Case:
    """One row: ``xcsh`` and ``cli`` hold the seconds of each run (``cli`` empty when the
    CLI did not finish within the timeout), ``same`` whether the results agree."""

    what: str
    matches: int
    xcsh: list[float]
    cli: list[float]
    same: bool
    note: str = ""


def one_line(matches: int) -> str:
    return "x = [" + ", ".join(f"f({i})" for i in range(matches)) + "]\n"


def timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float | None) -> float | None:
    """Seconds ``argv`` took in ``cwd``; None when it ran past ``timeout`` (it is killed)."""
    start = time.perf_counter()
    try:
        subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - start


def measure(work: Path, matches: int, runs: int, cli_timeout: float, cli_apply: bool) -> list[Case]:
    """The preview and apply rows of one size."""
    folder = work / str(matches)
    folder.mkdir()
    source = one_line(matches)
    expected = source.replace("f(", "g(")
    env = {**os.environ, "XCSH_HOME": str(work / "home"), "NO_COLOR": "1"}
    xcsh = [sys.executable, "-m", "xcsh", "ast-edit", "-p", PATTERN, "-r", REWRITE, "-l", "python"]
    cli = [ast_grep_binary(), "run", "-p", PATTERN, "-r", REWRITE, "-l", "python"]
    preview = Case("preview (--dry-run / run -r)", matches, [], [], True)
    apply = Case("apply (--yes / run -r -U)", matches, [], [], True)
    target = folder / "one.py"
    for _ in range(runs):
        target.write_text(source)
        preview.cli.append(timed([*cli, "one.py"], folder, env, None) or 0.0)
        preview.xcsh.append(timed([*xcsh, "--dry-run", "one.py"], folder, env, None) or 0.0)
        if cli_apply:
            took = timed([*cli, "-U", "one.py"], folder, env, cli_timeout)
            if took is None:
                cli_apply = False
                apply.cli.clear()
                apply.note = f"CLI stopped after {cli_timeout:.0f} s"
            else:
                apply.cli.append(took)
                theirs = target.read_text()
                apply.same = apply.same and theirs == expected
            target.write_text(source)
        apply.xcsh.append(timed([*xcsh, "--yes", "one.py"], folder, env, None) or 0.0)
        apply.same = apply.same and target.read_text() == expected
    shutil.rmtree(work / "home", ignore_errors=True)  # each run's journal holds a copy
    return [preview, apply]


def report(cases: list[Case]) -> None:
    head = (
        f"{'case':30} {'matches':>8} {'xcsh s':>8} {'CLI s':>10} {'ratio':>7} {'growth':>7}  same"
    )
    print(head)
    print("-" * len(head))
    before: dict[str, float] = {}
    for case in cases:
        ours = statistics.median(case.xcsh)
        growth = f"{ours / before[case.what]:.2f}x" if case.what in before else "-"
        before[case.what] = ours
        if case.cli:
            theirs = f"{statistics.median(case.cli):.2f}"
            ratio = statistics.median(x / c for x, c in zip(case.xcsh, case.cli, strict=True))
            shown = f"{ratio:.2f}"
        else:
            theirs, shown = "-", "-"
        print(
            f"{case.what:30} {case.matches:>8,} {ours:>8.2f} {theirs:>10} {shown:>7} "
            f"{growth:>7}  {'yes' if case.same else 'NO'}"
            + (f"  ({case.note})" if case.note else "")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per size and case")
    parser.add_argument(
        "--cli-timeout", type=float, default=60, help="seconds the CLI's -U may take per run"
    )
    args = parser.parse_args(argv)
    print(f"many matches on one line: {PATTERN} -> {REWRITE}, {args.runs} runs each")
    print(f"python {sys.version.split()[0]}; cores: {os.cpu_count()}")
    cases: list[Case] = []
    cli_apply = True
    with tempfile.TemporaryDirectory(prefix="xcsh-one-line-") as tmp:
        for matches in SIZES:
            rows = measure(Path(tmp), matches, args.runs, args.cli_timeout, cli_apply)
            cli_apply = cli_apply and bool(rows[1].cli)
            if not cli_apply and not rows[1].cli and not rows[1].note:
                rows[1].note = "CLI not run: it did not finish on a smaller size"
            cases += rows
    print()
    report(sorted(cases, key=lambda c: (c.what, c.matches), reverse=False))
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0 if all(case.same for case in cases) else 1


if __name__ == "__main__":
    sys.exit(main())
