"""Ctrl-C, SIGTERM and SIGHUP in the middle of `xcsh ast-edit --yes`, `xcsh scan --fix
--yes` and `xcsh undo`.

The command applies in a worker thread; the signal arrives while files are being
written, or once they are. An apply is never cut short and the command's exit code
is its own (0), never the signal's: every file rewritten, no kept old copies left,
the journal entry committed, and stderr says the signal came too late. The signal
is sent by the process to itself at an exact moment (the k-th file write, the
journal's records); everything else is the real command with its real handlers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import CTRL_C_SCRIPT, SIGNAL_AT_WRITE
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
def test_sigterm_or_sighup_mid_apply_finishes_it_with_the_apply_s_exit_code(
    tmp_path: Path, xcsh_home: Path, command: str, sig: int
) -> None:
    """SIGTERM (`kill`, `timeout`) or SIGHUP (the terminal closed) as the 15th file is
    written: the apply finishes, the exit code is 0 (not 143 or 129, which say
    nothing was done), and stderr names the signal that came too late."""
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
    assert run.returncode == 0, run.stderr
    assert "Applied 80 replacements in 40 files" in run.stdout
    name = signal.Signals(sig).name
    assert (
        f"{name} came while the edit was being applied: an apply is never cut short, so "
        "every file above was written. Undo it with: xcsh undo"
    ) in run.stderr
    expected = {k: v.replace(b"print(", b"log(") for k, v in old.items()}
    assert files(ws) == expected  # every file written, no .orig left
    journal = Journal.for_root(xcsh_home, ws)
    assert journal.incomplete() == []
    assert [s.state for s in journal.summaries()] == ["committed"]


CTRL_C_MOMENTS = ["write-1", "write-20", "write-40", "commit", "outcome", "returned"]
LATE_SIGNALS = [
    *CTRL_C_MOMENTS,
    *(f"SIGTERM:{m}" for m in ["intent", "write-1", "write-40", "commit", "outcome"]),
    *(f"SIGHUP:{m}" for m in ["write-20", "outcome"]),
]
"""Ctrl-C at each moment, SIGTERM at most (and just after the intent record), SIGHUP at two."""


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("moment", LATE_SIGNALS)
def test_ctrl_c_once_the_apply_started_never_reports_nothing_written(
    tmp_path: Path, xcsh_home: Path, command: str, moment: str
) -> None:
    """Ctrl-C (SIGTERM, SIGHUP) at any moment from the first write to the exit finishes
    the apply.

    The files are all written, the exit code is the apply's (0, never 130, 143 or
    129) and stderr says the signal came late.
    """
    ws = tmp_path / "ws"
    old = tree(ws, 40)
    (ws / "rule.yml").write_text(RULE)
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT, moment, *COMMANDS[command]],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert run.returncode == 0, run.stderr
    assert files(ws) == {k: v.replace(b"print(", b"log(") for k, v in old.items()}
    assert "Applied 80 replacements in 40 files" in run.stdout
    assert "Undo it with: xcsh undo" in run.stdout
    assert "Traceback" not in run.stderr
    name, _, when = moment.rpartition(":")
    if when != "returned":  # by then the process has ended, the signal never comes
        assert (
            f"{name or 'Ctrl-C'} came while the edit was being applied: an apply is never cut "
            "short, so every file above was written. Undo it with: xcsh undo"
        ) in run.stderr
    journal = Journal.for_root(xcsh_home, ws)
    assert journal.incomplete() == []
    assert [s.state for s in journal.summaries()] == ["committed"]


MIXED_RULES = (
    RULE
    + """---
id: no-fix
language: python
severity: error
rule:
  pattern: log($$$A)
"""
)
SCAN_MIXED = ["scan", "--rule", "rules.yml", "--fix", "--yes", "pkg"]


@pytest.mark.parametrize(
    "moment", ["write-20", "report", "SIGTERM:write-20", "SIGTERM:report", "SIGHUP:report"]
)
def test_ctrl_c_in_a_scan_fix_that_also_reports_says_the_fixes_were_applied(
    tmp_path: Path, xcsh_home: Path, moment: str
) -> None:
    """Ctrl-C (SIGTERM, SIGHUP) in `xcsh scan --fix` with rules without a fix says what
    was applied.

    A signal during the apply ends the command with the apply's code (the report is
    not started); during the report it exits 130 (143, 129) and says that the fixes
    were applied before it.
    """
    ws = tmp_path / "ws"
    old = tree(ws, 40)
    (ws / "rules.yml").write_text(MIXED_RULES)
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT, moment, *SCAN_MIXED],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert files(ws) == {k: v.replace(b"print(", b"log(") for k, v in old.items()}
    assert "Traceback" not in run.stderr
    assert "error[no-fix]" not in run.stdout
    name, _, when = moment.rpartition(":")
    sig = getattr(signal, name or "SIGINT")
    if when == "report":
        assert run.returncode == 128 + sig, run.stderr
        assert run.stderr.endswith(
            "interrupted while reporting the rules without a fix: the fixes above were "
            "applied before it; xcsh undo reverts them.\n"
        )
    else:
        assert run.returncode == 0, run.stderr
        assert f"{name or 'Ctrl-C'} came while the edit was being applied" in run.stderr


@pytest.mark.parametrize(
    "moment",
    [
        "write-1",
        "write-40",
        "commit",
        "returned",
        "SIGTERM:intent",
        "SIGTERM:write-20",
        "SIGTERM:commit",
        "SIGHUP:write-1",
    ],
)
def test_ctrl_c_during_xcsh_undo_never_reports_nothing_restored(
    tmp_path: Path, xcsh_home: Path, moment: str
) -> None:
    """Ctrl-C (SIGTERM, SIGHUP) from the first write of `xcsh undo` to its exit
    finishes the undo.

    An undo writes every file or none as an apply does: exit 0 (never 130, 143 or
    129), and stderr says the signal came late.
    """
    ws = tmp_path / "ws"
    old = tree(ws, 40)
    env = {**os.environ, "XCSH_HOME": str(xcsh_home)}
    applied = subprocess.run(
        [sys.executable, "-m", "xcsh", *COMMANDS["ast-edit"]],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert applied.returncode == 0, applied.stderr
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT, moment, "undo"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert files(ws) == old
    assert run.stdout.startswith("Undid 'AST Edit: 80 replacements in 40 files': restored ")
    assert "Traceback" not in run.stderr
    name, _, when = moment.rpartition(":")
    if when != "returned":
        assert run.stderr == (
            f"xcsh undo: {name or 'Ctrl-C'} came while the files were being put back: an "
            "undo is never cut short, so it was finished (the files are as the line above "
            "says).\n"
        )
    journal = Journal.for_root(xcsh_home, ws)
    assert journal.incomplete() == []
    assert [s.state for s in journal.summaries()] == ["committed", "committed"]
