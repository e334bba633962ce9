"""The preview's unified diff: GNU patch applied to the old file gives exactly the new bytes."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit

CASES = {
    "single": (b"x = 1\nprint(x)\ny = 2\n", "print($A)", "log($A)"),
    "no final newline": (b"a = 1\nprint(a)", "print($A)", "log($A)"),
    "crlf": (b"a = 1\r\nprint(a)\r\nb = 2\r\n", "print($A)", "log(\n    $A)"),
    "grows and shrinks": (
        b"".join(b"v%d = f(%d)\n" % (i, i) for i in range(30)),
        "f($A)",
        "g(\n    $A,\n)",
    ),
    "same line twice": (b"f(1); f(2)\nz = 0\n", "f($A)", "h($A)"),
    "multi-line match": (
        b"def k():\n    if a:\n        run(1,\n            2)\n    done()\n",
        "if $C: $$$B",
        "while $C:\n    $$$B\n    break",
    ),
}


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_diff_applies_with_patch_to_the_new_bytes(ws: Path, tmp_path: Path, name: str) -> None:
    src, pat, out = CASES[name]
    (ws / "m.py").write_bytes(src)
    preview = preview_edit(EditSpec(ops=(EditOp(pat=pat, out=out),)), ScopeSpec(root=ws))
    (edit,) = preview.files
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "m.py").write_bytes(src)
    proc = subprocess.run(
        ["patch", "-p1", "--no-backup-if-mismatch"],
        cwd=copy,
        input=edit.diff().encode("utf-8"),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (copy / "m.py").read_bytes() == edit.new_bytes


def test_simple_change_reads_like_difflib(ws: Path) -> None:
    src = b"".join(b"line%d = %d\n" % (i, i) for i in range(20)) + b"print(1)\n"
    (ws / "m.py").write_bytes(src)
    (edit,) = preview_edit(
        EditSpec(ops=(EditOp(pat="print($A)", out="log($A)"),)), ScopeSpec(root=ws)
    ).files
    expected = "".join(
        difflib.unified_diff(
            src.decode().splitlines(keepends=True),
            edit.new_bytes.decode().splitlines(keepends=True),
            "a/m.py",
            "b/m.py",
        )
    )
    assert edit.diff() == expected
