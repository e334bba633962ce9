"""write and edit: atomic, encoding and line endings kept, clear failures that change nothing."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from xcsh.core import ToolError

from .conftest import Tools


async def test_write_creates_folders(ws: Path, tools: Tools) -> None:
    result = await tools("write", path="src/pkg/mod.py", content="x = 1\ny = 2\n")
    assert (ws / "src/pkg/mod.py").read_text() == "x = 1\ny = 2\n"
    assert result.text == "Created src/pkg/mod.py (12 bytes, 2 lines)."
    again = await tools("write", path="src/pkg/mod.py", content="z = 3\n")
    assert again.text.startswith("Replaced src/pkg/mod.py")
    assert (ws / "src/pkg/mod.py").read_text() == "z = 3\n"
    assert [p.name for p in (ws / "src/pkg").iterdir()] == ["mod.py"]  # no temporary left


async def test_write_keeps_mode_crlf_and_bom(ws: Path, tools: Tools) -> None:
    path = ws / "run.cmd"
    path.write_bytes(b"\xef\xbb\xbf@echo off\r\nexit\r\n")
    path.chmod(0o750)
    result = await tools("write", path="run.cmd", content="@echo on\nexit /b 1\n")
    assert path.read_bytes() == b"\xef\xbb\xbf@echo on\r\nexit /b 1\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o750
    assert "CRLF" in result.text and "BOM" in result.text


async def test_write_refuses_binary_target_and_folder(ws: Path, tools: Tools) -> None:
    (ws / "logo.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ToolError, match=re.escape("logo.bin is a binary file")):
        await tools("write", path="logo.bin", content="text")
    assert (ws / "logo.bin").read_bytes() == b"\x00\x01\x02"
    (ws / "dir").mkdir()
    with pytest.raises(ToolError, match="dir is a folder"):
        await tools("write", path="dir", content="x")


async def test_write_under_a_file_is_a_clear_error(ws: Path, tools: Tools) -> None:
    # Works as root too: no permission bit can make a regular file a folder.
    (ws / "notes").write_text("keep me\n")
    with pytest.raises(ToolError) as info:
        await tools("write", path="notes/sub/today.md", content="x")
    assert str(info.value) == (
        "Cannot write notes/sub/today.md: notes is a file, not a folder. "
        "Choose another path, or move that file first. Nothing was written."
    )
    assert (ws / "notes").read_text() == "keep me\n"


async def test_write_into_read_only_folder(
    open_tmp_path: Path, unprivileged: Callable[[], AbstractContextManager[None]]
) -> None:
    root = open_tmp_path
    locked = root / "locked"
    locked.mkdir()
    (locked / "a.txt").write_text("old\n")
    locked.chmod(0o555)
    (locked / "a.txt").chmod(0o666)
    tools = Tools(root)
    with unprivileged(), pytest.raises(ToolError) as info:
        await tools("write", path="locked/a.txt", content="new\n")
    message = str(info.value)
    assert message.startswith("Cannot write locked/a.txt: Permission denied.")
    assert "The file was not changed. Check the folder's permissions." in message
    assert (locked / "a.txt").read_text() == "old\n"
    assert os.listdir(locked) == ["a.txt"]


async def test_edit_crlf_changes_only_the_edited_bytes(ws: Path, tools: Tools) -> None:
    path = ws / "f.txt"
    path.write_bytes(b"a\r\nb\r\nc\r\n")  # contract case F1
    await tools("edit", path="f.txt", old_text="c", new_text="C")
    assert path.read_bytes() == b"a\r\nb\r\nC\r\n"
    await tools("edit", path="f.txt", old_text="a\nb\n", new_text="a\nx\ny\n")
    assert path.read_bytes() == b"a\r\nx\r\ny\r\nC\r\n"


async def test_edit_mixed_endings_untouched_outside_match(ws: Path, tools: Tools) -> None:
    path = ws / "mixed.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\nthree\r\nfour\n")
    result = await tools("edit", path="mixed.txt", old_text="three\r\nfour", new_text="3\n4")
    assert path.read_bytes() == b"\xef\xbb\xbfone\r\ntwo\n3\r\n4\n"
    assert result.text == "Edited mixed.txt: replaced 1 occurrence at line 3."
    assert "-three" in result.details["diff"] and "+3" in result.details["diff"]


async def test_edit_not_unique_leaves_file_untouched(ws: Path, tools: Tools) -> None:
    path = ws / "dup.py"
    original = "x = 1\nprint(x)\nx = 1\n"
    path.write_text(original)
    before = path.stat().st_mtime_ns
    with pytest.raises(ToolError) as info:
        await tools("edit", path="dup.py", old_text="x = 1", new_text="x = 2")
    assert str(info.value) == (
        "old_text occurs 2 times in dup.py (at lines 1, 3). Include more surrounding lines so "
        "it matches exactly once, or set replace_all to true to change every occurrence. "
        "The file was not changed."
    )
    assert path.read_text() == original and path.stat().st_mtime_ns == before
    result = await tools(
        "edit", path="dup.py", old_text="x = 1", new_text="x = 2", replace_all=True
    )
    assert path.read_text() == "x = 2\nprint(x)\nx = 2\n"
    assert "replaced 2 occurrences" in result.text


async def test_edit_missing_text_shows_closest_lines(ws: Path, tools: Tools) -> None:
    path = ws / "m.py"
    path.write_text("def main():\n    return compute(1)\n")
    with pytest.raises(ToolError) as info:
        await tools("edit", path="m.py", old_text="return compute(2)", new_text="return 0")
    message = str(info.value)
    assert message.startswith("old_text was not found in m.py. The file was not changed.")
    assert "     2\t    return compute(1)" in message
    with pytest.raises(ToolError, match="leading/trailing spaces"):
        await tools("edit", path="m.py", old_text="def main():\n  return compute(1)", new_text="")
    assert path.read_text() == "def main():\n    return compute(1)\n"


async def test_edit_refusals(ws: Path, tools: Tools) -> None:
    (ws / "b.dat").write_bytes(b"ab\x00cd")
    with pytest.raises(ToolError, match=re.escape("Cannot edit b.dat: b.dat is a binary file")):
        await tools("edit", path="b.dat", old_text="ab", new_text="x")
    with pytest.raises(ToolError, match=re.escape("File not found: nope.txt. Use write")):
        await tools("edit", path="nope.txt", old_text="a", new_text="b")
    (ws / "t.txt").write_text("a\n")
    with pytest.raises(ToolError, match="old_text is empty"):
        await tools("edit", path="t.txt", old_text="", new_text="b")


async def test_edit_keeps_mode_and_writes_through_symlink(ws: Path, tools: Tools) -> None:
    real = ws / "real.sh"
    real.write_text("echo hi\n")
    real.chmod(0o755)
    (ws / "alias.sh").symlink_to(real)
    await tools("edit", path="alias.sh", old_text="hi", new_text="bye")
    assert (ws / "alias.sh").is_symlink()
    assert real.read_text() == "echo bye\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o755
