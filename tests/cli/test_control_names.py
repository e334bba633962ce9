"""A newline in a file name cannot forge an output line of ast-grep, scan or ast-edit."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh

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
