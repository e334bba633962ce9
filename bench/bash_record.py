"""What recording bash commands costs, and what a command preview costs, as ratios in one run.

Over a copy of the standard library (devtools/stdlib_copy.py), through the
``bash`` tool itself (``create_bash_tool``), medians of interleaved runs:

- a command that changes nothing, one that changes 1 file, one that changes 300
  files: recorded (a journal) against the same command unrecorded;
- ``xcsh preview --yes``-style preview of ``ruff format .`` (run on the staged
  overlay, changes read, diffs made, applied through the journal) against
  ``ruff format .`` run directly, with the time of each phase;
- the first command on a tree of 50,000 files, as a session's first call (the
  first look names the files, then reads them in the background) and in a
  second session (the shadow's manifest: only the fingerprints are compared),
  with how long the whole first look took beside it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devtools"))

from stdlib_copy import copy_stdlib

from xcsh.core import AgentTool
from xcsh.journal import Journal, apply_changes, file_changes_action
from xcsh.journal.commands import CommandRecorder
from xcsh.pending import PendingActionStore
from xcsh.sandbox import ProcessSupervisor
from xcsh.tools.coding import create_bash_tool
from xcsh.tools.coding.bash_preview import preview_command

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
RUFF = str(Path(sys.executable).parent / "ruff")


async def _call(tool: AgentTool[Any, Any], command: str) -> float:
    started = time.perf_counter()
    await tool.execute("b", {"command": command})
    return time.perf_counter() - started


def first_look_done() -> None:
    """Wait until every session's first look (its thread) has read its workspace."""
    for thread in threading.enumerate():
        if thread.name == "xcsh-bash-record":
            thread.join()


async def per_command(root: Path, twin: Path, home: Path) -> None:
    """Recorded (in ``root``) against unrecorded (in ``twin``, a copy of it): nothing
    changed, 1 file, 300 files. Two trees, so that neither sees the other's changes
    (a recorded session takes in what others change between its commands)."""
    recorder_tool = create_bash_tool(root, recorder=CommandRecorder(Journal.for_root(home, root)))
    plain = create_bash_tool(twin)
    await _call(recorder_tool, "true")
    first_look_done()  # the first look reads the tree in the background: not measured here
    files = sorted(p.name for p in root.glob("*.py"))[:300]
    cases = {
        "nothing changed": "true",
        "1 file changed": f"echo '# x' >> {files[0]}",
        "300 files changed": "sed -i 's/$/ /' " + " ".join(files),
    }
    for name, command in cases.items():
        with_rec, without = [], []
        for _ in range(ROUNDS):
            with_rec.append(await _call(recorder_tool, command))
            without.append(await _call(plain, command))
        a, b = statistics.median(with_rec) * 1000, statistics.median(without) * 1000
        print(
            f"bash, {name:18} recorded {a:8.1f} ms  unrecorded {b:8.1f} ms  "
            f"+{a - b:6.1f} ms  ratio {a / b:5.2f}"
        )


async def preview_ruff(lib: Path, home: Path) -> None:
    """``ruff format .`` previewed and applied through the journal, against ruff alone."""
    rows: list[tuple[float, float, float, float, float]] = []
    for _ in range(max(3, ROUNDS // 2)):
        scratch = Path(tempfile.mkdtemp(dir=home))
        shutil.copytree(lib, scratch / "a")
        shutil.copytree(lib, scratch / "b")
        root = (scratch / "a").resolve()
        journal = Journal.for_root(home, root)
        supervisor = ProcessSupervisor()
        started = time.perf_counter()
        found = await preview_command(
            f"{RUFF} format .",
            root=root,
            home=home,
            supervisor=supervisor,
            env=dict(os.environ),
            timeout=600,
            on_output=lambda _c: None,
        )
        staged = time.perf_counter()
        action = file_changes_action(
            PendingActionStore(),
            root,
            found.changes,
            label="ruff format .",
            source_tool_name="bash",
            journal=journal,
        )
        diffed = time.perf_counter()
        assert len(action.preview.changes) == len(found.changes)
        apply_changes(
            root, list(found.changes), journal=journal, label="ruff", source_tool_name="bash"
        )
        done = time.perf_counter()
        supervisor.close()
        began = time.perf_counter()
        subprocess.run([RUFF, "format", "."], cwd=scratch / "b", capture_output=True, check=False)
        alone = time.perf_counter() - began
        rows.append((done - started, alone, staged - started, diffed - staged, done - diffed))
        shutil.rmtree(scratch)
    total, alone, run, diffs, apply = (statistics.median(col) for col in zip(*rows, strict=True))
    print(
        f"ruff format . over the stdlib copy: preview+apply {total:6.2f} s  alone {alone:6.2f} s  "
        f"ratio {total / alone:5.2f}  (run on the overlay and read {run:.2f} s, diffs "
        f"{diffs:.2f} s, apply through the journal {apply:.2f} s)"
    )


async def first_command(home: Path) -> None:
    """The first command on 50,000 files: first session, then a second one."""
    big = home / "big"
    body = b"x = 1\n" * 170  # about 1 KiB
    for d in range(500):
        folder = big / f"pkg{d:03d}"
        folder.mkdir(parents=True)
        for f in range(100):
            (folder / f"m{f:03d}.py").write_bytes(body + f"# {d} {f}\n".encode())
    for label in ("first session (no shadow yet)", "second session (shadow kept)"):
        began = time.perf_counter()
        tool = create_bash_tool(big, recorder=CommandRecorder(Journal.for_root(home, big)))
        took = await _call(tool, "echo hi > hello.txt")
        again = await _call(tool, "true")
        first_look_done()
        print(
            f"50,000 files, {label}: first command {took:6.2f} s, next one "
            f"{again * 1000:6.1f} ms; the whole first look {time.perf_counter() - began:5.1f} s "
            "(in the background)"
        )
        (big / "hello.txt").unlink()


async def main() -> None:
    """Every row, in one run."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ["XCSH_HOME"] = str(home)
        lib = Path(tmp) / "lib"
        copy_stdlib(lib)
        print(f"load average {os.getloadavg()[0]:.1f}, {ROUNDS} rounds, medians")
        twin = Path(tmp) / "twin"
        shutil.copytree(lib, twin)
        await per_command(lib.resolve(), twin.resolve(), home)
        await preview_ruff(lib, home)
        await first_command(home)


if __name__ == "__main__":
    asyncio.run(main())
