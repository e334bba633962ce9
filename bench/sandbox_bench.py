"""Cost of the sandbox per bash call: ``true`` confined vs unconfined, same run.

Four variants run ``true`` N times each, interleaved so machine load hits them
alike (each after a warm-up call that starts its helper process):

- direct: ``bash -c true`` through asyncio's own subprocess (no supervisor),
  the cost of a bare call;
- supervised: the ``bash`` tool unconfined (supervisor, no sandbox);
- landlock: the tool under Landlock alone (the fallback without namespaces);
- namespaces: the tool in the namespace sandbox with Landlock inside (the
  default where user namespaces work).

Prints the median milliseconds per call and the differences.

    python bench/sandbox_bench.py          # 50 calls each
    python bench/sandbox_bench.py -n 200
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from xcsh.sandbox import SandboxSettings, kernel_support, prepare_sandbox
from xcsh.sandbox.namespace import NamespaceSupport
from xcsh.tools.coding import create_bash_tool


async def _direct() -> None:
    proc = await asyncio.create_subprocess_exec(
        "bash", "-c", "true", stdin=asyncio.subprocess.DEVNULL, start_new_session=True
    )
    await proc.wait()


async def main(n: int) -> None:
    support = kernel_support()
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp, "ws")
        ws.mkdir()
        home = Path(tmp, "home")
        plan = prepare_sandbox(SandboxSettings(), workspace=ws, home=home, support=support)
        landlock_only = replace(support, namespaces=NamespaceSupport(reason="benchmark"))
        fallback = prepare_sandbox(
            SandboxSettings(), workspace=ws, home=home, support=landlock_only
        )
        tools = {
            "supervised": create_bash_tool(ws, log_dir=home / "logs"),
            "landlock": create_bash_tool(ws, log_dir=home / "logs", sandbox=fallback),
            "namespaces": create_bash_tool(ws, log_dir=home / "logs", sandbox=plan),
        }
        times: dict[str, list[float]] = {name: [] for name in ("direct", *tools)}
        for tool in tools.values():
            await tool.execute("warm", {"command": "true"})
        for i in range(n):
            start = time.perf_counter()
            await _direct()
            times["direct"].append(time.perf_counter() - start)
            for name, tool in tools.items():
                start = time.perf_counter()
                await tool.execute(f"c{i}", {"command": "true"})
                times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(values) * 1000 for name, values in times.items()}
    spaces = "namespaces" if support.namespaces.available else support.namespaces.reason
    print(f"bash `true`, median of {n} calls each (Landlock ABI {support.abi}; {spaces}):")
    for name, ms in medians.items():
        print(f"  {name:<11} {ms:7.2f} ms")
    for a, b in (
        ("namespaces", "landlock"),
        ("namespaces", "supervised"),
        ("landlock", "supervised"),
        ("supervised", "direct"),
    ):
        print(f"  {a} - {b}: {medians[a] - medians[b]:+.2f} ms per call")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=50, help="calls per variant (default 50)")
    asyncio.run(main(parser.parse_args().n))
