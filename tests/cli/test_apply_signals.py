"""SIGTERM and SIGHUP in the middle of `xcsh ast-edit --yes` / `xcsh scan --fix --yes`.

The command applies in a worker thread; the signal arrives while files are being
written. The process must end by that signal only after the apply committed:
every file rewritten, no kept old copies left, the journal entry committed.
The signal is sent by the process to itself at the k-th file write, so the
moment is exact; everything else is the real command with its real handlers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import SIGNAL_AT_WRITE
from xcsh.journal import Journal

SCRIPT = (
    SIGNAL_AT_WRITE
    + """
import sys
from xcsh.cli import main

_signal_at_write(int(sys.argv[1]), int(sys.argv[2]))
sys.argv = ["xcsh", *sys.argv[3:]]
code = main()
print("finished", code)
sys.exit(code)
"""
)

RULE = """id: print-to-log
language: python
severity: warning
rule:
  pattern: print($$$A)
fix: log($$$A)
"""

COMMANDS = {
    "ast-edit": ["ast-edit", "-l", "python", "-p", "print($$$A)", "-r", "log($$$A)", "--yes"],
    "scan-fix": ["scan", "--rule", "rule.yml", "--fix", "--yes", "pkg"],
}


def tree(root: Path, n: int) -> dict[str, bytes]:
    (root / "pkg").mkdir(parents=True)
    for i in range(n):
        (root / "pkg" / f"m{i:02}.py").write_text(f"print({i})\nprint('x{i}')\n")
    return files(root)


def files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "pkg").rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_mid_apply_ends_the_command_only_after_the_commit(
    tmp_path: Path, xcsh_home: Path, command: str, sig: int
) -> None:
    ws = tmp_path / "ws"
    old = tree(ws, 40)
    (ws / "rule.yml").write_text(RULE)
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(int(sig)), "15", *COMMANDS[command]],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert run.returncode == -sig, run.stderr  # ended by the signal...
    assert "finished" not in run.stdout
    expected = {k: v.replace(b"print(", b"log(") for k, v in old.items()}
    assert files(ws) == expected  # ...after every file was written, no .orig left
    journal = Journal.for_root(xcsh_home, ws)
    assert journal.incomplete() == []
    assert [s.state for s in journal.summaries()] == ["committed"]
