"""push_pending_action from loaded tool files, resolved by the real resolve tool.

contract §1, §2 and §5.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_helpers import write_tool

from xcsh import (
    AgentTool,
    AgentToolResult,
    CustomToolAPI,
    CustomToolPendingAction,
    PendingAction,
    PendingActionStore,
    ToolError,
    load_custom_tools,
)
from xcsh.tools import create_ast_edit_tool, create_resolve_tool

NO_STORE = "Pending action store unavailable for custom tools in this runtime."

STAGER = """
from xcsh import CustomTool, CustomToolPendingAction

LOG = []  # what apply/reject did, in order

SCHEMA = {"type": "object", "properties": {"tag": {"type": "string"}}, "required": ["tag"]}

def factory(api):
    def stage(tool_call_id, params):
        tag = params["tag"]
        api.push_pending_action(CustomToolPendingAction(
            label=f"Stage {tag}",
            apply=lambda reason: LOG.append(("apply", tag, reason)) or f"applied {tag}",
        ))
        return f"staged {tag}"

    async def stage_with_reject(tool_call_id, params):
        tag = params["tag"]
        async def reject(reason):
            LOG.append(("reject", tag, reason))
            return {"content": [{"type": "text", "text": f"cleaned up {tag}: {reason}"}]}
        api.push_pending_action(CustomToolPendingAction(
            f"Stage {tag}", lambda reason: "x", reject, {"tag": tag}, "stager"))
        return f"staged {tag} with reject"

    return [
        CustomTool(name="stage", description="Stage.", parameters=SCHEMA, execute=stage),
        CustomTool(name="stage_r", description="Stage.", parameters=SCHEMA,
                   execute=stage_with_reject),
    ]
"""


def stager_tools(
    project: Path, user_tools: Path, store: PendingActionStore | None
) -> dict[str, AgentTool[object]]:
    write_tool(user_tools, "stager.py", STAGER)
    result = load_custom_tools(project, store=store, entry_points=False)
    assert result.errors == []
    return {t.name: t for t in result.tools}


async def resolve(store: PendingActionStore, action: str, reason: str) -> AgentToolResult:
    return await create_resolve_tool(store).execute("r", {"action": action, "reason": reason})


async def test_lifo_across_two_custom_actions_and_an_ast_edit_preview(
    project: Path, user_tools: Path
) -> None:
    store = PendingActionStore()
    tools = stager_tools(project, user_tools, store)
    code = project / "calc.py"
    code.write_text("total = old_sum(1, 2)\n")
    ast_edit = create_ast_edit_tool(str(project), store)
    await tools["stage"].execute("c1", {"tag": "first"})
    await tools["stage"].execute("c2", {"tag": "second"})
    await ast_edit.execute(
        "c3", {"ops": [{"pat": "old_sum($$$A)", "out": "new_sum($$$A)"}], "lang": "python"}
    )
    assert [a.source_tool_name for a in store.snapshot()] == [
        "ast_edit",
        "custom_tool",
        "custom_tool",
    ]
    assert code.read_text() == "total = old_sum(1, 2)\n"  # a preview changes nothing

    first = await resolve(store, "apply", "ok")
    assert first.details["label"] == "AST Edit: 1 replacement in 1 file"
    assert code.read_text() == "total = new_sum(1, 2)\n"
    texts = [(await resolve(store, "apply", "ok")).text for _ in range(2)]
    assert texts == ["applied second", "applied first"]
    assert store.count == 0
    with pytest.raises(ToolError, match="No pending action to resolve"):
        await resolve(store, "apply", "again")


async def test_default_source_tool_name_and_details(project: Path, user_tools: Path) -> None:
    store = PendingActionStore()
    tools = stager_tools(project, user_tools, store)
    result = await tools["stage"].execute("c1", {"tag": "a"})
    assert result.text == "staged a"
    top = store.peek()
    assert top is not None
    assert (top.label, top.source_tool_name, top.reject) == ("Stage a", "custom_tool", None)
    out = await resolve(store, "discard", "not now")
    assert out.text == "Discarded: Stage a. Reason: not now"
    assert out.details == {
        "action": "discard",
        "reason": "not now",
        "source_tool_name": "custom_tool",
        "label": "Stage a",
    }


async def test_reject_result_replaces_the_default(project: Path, user_tools: Path) -> None:
    store = PendingActionStore()
    tools = stager_tools(project, user_tools, store)
    await tools["stage_r"].execute("c1", {"tag": "b"})
    top = store.peek()
    assert top is not None and top.source_tool_name == "stager" and top.details == {"tag": "b"}
    out = await resolve(store, "discard", "wrong files")
    assert out.text == "cleaned up b: wrong files"
    assert out.details["source_tool_name"] == "stager"


async def test_without_a_store_push_fails_the_call_with_the_exact_message(
    project: Path, user_tools: Path
) -> None:
    tools = stager_tools(project, user_tools, None)
    with pytest.raises(ToolError) as info:
        await tools["stage"].execute("c1", {"tag": "a"})
    assert str(info.value) == NO_STORE


def test_api_push_converts_and_validates(tmp_path: Path) -> None:
    store = PendingActionStore()
    api = CustomToolAPI(tmp_path, store=store)
    api.push_pending_action(CustomToolPendingAction(label="L", apply=lambda r: None))
    pushed = store.pop()
    assert isinstance(pushed, PendingAction)
    assert pushed.source_tool_name == "custom_tool"
    with pytest.raises(ToolError, match="non-empty label"):
        api.push_pending_action(CustomToolPendingAction(label=" ", apply=lambda r: None))
    with pytest.raises(ToolError, match="apply must be callable"):
        api.push_pending_action(CustomToolPendingAction(label="x", apply="nope"))  # type: ignore[arg-type]
    with pytest.raises(ToolError) as info:
        CustomToolAPI(tmp_path, store=None).push_pending_action(
            CustomToolPendingAction(label="x", apply=lambda r: None)
        )
    assert str(info.value) == NO_STORE
    assert store.count == 0


async def test_push_accepts_the_description_object_literal_shape(tmp_path: Path) -> None:
    store = PendingActionStore()
    api = CustomToolAPI(tmp_path, store=store)
    api.push_pending_action(
        {
            "label": "Batch rename: 2 files",
            "sourceToolName": "batch_rename_preview",
            "apply": lambda reason: f"Applied batch rename. Reason: {reason}",
        }
    )
    top = store.peek()
    assert top is not None and top.source_tool_name == "batch_rename_preview"
    assert (await resolve(store, "apply", "ok")).text == "Applied batch rename. Reason: ok"
    api.push_pending_action({"label": "L", "apply": lambda r: None})
    assert store.pop().source_tool_name == "custom_tool"  # type: ignore[union-attr]
    with pytest.raises(ToolError, match="Unknown pending action field"):
        api.push_pending_action({"label": "L", "apply": lambda r: None, "onApply": 1})
    with pytest.raises(ToolError, match="needs 'label' and 'apply'"):
        api.push_pending_action({"label": "L"})


async def test_loader_without_a_store_argument_means_no_store(
    project: Path, user_tools: Path
) -> None:
    write_tool(user_tools, "stager.py", STAGER)
    [tool, _] = load_custom_tools(project, entry_points=False).tools
    with pytest.raises(ToolError) as info:
        await tool.execute("c1", {"tag": "a"})
    assert str(info.value) == NO_STORE


def test_a_mapping_keeps_its_spellings_defaults_and_legacy_details(tmp_path: Path) -> None:
    store = PendingActionStore()
    api = CustomToolAPI(tmp_path, store=store)

    def noop(reason: str) -> None:
        return None

    # the snake-case spelling wins over the camel-case one; empty values mean the default
    api.push_pending_action(
        {"label": "A", "apply": noop, "sourceToolName": "camel", "source_tool_name": "snake"}
    )
    api.push_pending_action(
        {"label": "B", "apply": noop, "source_tool_name": None, "files": None, "diff": ""}
    )
    # a tool written before typed previews names its files and diff in ``details``
    legacy = {"files": ["a.py", {"file": "b.py"}, {"path": "c.py"}, 7], "diff": "--- a.py"}
    api.push_pending_action({"label": "C", "apply": noop, "details": legacy})
    api.push_pending_action({"label": "D", "apply": noop, "details": {"path": "d.py"}})
    api.push_pending_action({"label": "E", "apply": noop, "details": {"files": "e.py"}})
    seen = [store.pop() for _ in range(5)][::-1]
    assert [(a.label, a.source_tool_name) for a in seen if a is not None] == [
        ("A", "snake"),
        ("B", "custom_tool"),
        ("C", "custom_tool"),
        ("D", "custom_tool"),
        ("E", "custom_tool"),
    ]
    previews = [a.preview for a in seen if a is not None]
    assert [[f.path for f in p.files] for p in previews if p is not None] == [
        [],
        [],
        ["a.py", "b.py", "c.py"],
        ["d.py"],
        [],
    ]
    assert [p.diff for p in previews if p is not None] == ["", "", "--- a.py", "", ""]
