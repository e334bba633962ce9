"""Start-up cost of the ``xcsh`` command, as CPU time of the child process (medians).

Runs, in one session, ``python -c pass`` (the floor), ``xcsh --help``,
``xcsh ast-grep -p P`` on a one-file folder and the ``ast-grep`` CLI on the
same folder, interleaved, and prints each median and its ratio to the floor.
Usage: ``python bench/startup.py [RUNS]`` (default 21).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PATTERN = "isinstance($A, $B)"


def cpu_seconds(command: list[str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    bin_dir = Path(sys.executable).parent
    xcsh = [sys.executable, "-m", "xcsh"]
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        (cwd / "a.py").write_text("def f(x):\n    return isinstance(x, int)\n")
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "xcsh --help": [*xcsh, "--help"],
            "xcsh ast-grep (1 file)": [*xcsh, "ast-grep", "-p", PATTERN, "."],
            "ast-grep CLI (1 file)": [str(bin_dir / "ast-grep"), "run", "-p", PATTERN, "."],
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, command in cases.items():
                times[name].append(cpu_seconds(command, cwd))
    floor = statistics.median(times["python -c pass"])
    print(f"CPU time, median of {runs} runs (interleaved), cores: {os.cpu_count()}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<24} {median * 1000:7.1f} ms   {median / floor:5.1f}x python -c pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
