"""Stress: kill a 300-file ``xcsh ast-edit --yes`` at random moments, then check the tree.

Run with ``make stress-journal`` (not part of ``make test``; a few minutes)::

    .venv/bin/python bench/stress_journal.py [--runs 30] [--files 300] [--seed 1]

For each of SIGKILL, SIGTERM and SIGHUP, ``--runs`` times: a fresh copy of a
300-file Python tree and a fresh ``XCSH_HOME``; ``xcsh ast-edit -p
'print($$$A)' -r 'log($$$A)' --yes .`` is started and sent the signal after a
random delay: a third of the runs anywhere in the command's usual duration,
the others at a random moment of the apply itself (after its intent record
appeared, within the apply's usual duration). Then ``xcsh undo --list``, a
command that opens the workspace and so recovers it, runs, and the script
counts:

- **mixed trees**: files neither all old nor all new;
- **lost entries**: the tree holds the new content but the journal lists no
  applied change for it (``xcsh undo`` could not revert it);
- **temporary files**: names the apply made (``.*.tmp``, ``.*.orig``) still there;
- **unfinished**: journal entries still incomplete after recovery.

All four must be 0. It also reports how many kills landed while the apply
was writing (an incomplete entry was found before recovery) and how the runs
ended (old tree, new tree).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

XCSH = [sys.executable, "-m", "xcsh"]


def make_tree(root: Path, files: int) -> dict[str, bytes]:
    """A tree of ``files`` small Python modules spread over 10 folders."""
    out = {}
    for i in range(files):
        rel = f"pkg{i % 10}/mod{i:03}.py"
        data = (f"def f{i}(x):\n    print(x)\n    print('{i}', x)\n    return x\n" * 5).encode()
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        out[rel] = data
    return out


def tree_state(root: Path, old: dict[str, bytes]) -> tuple[str, list[str]]:
    """``("old" | "new" | "mixed", leftover names)``."""
    new = {k: v.replace(b"print(", b"log(") for k, v in old.items()}
    seen: dict[str, bytes] = {}
    leftovers = []
    for path in root.rglob("*"):
        if path.is_file():
            rel = path.relative_to(root).as_posix()
            if rel in old:
                seen[rel] = path.read_bytes()
            else:
                leftovers.append(rel)
    if seen == old:
        return "old", leftovers
    if seen == new:
        return "new", leftovers
    return "mixed", leftovers


@dataclass
class Tally:
    """The counts for one signal."""

    runs: int = 0
    mixed: int = 0
    lost: int = 0
    temps: int = 0
    unfinished: int = 0
    in_window: int = 0
    ended: dict[str, int] = field(default_factory=dict)
    exit_codes: dict[int, int] = field(default_factory=dict)


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "XCSH_HOME": str(home), "NO_COLOR": "1"}


def incomplete(home: Path) -> int:
    """Intent records without an outcome record, in every journal under ``home``."""
    count = 0
    for entries in (home / "journal").glob("*/entries"):
        names = set(os.listdir(entries))
        count += sum(
            1 for n in names if n.endswith(".json") and n.replace(".json", ".state") not in names
        )
    return count


def wait_for_intent(home: Path, proc: subprocess.Popen[bytes], limit: float) -> bool:
    """Poll until the apply wrote its intent record (or the process ended); True if seen."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if any((home / "journal").glob("*/entries/*.json")):
            return True
        time.sleep(0.002)
    return False


def one_run(
    base: Path,
    work: Path,
    sig: signal.Signals,
    delay: float,
    tally: Tally,
    *,
    after_intent: bool = False,
) -> None:
    root = work / "tree"
    home = work / "home"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base, root)
    home.mkdir(parents=True)
    old = {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.py") if p.is_file()
    }
    proc = subprocess.Popen(
        [*XCSH, "ast-edit", "-p", "print($$$A)", "-r", "log($$$A)", "--yes", "."],
        cwd=root,
        env=env_for(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if after_intent:
        wait_for_intent(home, proc, 120.0)
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(sig)
    code = proc.wait()
    tally.exit_codes[code] = tally.exit_codes.get(code, 0) + 1
    if incomplete(home):
        tally.in_window += 1
    listed = subprocess.run(
        [*XCSH, "undo", "--list"], cwd=root, env=env_for(home), capture_output=True, text=True
    )
    state, leftovers = tree_state(root, old)
    tally.runs += 1
    tally.ended[state] = tally.ended.get(state, 0) + 1
    if state == "mixed":
        tally.mixed += 1
    if state == "new" and " applied " not in listed.stdout:
        tally.lost += 1
    if any(name.rsplit("/", 1)[-1].startswith(".") for name in leftovers):
        tally.temps += 1
    tally.unfinished += incomplete(home)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=30, help="runs per signal (default 30)")
    parser.add_argument("--files", type=int, default=300, help="files in the tree (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--signals",
        default="KILL,TERM,HUP",
        help="signals to send, comma-separated (default KILL,TERM,HUP)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="xcsh-stress-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        make_tree(base, args.files)
        work = Path(tmp) / "work"
        # calibrate: how long does an undisturbed run take?
        start = time.monotonic()
        shutil.copytree(base, work / "tree")
        (work / "home").mkdir()
        subprocess.run(
            [*XCSH, "ast-edit", "-p", "print($$$A)", "-r", "log($$$A)", "--yes", "."],
            cwd=work / "tree",
            env=env_for(work / "home"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        duration = time.monotonic() - start
        print(f"an undisturbed run takes {duration:.2f} s ({args.files} files)")
        # and how long its apply takes, from the intent record to the end of the process
        shutil.rmtree(work)
        shutil.copytree(base, work / "tree")
        (work / "home").mkdir()
        proc = subprocess.Popen(
            [*XCSH, "ast-edit", "-p", "print($$$A)", "-r", "log($$$A)", "--yes", "."],
            cwd=work / "tree",
            env=env_for(work / "home"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_intent(work / "home", proc, 120.0)
        seen = time.monotonic()
        proc.wait()
        window = max(time.monotonic() - seen, 0.05)
        print(f"its apply (intent record to exit) takes {window:.2f} s")
        results = {}
        for sig in [signal.Signals["SIG" + name.strip()] for name in args.signals.split(",")]:
            tally = Tally()
            for i in range(args.runs):
                if i % 3 == 0:  # anywhere in the command's life
                    one_run(base, work, sig, rng.uniform(0.0, 1.05 * duration), tally)
                else:  # inside the apply: after the intent record, before the end
                    delay = rng.uniform(0.0, window)
                    one_run(base, work, sig, delay, tally, after_intent=True)
            results[sig.name] = tally
            print(
                f"{sig.name:<8} runs {tally.runs:>3}  mixed {tally.mixed}  lost entries "
                f"{tally.lost}  temp files {tally.temps}  unfinished {tally.unfinished}  "
                f"killed while writing {tally.in_window}  ended {json.dumps(tally.ended)}  "
                f"exit codes {json.dumps(tally.exit_codes)}",
                flush=True,
            )
        bad = sum(t.mixed + t.lost + t.temps + t.unfinished for t in results.values())
        print("all zero" if bad == 0 else f"FAILURES: {bad}")
        return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
