"""Time the search tools on a real tree: grep (ripgrep and Python backends) and find.

Usage: ``.venv/bin/python bench/coding_tools.py [FOLDER]`` (default: this
project's ``.venv`` site-packages, a few thousand files). Prints seconds per
call, best of three. Nothing is written.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

from xcsh.tools.coding import create_find_tool, create_grep_tool


async def best_of(tool: Any, params: dict[str, Any], runs: int = 3) -> tuple[float, str]:
    best = float("inf")
    summary = ""
    for _ in range(runs):
        start = time.perf_counter()
        result = await tool.execute("bench", params)
        best = min(best, time.perf_counter() - start)
        summary = result.text.splitlines()[-1]
    return best, summary


async def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else sysconfig.get_paths()["purelib"])
    print(f"tree: {folder}")
    cases: list[tuple[str, Any, dict[str, Any]]] = []
    if shutil.which("rg"):
        rg = create_grep_tool(folder, backend="ripgrep")
        cases.append(
            ("grep ripgrep 'def __init__'", rg, {"pattern": r"def __init__", "limit": 5000})
        )
        cases.append(
            ("grep ripgrep glob *.pyi", rg, {"pattern": "class", "glob": "*.pyi", "limit": 5000})
        )
    py = create_grep_tool(folder, backend="python")
    cases.append(("grep python  'def __init__'", py, {"pattern": r"def __init__", "limit": 5000}))
    cases.append(
        ("grep python  glob *.pyi", py, {"pattern": "class", "glob": "*.pyi", "limit": 5000})
    )
    cases.append(("find **/*.py", create_find_tool(folder), {"pattern": "*.py", "limit": 100000}))
    for name, tool, params in cases:
        seconds, summary = await best_of(tool, params)
        print(f"{name:<32} {seconds:7.3f} s   {summary[:70]}")


if __name__ == "__main__":
    asyncio.run(main())
