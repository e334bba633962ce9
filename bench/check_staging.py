"""What staging adds to a checked preview: a 300-file change over the standard-library copy.

Three variants run the check ``true`` N times each, interleaved so machine
load hits them alike:

- plain: ``true`` under the process supervisor in the workspace itself (the
  peer: what running any check costs, without staging);
- overlay: the 300 changed files packed into one tar archive in memory, the
  workspace mounted as an overlay by bwrap in a user and mount namespace,
  the archive unpacked there by ``tar``, ``true`` run there, everything
  removed;
- copy: the workspace copied (reflinked where the file system can), the 300
  files written over it, ``true`` run confined there, the copy removed.

Prints the median milliseconds per run, what staging adds to the plain run,
and the cost of the fingerprint that keys the cached baseline.

    python bench/check_staging.py          # 15 runs each
    python bench/check_staging.py -n 40
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))

from stdlib_copy import copy_stdlib

from xcsh.checks import Checker, CheckSettings, staged_tree
from xcsh.sandbox import ProcessSupervisor
from xcsh.sandbox.overlay import probe_overlay
from xcsh.sandbox.run import run_to_end

CHANGED = 300


async def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp, "stdlib")
        tree = copy_stdlib(ws)
        ws = Path(os.path.realpath(ws))
        home = Path(tmp, "home")
        (home / "tmp").mkdir(parents=True)
        support = probe_overlay(home / "tmp" / "probe")
        if not support.available:
            print(f"overlay unavailable here: {support.reason}")
        files = sorted(p for p in ws.rglob("*.py"))[:CHANGED]
        change = {p.relative_to(ws).as_posix(): p.read_bytes() + b"\n# staged\n" for p in files}
        supervisor = ProcessSupervisor()
        sink: list[bytes] = []

        async def plain() -> None:
            await run_to_end(
                supervisor,
                ["sh", "-c", "true"],
                cwd=ws,
                env=dict(os.environ),
                timeout=60,
                on_output=sink.append,
            )

        async def staged(overlay: bool) -> None:
            with (
                staged_tree(
                    ws,
                    change,
                    scratch_parent=home / "tmp",
                    overlay=support if overlay else None,
                    network=True,
                ) as stage,
            ):
                await run_to_end(
                    supervisor,
                    stage.argv("true"),
                    cwd=stage.root,
                    env=dict(os.environ),
                    timeout=60,
                    on_output=sink.append,
                    confine=stage.confine,
                    stdin=stage.stdin,
                )

        variants: dict[str, Callable[[], Awaitable[None]]] = {
            "plain": plain,
            "overlay": lambda: staged(True),
            "copy": lambda: staged(False),
        }
        if not support.available:
            del variants["overlay"]
        times: dict[str, list[float]] = {name: [] for name in variants}
        for run in variants.values():  # warm-up: the supervisor's host, page cache
            await run()
        for _ in range(n):
            for name, run in variants.items():
                start = time.perf_counter()
                await run()
                times[name].append((time.perf_counter() - start) * 1000)
        supervisor.close()
        checker = Checker(CheckSettings(command="true"), workspace=ws, home=home)
        fingerprints = []
        for _ in range(5):
            start = time.perf_counter()
            checker.fingerprint()
            fingerprints.append((time.perf_counter() - start) * 1000)
        checker.close()
        plain_ms = statistics.median(times["plain"])
        print(
            f"workspace: {tree.files} files, {tree.bytes / 1e6:.1f} MB; change: {CHANGED} files; "
            f"{n} runs each, median ms"
        )
        for name, values in times.items():
            median = statistics.median(values)
            added = (
                ""
                if name == "plain"
                else (
                    f"  staging adds {median - plain_ms:6.1f} ms ({median / plain_ms:.2f}x plain)"
                )
            )
            print(f"  {name:14} {median:7.1f} ms{added}")
        print(
            f"  baseline key (fingerprint of {tree.files} files): "
            f"{statistics.median(fingerprints):.1f} ms"
        )
        print(f"  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=15, help="runs per variant")
    asyncio.run(main(parser.parse_args().n))
