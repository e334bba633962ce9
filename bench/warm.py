"""Benchmark: a warm session's structural calls against the ``ast-grep`` CLI.

Run with ``make bench`` (not part of ``make test``)::

    .venv/bin/python bench/warm.py [--runs 3]

On a copy of the standard library, one process keeps a warm index
(``bench/_warm_child.py``, as an agent session or MCP server does) and is
asked, for each search (and one preview): the first call, the second call
(nothing changed), and a call after one file changed. Each call is timed
against ``ast-grep run`` for the same search on the same files, run just
before it; the ratio printed is the median over runs of xcsh / CLI, and each
call's results are checked identical to the CLI's (a preview as
``bench/structural.py`` compares them). A new process (a cold index) is
started for each run.

It also prints the peak resident memory (GNU time's ``%M``, the largest of
the process and its workers) of a cold ``xcsh ast-grep`` search over the
copy and over a tree twice as big (two copies).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))

from agcli import ast_grep_binary, match_keys, parse_stream, run_args, run_with_rusage
from rows import Row
from stdlib_copy import copy_stdlib

from structural import _nested, _print

CHILD = str(Path(__file__).resolve().parent / "_warm_child.py")
SEARCHES = [
    ("rare fixed token", "subprocess.Popen($$$A)"),
    ("common call", "print($$$A)"),
    ("no fixed token", "$A == $A"),
]
PREVIEW = ("common call", "print($$$A)", "log.info($$$A)")
WARM_GOAL = 0.2
CHANGED = "json/__init__.py"
ADDED = "\n\ndef _bench_added(a, b):\n    subprocess.Popen(a)\n    print(a)\n    return a == a\n"
PHASES = ("first call", "second call", "after one file changed")
MEMORY_GOAL_MIB = 64
MEMORY_GROWTH_GOAL = 1.1


class WarmChild:
    """The long-lived process holding one warm index."""

    def __init__(self, root: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, CHILD, str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def call(self, **request: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        answer: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return answer

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _same(data: dict[str, Any], cli: list[dict[str, Any]], preview: bool) -> bool:
    theirs = match_keys(cli)
    ours = {tuple(k) for k in data["keys"]}
    if not preview:
        return ours == theirs
    skipped = {f for f, reason in data["skipped"] if reason == "parse errors"}
    in_skipped = {k for k in theirs if k[0] in skipped}
    nested = _nested(theirs - in_skipped)
    return ours == theirs - in_skipped - nested and len(nested) == data["nested_skipped"]


def bench_case(root: Path, runs: int, label: str, pattern: str, rewrite: str | None) -> list[Row]:
    argv = run_args(pattern, lang="python", rewrite=rewrite)
    request = {"op": "search" if rewrite is None else "preview", "pattern": pattern}
    if rewrite is not None:
        request["rewrite"] = rewrite
    times: dict[str, tuple[list[float], list[float]]] = {p: ([], []) for p in PHASES}
    same = dict.fromkeys(PHASES, True)
    cli_peak, our_peak = 0, 0
    changed = root / CHANGED
    original = changed.read_bytes()
    for _ in range(runs):
        child = WarmChild(root)
        try:
            for phase in PHASES:
                if phase == PHASES[2]:
                    changed.write_bytes(original + ADDED.encode())
                timed = run_with_rusage(argv, cwd=root)
                cli_peak = max(cli_peak, timed.max_rss_kib)
                data = child.call(**request)
                times[phase][0].append(data["seconds"])
                times[phase][1].append(timed.seconds)
                same[phase] &= _same(data, parse_stream(timed.stdout), rewrite is not None)
            our_peak = max(our_peak, child.call(op="peak")["peak_kib"])
        finally:
            child.close()
            changed.write_bytes(original)
    kind = "search" if rewrite is None else "preview"
    shown = pattern if rewrite is None else f"{pattern} -> {rewrite!r}"
    return [
        Row(
            f"warm {kind}, {label}: {phase}",
            shown,
            times[phase][0],
            times[phase][1],
            our_peak,
            cli_peak,
            same[phase],
            None if phase == PHASES[0] else WARM_GOAL,
            "one process keeps the index; peak MiB is that process's",
        )
        for phase in PHASES
    ]


def bench_cold_memory(work: Path, base: Path) -> tuple[str, bool]:
    """Peak RSS of a cold ``xcsh ast-grep`` over the library once and twice."""
    double = work / "double"
    shutil.copytree(base, double / "one")
    shutil.copytree(base, double / "two")
    xcsh = str(Path(sys.executable).with_name("xcsh"))
    lines, ok = [], True
    try:
        for pattern in [p for _, p in SEARCHES]:
            argv = [xcsh, "ast-grep", "-p", pattern, "-l", "python", "--json"]
            once = run_with_rusage(argv, cwd=base).max_rss_kib / 1024
            twice = run_with_rusage(argv, cwd=double).max_rss_kib / 1024
            met = twice <= MEMORY_GOAL_MIB and twice / once <= MEMORY_GROWTH_GOAL
            ok &= met
            lines.append(
                f"cold `xcsh ast-grep -p '{pattern}' --json` peak RSS: {once:.1f} MiB over the "
                f"library, {twice:.1f} MiB over two copies (x{twice / once:.2f}; goal "
                f"<= {MEMORY_GOAL_MIB} MiB and <= x{MEMORY_GROWTH_GOAL}: {'yes' if met else 'NO'})"
            )
    finally:
        shutil.rmtree(double)
    return "\n".join(lines), ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh warm processes per case")
    parser.add_argument("--only", choices=["warm", "memory"], action="append")
    args = parser.parse_args(argv)
    only = set(args.only or ["warm", "memory"])
    print(
        f"ast-grep: {subprocess.check_output([ast_grep_binary(), '--version'], text=True).strip()}"
    )
    with tempfile.TemporaryDirectory(prefix="xcsh-bench-warm-") as tmp:
        work = Path(tmp)
        tree = copy_stdlib(work / "stdlib")
        print(f"corpus:   {tree.files} files, {tree.bytes / 1e6:.1f} MB (standard library copy)")
        rows: list[Row] = []
        if "warm" in only:
            for label, pattern in SEARCHES:
                rows += bench_case(tree.root, args.runs, label, pattern, None)
            rows += bench_case(tree.root, args.runs, *PREVIEW)
            print()
            _print(rows)
        if "memory" in only:
            text, _ = bench_cold_memory(work, tree.root)
            print()
            print(text)
    ok = all(row.identical for row in rows)
    print()
    print("results identical to ast-grep: " + ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
