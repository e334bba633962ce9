"""Cost of the sandbox per bash call: ``true`` confined vs unconfined, same run.

Three variants of the ``bash`` tool run ``true`` N times each, interleaved so
machine load hits them alike (each after a warm-up call that starts its
helper process):

- direct: ``bash -c true`` through asyncio's own subprocess (no supervisor),
  the cost of a bare call;
- supervised: the tool unconfined (supervisor, no Landlock);
- confined: the tool under Landlock (``sandbox = "auto"`` on this kernel).

Prints the median milliseconds per call and the confined-minus-unconfined
overhead.

    python bench/sandbox_bench.py          # 50 calls each
    python bench/sandbox_bench.py -n 200
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from xcsh.sandbox import SandboxSettings, kernel_support, prepare_sandbox
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
        tools = {
            "supervised": create_bash_tool(ws, log_dir=home / "logs"),
            "confined": create_bash_tool(ws, log_dir=home / "logs", sandbox=plan),
        }
        times: dict[str, list[float]] = {"direct": [], "supervised": [], "confined": []}
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
    confined = f"Landlock ABI {support.abi}" if plan.confinement else "NOT confined here"
    print(f"bash `true`, median of {n} calls each ({confined}):")
    for name, ms in medians.items():
        print(f"  {name:<11} {ms:7.2f} ms")
    overhead = medians["confined"] - medians["supervised"]
    print(f"  sandbox overhead (confined - supervised): {overhead:+.2f} ms per call")
    supervisor = medians["supervised"] - medians["direct"]
    print(f"  supervisor overhead (supervised - direct): {supervisor:+.2f} ms per call")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=50, help="calls per variant (default 50)")
    asyncio.run(main(parser.parse_args().n))
