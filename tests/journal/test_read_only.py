"""A file the user may not write is left out of previews and refused at apply, whoever writes."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh


def _read_only(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o444)
    return path


def test_ast_edit_leaves_a_read_only_file_unchanged_and_names_it(
    tmp_path: Path, xcsh_home: Path
) -> None:
    ro = _read_only(tmp_path / "ro.py", "print(4)\n")
    (tmp_path / "rw.py").write_text("print(5)\n")
    run = run_xcsh(
        ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "ro.py", "rw.py"],
        cwd=tmp_path,
        home=xcsh_home,
        no_override=True,
    )
    assert run.returncode == 0, run.stderr
    assert ro.read_text() == "print(4)\n"
    assert ro.stat().st_mode & 0o777 == 0o444
    assert (tmp_path / "rw.py").read_text() == "log(5)\n"
    assert "ro.py (read-only)" in run.stdout + run.stderr


def test_write_and_edit_tools_refuse_a_read_only_file(tmp_path: Path, xcsh_home: Path) -> None:
    ro = _read_only(tmp_path / "notes.md", "one\n")
    steps = [
        {"tool_calls": [{"name": "write", "arguments": {"path": "notes.md", "content": "hi\n"}}]},
        {
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {"path": "notes.md", "old_text": "one", "new_text": "two"},
                }
            ]
        },
        {"text": "Done."},
    ]
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    run = run_xcsh(
        ["--provider", "scripted", "--model", str(tmp_path / "steps.json"), "-p", "go"],
        cwd=tmp_path,
        home=xcsh_home,
        no_override=True,
    )
    assert ro.read_text() == "one\n"
    assert ro.stat().st_mode & 0o777 == 0o444
    out = run.stdout + run.stderr
    refusal = "You may not write notes.md (read-only for you). Nothing was written"
    assert out.count(refusal) == 2, out
