"""What recording bash commands costs, and what a command preview costs, as ratios in one run.

Over a copy of the standard library (devtools/stdlib_copy.py), through the
``bash`` tool itself (``create_bash_tool``), medians of interleaved runs:

- a command that changes nothing, one that changes 1 file, one that changes 300
  files: recorded (a journal) against the same command unrecorded;
- ``xcsh preview --yes``-style preview of ``ruff format .`` (run on the staged
  overlay, changes read) against ``ruff format .`` run directly;
- the first command on a tree of 50,000 files (the first look: every file read
  into the shadow), and the first command of a second session there (the
  shadow's manifest: only the walk).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from devtools.stdlib_copy import copy_stdlib

from xcsh.core import ToolCallContext
from xcsh.journal import Journal
from xcsh.pending import PendingActionStore
from xcsh.sandbox import ProcessSupervisor
from xcsh.tools.coding import create_bash_tool
from xcsh.tools.coding._bash_previewing import Previewer

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
RUFF = str(Path(sys.executable).parent / "ruff")


async def _call(tool: object, command: str) -> float:
    started = time.perf_counter()
    await tool.execute("b", {"command": command})  # type: ignore[attr-defined]
    return time.perf_counter() - started


async def per_command(root: Path, home: Path) -> None:
    recorded = create_bash_tool(root, journal=Journal.for_root(home, root))
    plain = create_bash_tool(root)
    await _call(recorded, "true")  # the first look, not measured here
    files = sorted(p.name for p in root.glob("*.py"))[:300]
    cases = {
        "nothing changed": "true",
        "1 file changed": f"echo '# x' >> {files[0]}",
        "300 files changed": "sed -i 's/$/ /' " + " ".join(files),
    }
    for name, command in cases.items():
        with_rec, without = [], []
        for _ in range(ROUNDS):
            with_rec.append(await _call(recorded, command))
            without.append(await _call(plain, command))
        a, b = statistics.median(with_rec) * 1000, statistics.median(without) * 1000
        print(
            f"bash, {name:18} recorded {a:8.1f} ms  unrecorded {b:8.1f} ms  "
            f"+{a - b:6.1f} ms  ratio {a / b:5.2f}"
        )


async def preview_ruff(lib: Path, home: Path) -> None:
    times_preview, times_plain = [], []
    for _ in range(max(3, ROUNDS // 2)):
        scratch = Path(tempfile.mkdtemp(dir=home))
        shutil.copytree(lib, scratch / "a")
        shutil.copytree(lib, scratch / "b")
        supervisor = ProcessSupervisor()
        previewer = Previewer(
            root=(scratch / "a").resolve(),
            home=home,
            store=PendingActionStore(),
            journal=Journal.for_root(home, scratch / "a"),
            checker=None,
            supervisor=supervisor,
        )
        started = time.perf_counter()
        _found, action = await previewer.run(
            f"{RUFF} format .",
            env=dict(os.environ),
            timeout=600,
            on_output=lambda _c: None,
            check=False,
        )
        assert action is not None
        await action.effect.apply("bench")
        times_preview.append(time.perf_counter() - started)
        supervisor.close()
        started = time.perf_counter()
        subprocess.run([RUFF, "format", "."], cwd=scratch / "b", capture_output=True, check=False)
        times_plain.append(time.perf_counter() - started)
        shutil.rmtree(scratch)
    a, b = statistics.median(times_preview), statistics.median(times_plain)
    print(
        f"ruff format . over the stdlib copy: preview+apply {a:6.2f} s  alone {b:6.2f} s  "
        f"ratio {a / b:5.2f}"
    )


async def first_command(home: Path) -> None:
    big = home / "big"
    body = b"x = 1\n" * 170  # about 1 KiB
    for d in range(500):
        folder = big / f"pkg{d:03d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"m{f:03d}.py").write_bytes(body + f"# {d} {f}\n".encode())
    for label in ("first session (no shadow yet)", "second session (shadow kept)"):
        tool = create_bash_tool(big, journal=Journal.for_root(home, big))
        took = await _call(tool, "echo hi > hello.txt")
        again = await _call(tool, "true")
        print(
            f"50,000 files, {label}: first command {took:6.2f} s, next one {again * 1000:6.1f} ms"
        )


async def main() -> None:
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["XCSH_HOME"] = str(home)
        lib = Path(tmp) / "lib"
        copy_stdlib(lib)
        print(f"load average {os.getloadavg()[0]:.1f}, {ROUNDS} rounds, medians")
        await per_command(lib, home)
        await preview_ruff(Path(tmp) / "lib", home)
        await first_command(home)


if __name__ == "__main__":
    _ = ToolCallContext
    asyncio.run(main())
