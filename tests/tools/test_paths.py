"""All file tools refuse paths outside the workspace unless the user allowed them."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.core import ToolError
from xcsh.tools.coding import create_coding_tools

from .conftest import Tools

FILE_CALLS = [
    ("read", {}),
    ("write", {"content": "x"}),
    ("edit", {"old_text": "secret", "new_text": "changed"}),
    ("grep", {"pattern": "secret"}),
    ("ls", {}),
    ("find", {"pattern": "*"}),
]


def test_order_and_names(ws: Path) -> None:
    tools = create_coding_tools(ws)
    assert [t.name for t in tools] == ["read", "write", "edit", "bash", "grep", "find", "ls"]
    assert [t.read_only for t in tools] == [True, False, False, False, True, True, True]
    for tool in tools:
        assert "ast_" in tool.description, tool.name  # says when ast_grep/ast_edit fits better
        tool.json_schema()


@pytest.mark.parametrize(("name", "extra"), FILE_CALLS)
async def test_dotdot_and_symlink_escapes_refused(
    tmp_path: Path, ws: Path, tools: Tools, name: str, extra: dict[str, str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (ws / "link").symlink_to(outside)
    target = "../outside" if name in ("grep", "ls", "find") else "../outside/secret.txt"
    with pytest.raises(ToolError) as info:
        await tools(name, path=target, **extra)
    message = str(info.value)
    assert f"Path '{target}' is outside the workspace {ws}" in message
    assert "ask the user to allow" in message
    via_link = "link" if name in ("grep", "ls", "find") else "link/secret.txt"
    with pytest.raises(ToolError, match="outside the workspace"):
        await tools(name, path=via_link, **extra)
    assert (outside / "secret.txt").read_text() == "secret\n"


async def test_allowed_outside_folder(tmp_path: Path, ws: Path) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    (extra / "notes.md").write_text("one\n")
    tools = Tools(ws, allow_outside=(extra,))
    assert "one" in (await tools("read", path=str(extra / "notes.md"))).text
    await tools("edit", path="../shared/notes.md", old_text="one", new_text="two")
    assert (extra / "notes.md").read_text() == "two\n"
    with pytest.raises(ToolError, match="or the allowed folders"):
        await tools("read", path=str(tmp_path))


async def test_grep_and_find_skip_symlinked_files_pointing_outside(
    tmp_path: Path, ws: Path, tools: Tools
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    (ws / "inside.txt").write_text("password\n")
    (ws / "leak.txt").symlink_to(secret)
    found = await tools("find", pattern="*.txt")
    assert found.text.splitlines() == ["inside.txt"]
    grep = Tools(ws)  # default backend
    result = await grep("grep", pattern="password")
    assert "leak.txt" not in result.text and "inside.txt:1: password" in result.text
