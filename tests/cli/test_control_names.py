"""A control character in a file name (a newline, an OSC or CSI sequence) cannot forge an
output line nor act on the terminal: ast-grep, scan, ast-edit, undo and its list, and
the messages of recovery all show it in visible notation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import SIGNAL_AT_WRITE, run_xcsh, xcsh_env

NAME = "nl\nx.py:9:1:forged.py"


def test_text_output_shows_control_characters_in_names(tmp_path: Path, xcsh_home: Path) -> None:
    (tmp_path / NAME).write_text("print(1)\n")
    shown = "nl^Jx.py:9:1:forged.py"
    found = run_xcsh(["ast-grep", "-p", "print($A)"], cwd=tmp_path, home=xcsh_home)
    assert found.stdout == f"{shown}:1:1:print(1)\n", found.stdout
    as_json = run_xcsh(["ast-grep", "-p", "print($A)", "--json"], cwd=tmp_path, home=xcsh_home)
    assert json.loads(as_json.stdout)["file"] == NAME  # JSON stays exact

    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "r.yml").write_text(
        "id: no-print\nlanguage: python\nrule: {pattern: print($A)}\nmessage: no print\n"
    )
    scanned = run_xcsh(["scan"], cwd=tmp_path, home=xcsh_home)
    framed = f"help[no-print]: no print\n  ┌─ {shown}:1:1\n  │\n1 │ print(1)\n  │ ^^^^^^^^\n\n"
    assert scanned.stdout == framed, scanned.stdout

    edited = run_xcsh(
        ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "-l", "python"],
        cwd=tmp_path,
        home=xcsh_home,
    )
    assert edited.returncode == 0, edited.stderr
    assert f"Applied 1 replacement in 1 file: {shown}.\n" in edited.stdout
    assert not any(line.startswith("x.py") for line in edited.stdout.splitlines())


OSC = "t\x1b]0;PWNED\x07\x1b[2J.py"
"""A name that sets the terminal's title and clears the screen when printed raw."""
OSC_SHOWN = "t^[]0;PWNED^G^[[2J.py"
NL_SHOWN = "nl^Jx.py:9:1:forged.py"


def _raw_control(text: str) -> bool:
    """Whether ``text`` holds a control character a terminal would obey (line ends aside)."""
    return any(ord(c) < 0x20 and c != "\n" for c in text)


def _two_hostile_files(root: Path) -> None:
    (root / OSC).write_text("print(1)\n")
    (root / NAME).write_text("print(2)\n")


EDIT = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "-l", "python"]


def test_undo_and_its_list_show_control_characters_in_names(
    tmp_path: Path, xcsh_home: Path
) -> None:
    _two_hostile_files(tmp_path)
    assert run_xcsh(EDIT, cwd=tmp_path, home=xcsh_home).returncode == 0

    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    [line] = listed.stdout.splitlines()  # one entry, one line: no name splits it
    assert OSC_SHOWN in line and NL_SHOWN in line
    assert not _raw_control(listed.stdout + listed.stderr)

    undone = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    [line] = undone.stdout.splitlines()
    assert line.startswith("Undid 'AST Edit: 2 replacements in 2 files': restored ")
    assert OSC_SHOWN in line and NL_SHOWN in line
    assert not _raw_control(undone.stdout + undone.stderr)
    assert (tmp_path / OSC).read_text() == "print(1)\n"

    again = run_xcsh(["undo", "1"], cwd=tmp_path, home=xcsh_home)  # refused: undone already
    assert again.returncode == 1
    assert not _raw_control(again.stdout + again.stderr)


KILL_AT_WRITE = (
    SIGNAL_AT_WRITE
    + """
import signal, sys
from xcsh.cli import main

_signal_at_write(int(signal.SIGKILL), 2)
sys.argv = ["xcsh", *sys.argv[1:]]
sys.exit(main())
"""
)


def test_recovery_messages_show_control_characters_in_names(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """An apply killed at its second write is rolled back by the next command; what it
    says names the files visibly, on one line, whichever command settled it."""
    for settle in (["recover"], ["undo", "--list"], ["ast-edit", "-p", "x", "-r", "y", "."]):
        _two_hostile_files(tmp_path)
        killed = subprocess.run(
            [sys.executable, "-c", KILL_AT_WRITE, *EDIT],
            cwd=tmp_path,
            env=xcsh_env(xcsh_home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert killed.returncode == -9, killed.stderr
        done = run_xcsh(settle, cwd=tmp_path, home=xcsh_home)
        said = done.stdout + done.stderr
        [line] = [line for line in said.splitlines() if "Recovered an interrupted apply" in line]
        assert "rolled back (" in line and (OSC_SHOWN in line or NL_SHOWN in line), said
        assert not _raw_control(said)
        assert (tmp_path / OSC).read_text() == "print(1)\n"
        assert (tmp_path / NAME).read_text() == "print(2)\n"
