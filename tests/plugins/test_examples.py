"""The shipped examples, loaded by the real loader and resolved by the real resolve tool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from plugin_helpers import EXAMPLES

from xcsh import AgentTool, AgentToolResult, PendingActionStore, ToolError
from xcsh import load_custom_tools as load
from xcsh.tools import create_ast_edit_tool, create_resolve_tool


def example_tool(name: str, project: Path, user_tools: Path, store: PendingActionStore) -> Any:
    user_tools.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / name, user_tools / name)
    result = load(project, store=store, entry_points=False)
    assert result.errors == []
    [tool] = result.tools
    return tool


async def resolve(store: PendingActionStore, action: str, reason: str = "r") -> AgentToolResult:
    return await create_resolve_tool(store).execute("r", {"action": action, "reason": reason})


def files(root: Path) -> dict[str, str]:
    """Every file under ``root`` except xcsh's own state, with its text."""
    return {
        str(p.relative_to(root)): p.read_text()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".xcsh" not in p.parts
    }


@pytest.fixture
def renamer(project: Path, user_tools: Path) -> tuple[AgentTool[Any], PendingActionStore]:
    store = PendingActionStore()
    for name in ("a.txt", "b.txt", "keep.txt"):
        (project / name).write_text(f"content of {name}\n")
    return example_tool("batch_rename_preview.py", project, user_tools, store), store


def plan_files(project: Path) -> list[Path]:
    return sorted((project / ".xcsh" / "batch_rename").glob("*.json"))


RENAMES = {"renames": [{"from": "a.txt", "to": "docs/a.md"}, {"from": "b.txt", "to": "b2.txt"}]}


async def test_batch_rename_happens_only_on_apply(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path
) -> None:
    tool, store = renamer
    before = files(project)
    preview = await tool.execute("call_1", RENAMES)
    assert preview.text == (
        "Rename plan (2 files):\n  a.txt -> docs/a.md\n  b.txt -> b2.txt\n"
        "Nothing has been renamed yet. Call resolve to apply or discard."
    )
    assert files(project) == before
    [plan] = plan_files(project)
    assert len(json.loads(plan.read_text())["moves"]) == 2
    top = store.peek()
    assert top is not None
    assert (top.label, top.source_tool_name) == ("Batch rename: 2 files", "batch_rename_preview")

    out = await resolve(store, "apply", "tidy up")
    assert out.is_error is False
    assert out.text.startswith("Renamed 2 files. Reason: tidy up")
    assert files(project) == {
        "b2.txt": "content of b.txt\n",
        "docs/a.md": "content of a.txt\n",
        "keep.txt": "content of keep.txt\n",
    }
    assert plan_files(project) == []


async def test_batch_rename_discard_leaves_files_and_cleans_up(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path
) -> None:
    tool, store = renamer
    before = files(project)
    await tool.execute("call_1", RENAMES)
    out = await resolve(store, "discard", "wrong names")
    assert out.text == (
        "Discarded batch rename of 2 files; nothing was renamed. Reason: wrong names"
    )
    assert files(project) == before
    assert plan_files(project) == []
    assert not (project / "docs").exists()
    assert not (project / ".xcsh").exists()  # no empty plan folder left in the repository


@pytest.mark.parametrize(
    ("renames", "problem"),
    [
        ([{"from": "a.txt", "to": "keep.txt"}], "a.txt -> keep.txt: keep.txt already exists"),
        ([{"from": "a.txt", "to": "../out.txt"}], "a.txt -> ../out.txt: outside the workspace"),
        ([{"from": "nope.txt", "to": "x.txt"}], "nope.txt -> x.txt: nope.txt does not exist"),
        (
            [{"from": "a.txt", "to": "x.txt"}, {"from": "b.txt", "to": "x.txt"}],
            "two files would be renamed to x.txt",
        ),
        ([{"from": "a.txt", "to": "b.txt"}, {"from": "b.txt", "to": "a.txt"}], "already exists"),
    ],
)
async def test_batch_rename_refuses_bad_plans_before_previewing(
    renamer: tuple[AgentTool[Any], PendingActionStore],
    project: Path,
    renames: list[dict[str, str]],
    problem: str,
) -> None:
    tool, store = renamer
    with pytest.raises(ToolError, match="Nothing was previewed") as info:
        await tool.execute("c", {"renames": renames})
    assert problem in str(info.value)
    assert store.count == 0 and plan_files(project) == []


async def test_batch_rename_refuses_a_symlinked_escape(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path, tmp_path: Path
) -> None:
    tool, _ = renamer
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "exit").symlink_to(outside)
    with pytest.raises(ToolError, match="outside the workspace"):
        await tool.execute("c", {"renames": [{"from": "a.txt", "to": "exit/a.txt"}]})
    assert list(outside.iterdir()) == []


async def test_batch_rename_apply_refuses_when_files_changed_and_stays_pending(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path
) -> None:
    tool, store = renamer
    await tool.execute("c", RENAMES)
    (project / "b2.txt").write_text("someone else's file\n")
    out = await resolve(store, "apply")
    assert out.is_error
    assert "Apply failed: The files changed since the preview; nothing was renamed" in out.text
    assert "b.txt -> b2.txt" in out.text
    assert (project / "a.txt").exists() and (project / "b.txt").exists()
    assert (project / "b2.txt").read_text() == "someone else's file\n"
    assert store.count == 1  # still pending: retry or discard
    await resolve(store, "discard")
    assert plan_files(project) == []


async def test_batch_rename_is_all_or_nothing_when_a_rename_fails(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path
) -> None:
    tool, store = renamer
    # keep.txt is a file, so "keep.txt/b.txt" cannot be created: the second rename fails.
    renames = [{"from": "a.txt", "to": "a2.txt"}, {"from": "b.txt", "to": "keep.txt/b.txt"}]
    before = files(project)
    await tool.execute("c", {"renames": renames})
    out = await resolve(store, "apply")
    assert out.is_error and "the renames already done were undone" in out.text
    assert files(project) == before
    assert store.count == 1


async def test_batch_rename_locks_files_of_a_pending_plan(
    renamer: tuple[AgentTool[Any], PendingActionStore], project: Path
) -> None:
    tool, store = renamer
    await tool.execute("c1", {"renames": [{"from": "a.txt", "to": "a2.txt"}]})
    with pytest.raises(ToolError, match="part of another pending rename"):
        await tool.execute("c2", {"renames": [{"from": "a.txt", "to": "a3.txt"}]})
    await tool.execute("c3", {"renames": [{"from": "b.txt", "to": "b3.txt"}]})
    assert store.count == 2
    assert (await resolve(store, "apply")).text.startswith("Renamed 1 file.")  # LIFO: b first
    assert (project / "b3.txt").exists() and (project / "a.txt").exists()


async def test_two_previews_in_one_call_resolve_last_first(project: Path, user_tools: Path) -> None:
    store = PendingActionStore()
    tool = example_tool("two_previews.py", project, user_tools, store)
    (project / "VERSION").write_text("1.0.0\n")
    (project / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0\n\n- First.\n")
    out = await tool.execute("c", {"version": "1.1.0", "note": "Faster."})
    assert "Staged 2 previews for 1.1.0 (was 1.0.0)" in out.text
    assert [a.label for a in store.snapshot()] == [
        "Release: CHANGELOG entry for 1.1.0",
        "Release: VERSION -> 1.1.0",
    ]
    assert all(a.source_tool_name == "custom_tool" for a in store.snapshot())
    # Each action shows its own diff, not the call's combined text.
    changelog_diff, version_diff = (a.details["diff"] for a in store.snapshot())
    assert "+++ b/CHANGELOG.md" in changelog_diff and "+## 1.1.0" in changelog_diff
    assert "VERSION" not in changelog_diff
    assert version_diff.endswith("-1.0.0\n+1.1.0\n") and "CHANGELOG" not in version_diff
    # An ast_edit preview staged afterwards is resolved before both.
    (project / "app.js").write_text("log(1);\n")
    ast_edit = create_ast_edit_tool(str(project), store)
    await ast_edit.execute("c2", {"ops": [{"pat": "log($A)", "out": "warn($A)"}], "path": "app.js"})
    assert (await resolve(store, "discard", "not that")).details["source_tool_name"] == "ast_edit"
    assert (project / "app.js").read_text() == "log(1);\n"
    assert (await resolve(store, "apply", "ship")).text == "Wrote CHANGELOG.md. Reason: ship"
    version = await resolve(store, "discard", "later")
    assert version.text == "Discarded: Release: VERSION -> 1.1.0. Reason: later"
    assert (project / "VERSION").read_text() == "1.0.0\n"
    assert (project / "CHANGELOG.md").read_text() == (
        "# Changelog\n\n## 1.1.0\n\n- Faster.\n\n## 1.0.0\n\n- First.\n"
    )


async def test_two_previews_refuse_to_overwrite_a_changed_file(
    project: Path, user_tools: Path
) -> None:
    store = PendingActionStore()
    tool = example_tool("two_previews.py", project, user_tools, store)
    await tool.execute("c", {"version": "0.1.0", "note": "Start."})
    (project / "CHANGELOG.md").write_text("# Changelog\n\nhand-written\n")
    out = await resolve(store, "apply")
    assert out.is_error and "CHANGELOG.md changed since the preview" in out.text
    assert (project / "CHANGELOG.md").read_text() == "# Changelog\n\nhand-written\n"
    with pytest.raises(ToolError, match="version"):
        await tool.execute("c", {"version": "v2", "note": "x"})
