"""Many matches on one line, through the installed ``xcsh``, against the ``ast-grep`` CLI.

xcsh places each match from its code-point offsets and the file's line starts
(never ``range()``, whose column walk made a line of many matches quadratic), so
the positions are checked where that is easy to get wrong: a line of hundreds of
matches holding non-ASCII and astral characters, CRLF line ends, and a match
spanning lines. The JSON objects, the text records' columns and the rewritten bytes
must be the CLI's. (The time is measured by bench/one_line.py, not here.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sgcli import ast_grep_binary

from helpers import run_xcsh

MATCHES = 400


def _source() -> str:
    calls = ", ".join(f'f("é{i}😀", {i})' if i % 3 else f"f({i})" for i in range(MATCHES))
    return f'# é😀\r\nx = [{calls}]\r\ny = f(\r\n    "über",\r\n)\r\nz = "ü" + f(1)\r\n'


def _objects(stdout: str) -> list[dict[str, Any]]:
    found = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return sorted(found, key=lambda o: o["range"]["byteOffset"]["start"])


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ast_grep_binary(), "run", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_many_matches_on_one_line_are_placed_as_the_cli_places_them(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.py").write_bytes(_source().encode())
    search = ["-p", "f($$$A)", "-l", "python"]
    theirs = _objects(_cli(tmp_path, *search, "--json=stream", "a.py").stdout)
    assert len(theirs) == MATCHES + 2
    ours = run_xcsh(["ast-grep", *search, "--json", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert _objects(ours.stdout) == theirs

    text = run_xcsh(["ast-grep", *search, "a.py"], cwd=tmp_path, home=xcsh_home).stdout
    rows = [line.split(":") for line in text.splitlines()]
    firsts = [row[1:3] for row in rows if row[1].isdigit()]  # not a match's further lines
    expected = [
        [str(o["range"]["start"]["line"] + 1), str(o["range"]["start"]["column"] + 1)]
        for o in theirs
    ]
    assert firsts == expected

    edit = ["-p", "f($$$A)", "-r", "g($$$A)", "-l", "python"]
    theirs = _objects(_cli(tmp_path, *edit, "--json=stream", "a.py").stdout)
    ours = run_xcsh(["ast-edit", *edit, "--json", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert _objects(ours.stdout) == theirs

    shutil.copytree(tmp_path, tmp_path.parent / "cli", dirs_exist_ok=True)
    _cli(tmp_path.parent / "cli", *edit, "-U", "a.py")
    applied = run_xcsh(["ast-edit", *edit, "--yes", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert applied.returncode == 0, applied.stderr
    assert f"Applied {MATCHES + 2} replacements in 1 file" in applied.stdout
    assert (tmp_path / "a.py").read_bytes() == (tmp_path.parent / "cli" / "a.py").read_bytes()
