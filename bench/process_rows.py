"""Whole-process rows of the structural benchmark over the standard-library copy.

Each row runs the ``xcsh`` command and the ``ast-grep`` command it mirrors as
processes, alternating, interpreter start-up included, as a person runs them:

- ``xcsh ast-grep -p '$A == $A' --json`` against ``ast-grep run --json=stream`` (a
  pattern without a fixed token: every file holding ``==`` is parsed);
- ``xcsh ast-edit -p 'print($$$A)' -r 'log.info($$$A)' --json`` against
  ``ast-grep run -r ... --json=stream``, with a memory goal: the peak of the
  largest process at most twice the CLI's.

Both outputs must list the same matches; the files a preview leaves out on
purpose (parse errors, rewrites that would not parse) are taken from an
in-process preview of the same edit and their matches left out of the CLI's.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agcli import match_keys, parse_stream, run_args
from rows import Row, child, measure_processes

SEARCH = ("no fixed token", "$A == $A", 1.0)
PREVIEW = ("common call", "print($$$A)", "log.info($$$A)", 0.8)
PREVIEW_MEMORY_GOAL = 2.0
"""The preview process's peak memory, at most this many times the CLI's."""
LEFT_OUT = ("parse errors", "the rewrite would not parse")


def _keys(stdout: bytes) -> set[Any]:
    return match_keys(parse_stream(stdout))


def bench_processes(root: Path, runs: int) -> list[Row]:
    xcsh = [sys.executable, "-m", "xcsh"]
    label, pattern, goal = SEARCH
    ours, theirs_t, our_peak, cli_peak, got, want = measure_processes(
        [*xcsh, "ast-grep", "-p", pattern, "-l", "python", "--json"],
        run_args(pattern, lang="python"),
        root,
        runs,
        _keys,
    )
    rows = [
        Row(
            f"process: search, {label}",
            pattern,
            ours,
            theirs_t,
            our_peak,
            cli_peak,
            got == want,
            goal,
            f"{len(want)} matches; `xcsh ast-grep --json` vs `ast-grep run --json=stream`",
        )
    ]
    label, pattern, out, goal = PREVIEW
    data, _ = child("preview", str(root), pattern, out)
    left_out = {file for file, reason in data["skipped"] if reason in LEFT_OUT}
    ours, theirs_t, our_peak, cli_peak, got, want = measure_processes(
        [*xcsh, "ast-edit", "-p", pattern, "-r", out, "-l", "python", "--json"],
        run_args(pattern, lang="python", rewrite=out),
        root,
        runs,
        _keys,
    )
    expected = {key for key in want if key[0] not in left_out}
    memory = our_peak / cli_peak if cli_peak else 0.0
    rows.append(
        Row(
            f"process: preview --json, {label}",
            f"{pattern} -> {out!r}",
            ours,
            theirs_t,
            our_peak,
            cli_peak,
            got == expected,
            goal,
            f"{len(got)} replacements ({len(want) - len(expected)} in {len(left_out)} files "
            f"left out on purpose); peak memory {memory:.2f}x the CLI's (goal "
            f"{PREVIEW_MEMORY_GOAL:.0f}x): {'met' if memory <= PREVIEW_MEMORY_GOAL else 'NOT met'}",
        )
    )
    return rows
