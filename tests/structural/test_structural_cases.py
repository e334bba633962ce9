"""CASES.md S1–S6 and F1–F2, each against real files and the real ast-grep CLI."""

from __future__ import annotations

from pathlib import Path

from sgcli import cli_rewrite

from xcsh.structural import EditOp, preview_edit


def _edit(ws: Path, name: str, pat: str, out: str, **kw: object) -> bytes:
    preview = preview_edit([EditOp(pat=pat, out=out)], root=ws, path=name, **kw)  # type: ignore[arg-type]
    assert preview.files, "expected a replacement"
    return preview.files[0].new_bytes


def test_s1_multiline_rewrite_reindented_like_cli(ws: Path, tmp_path: Path) -> None:
    src = b"def inner():\n    b = lambda: 123\n"
    (ws / "a.py").write_bytes(src)
    new = _edit(ws, "a.py", "$B = lambda: $R", "def $B():\n    return $R")
    assert new == b"def inner():\n    def b():\n        return 123\n"
    cli = tmp_path / "cli"
    cli.mkdir()
    (cli / "a.py").write_bytes(src)
    cli_rewrite(cli, "-p", "$B = lambda: $R", "-r", "def $B():\n    return $R", "a.py")
    assert (cli / "a.py").read_bytes() == new
