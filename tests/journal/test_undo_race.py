"""Two ``xcsh undo`` at once in one folder: the one that loses the race for the newest
change says so in one line (no traceback, no misleading "preview" wording), changes
nothing, and the journal holds one undo of that change. The loser is held at an exact
moment (after choosing the entry, or after checking its files) while the winner runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import run_steps, run_xcsh, tool_call, xcsh_env

PAUSED_UNDO = """
import os
import sys
import time

import xcsh.cli
import xcsh.journal.undo

undo_module = sys.modules["xcsh.journal.undo"]  # the package's `undo` is the function

name, flag, go = sys.argv[1:4]
real = getattr(undo_module, name)


def paused(*args, **kwargs):
    out = real(*args, **kwargs)
    open(flag, "w").close()
    while not os.path.exists(go):
        time.sleep(0.02)
    return out


setattr(undo_module, name, paused)
sys.argv = ["xcsh", *sys.argv[4:]]
sys.exit(xcsh.cli.main())
"""
"""``python -c`` child: ``xcsh ARGS`` that pauses once ``xcsh.journal.undo.NAME`` returned,
creates FLAG, and goes on when GO exists."""


@pytest.mark.parametrize("moment", ["undoable", "_classify"])
def test_the_undo_that_loses_the_race_says_so_and_changes_nothing(
    tmp_path: Path, xcsh_home: Path, moment: str
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("a = 1\n")
    (project / "b.py").write_text("b = 1\n")
    calls = [
        tool_call("write", path="a.py", content="a = 2\n"),
        tool_call("write", path="b.py", content="b = 2\n"),
    ]
    code, _events, err = run_steps(tmp_path, xcsh_home, calls, "", one_per_turn=True)
    assert code == 0, err
    flag, go = tmp_path / "chose.flag", tmp_path / "go.flag"
    loser = subprocess.Popen(
        [sys.executable, "-c", PAUSED_UNDO, moment, str(flag), str(go), "undo"],
        cwd=project,
        env=xcsh_env(xcsh_home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not flag.exists() and loser.poll() is None:
            time.sleep(0.02)
        winner = run_xcsh(["undo"], cwd=project, home=xcsh_home)
        go.write_text("")
        out, err = loser.communicate(timeout=60)
    finally:
        if loser.poll() is None:
            loser.kill()
    assert winner.returncode == 0, winner.stderr
    assert winner.stdout == "Undid 'Write: b.py': restored b.py.\n"
    assert loser.returncode == 1 and out == ""
    assert err == (
        "xcsh undo: Another undo took back 'Write: b.py' (entry 2) at the same time; this one "
        "changed nothing. Run xcsh undo again to undo the change before it.\n"
    )
    assert (project / "a.py").read_text() == "a = 2\n"  # the change before it: still there
    assert (project / "b.py").read_text() == "b = 1\n"
    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home).stdout.splitlines()
    assert [line.split()[2] for line in listed] == ["applied", "undone"]
    (folder,) = (xcsh_home / "journal").iterdir()
    assert len(list((folder / "entries").glob("*.json"))) == 3  # two writes, one undo
    again = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert again.returncode == 0 and (project / "a.py").read_text() == "a = 1\n"
