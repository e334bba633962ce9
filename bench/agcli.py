"""Running the ``ast-grep`` binary the benchmark and the conformance tests compare against."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def ast_grep_binary() -> str:
    """The ``ast-grep`` executable installed beside the running interpreter (PyPI ``ast-grep-cli``).

    Raises:
        FileNotFoundError: it is not installed.
    """
    beside = Path(sys.executable).with_name("ast-grep")
    if beside.exists():
        return str(beside)
    found = shutil.which("ast-grep")
    if found is None:
        raise FileNotFoundError("ast-grep is not installed; run 'make test' to create .venv")
    return found


@dataclass(frozen=True)
class Timed:
    """One child process: wall seconds, peak resident memory (KiB), stdout."""

    seconds: float
    max_rss_kib: int
    stdout: bytes
    returncode: int


def run_with_rusage(argv: list[str], *, cwd: Path | None = None) -> Timed:
    """Run ``argv``; measure its wall time and its own peak resident memory.

    The peak comes from GNU ``time`` (``%M``) when ``/usr/bin/time`` exists: a
    small intermediate process, because Linux carries a parent's high-water
    mark into a forked child's ``ru_maxrss``, so measuring a child of this
    (large) process through ``wait4`` would report this process's size.
    Without GNU time the peak is 0 (unknown). Output goes to a temporary
    file so a full pipe never blocks the child.
    """
    gnu_time = Path("/usr/bin/time")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "rss"
        full = [str(gnu_time), "-f", "%M", "-o", str(report), *argv] if gnu_time.exists() else argv
        with open(Path(tmp) / "out", "w+b") as sink:
            start = time.perf_counter()
            proc = subprocess.run(
                full, cwd=cwd, stdout=sink, stderr=subprocess.DEVNULL, check=False
            )
            seconds = time.perf_counter() - start
            sink.seek(0)
            out = sink.read()
        peak = 0
        if report.exists():
            lines = report.read_text().split()
            peak = int(lines[-1]) if lines and lines[-1].isdigit() else 0
    return Timed(seconds=seconds, max_rss_kib=peak, stdout=out, returncode=proc.returncode)


def run_args(
    pattern: str,
    *,
    lang: str,
    rewrite: str | None = None,
    selector: str | None = None,
    strictness: str | None = None,
    update_all: bool = False,
    paths: tuple[str, ...] = (".",),
) -> list[str]:
    """The argument vector of ``ast-grep run`` for one pattern."""
    argv = [ast_grep_binary(), "run", "-p", pattern, "-l", lang]
    if rewrite is not None:
        argv += ["-r", rewrite]
    if selector:
        argv += ["--selector", selector]
    if strictness:
        argv += ["--strictness", strictness]
    argv += ["-U"] if update_all else ["--json=stream"]
    argv += list(paths)
    return argv


def parse_stream(stdout: bytes) -> list[dict[str, Any]]:
    """The objects of ``--json=stream`` output, one per line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def match_keys(objects: list[dict[str, Any]]) -> set[tuple[str, int, int, str]]:
    """``(file, start byte, end byte, replacement or text)`` of each match, for comparison."""
    keys = set()
    for obj in objects:
        offsets = obj["range"]["byteOffset"]
        keys.add(
            (
                obj["file"].replace(os.sep, "/").removeprefix("./"),
                offsets["start"],
                offsets["end"],
                obj.get("replacement", obj["text"]),
            )
        )
    return keys
