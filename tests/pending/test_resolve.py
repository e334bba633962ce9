"""The resolve tool: contract §2, sentence by sentence."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from xcsh import AgentToolResult, PendingAction, PendingActionStore, TextContent, ToolError
from xcsh.tools import create_resolve_tool

NOTHING = "No pending action to resolve. Nothing to apply or discard."


async def resolve(store: PendingActionStore, action: str, reason: str) -> AgentToolResult:
    tool = create_resolve_tool(store)
    return await tool.execute("call-1", {"action": action, "reason": reason})


def test_tool_identity_and_schema() -> None:
    tool = create_resolve_tool(PendingActionStore())
    assert tool.name == "resolve"
    assert tool.label == "Resolve"
    assert tool.hidden is True
    schema = tool.json_schema()
    assert set(schema["properties"]) == {"action", "reason", "id", "only", "check"}
    assert set(schema["required"]) == {"action", "reason"}
    assert schema["properties"]["action"]["enum"] == ["apply", "discard"]
    assert schema.get("additionalProperties") is False


@pytest.mark.parametrize("action", ["apply", "discard"])
async def test_empty_store_fails_with_exact_message(action: str) -> None:
    with pytest.raises(ToolError) as info:
        await resolve(PendingActionStore(), action, "why")
    assert str(info.value) == NOTHING


async def test_lifo_three_pushes_applied_last_first() -> None:
    store = PendingActionStore()
    order: list[str] = []
    for name in ("one", "two", "three"):
        store.push(
            PendingAction(label=name, source_tool_name="t", apply=lambda r, n=name: order.append(n))
        )
    for _ in range(3):
        await resolve(store, "apply", "ok")
    assert order == ["three", "two", "one"]
    assert store.count == 0


async def test_apply_default_text_and_details() -> None:
    store = PendingActionStore()
    store.push(PendingAction(label="Rename 2 files", source_tool_name="rn", apply=lambda r: None))
    result = await resolve(store, "apply", "looks right")
    assert result.text == "Applied: Rename 2 files."
    assert result.is_error is False
    assert result.details == {
        "action": "apply",
        "reason": "looks right",
        "source_tool_name": "rn",
        "label": "Rename 2 files",
    }


async def test_apply_result_text_parts_joined_by_newlines() -> None:
    store = PendingActionStore()

    async def apply(reason: str) -> AgentToolResult:
        return AgentToolResult(
            content=[TextContent("first"), TextContent(""), TextContent(f"reason={reason}")]
        )

    store.push(PendingAction(label="L", source_tool_name="s", apply=apply))
    result = await resolve(store, "apply", "because")
    assert result.text == "first\nreason=because"
    assert [c.text for c in result.content if isinstance(c, TextContent)] == [
        "first\nreason=because"
    ]


async def test_apply_result_with_only_empty_text_falls_back_to_default() -> None:
    store = PendingActionStore()
    store.push(
        PendingAction(
            label="L",
            source_tool_name="s",
            apply=lambda r: AgentToolResult(content=[TextContent("")]),
        )
    )
    assert (await resolve(store, "apply", "x")).text == "Applied: L."


async def test_discard_default_text() -> None:
    store = PendingActionStore()
    applied: list[str] = []
    store.push(PendingAction(label="L", source_tool_name="s", apply=applied.append))
    result = await resolve(store, "discard", "not needed")
    assert result.text == "Discarded: L. Reason: not needed"
    assert applied == []
    assert result.details == {
        "action": "discard",
        "reason": "not needed",
        "source_tool_name": "s",
        "label": "L",
    }
    assert store.count == 0


@pytest.mark.parametrize("is_async", [False, True])
async def test_reject_result_replaces_default(is_async: bool) -> None:
    store = PendingActionStore()
    reasons: list[str] = []

    def reject_sync(reason: str) -> AgentToolResult:
        reasons.append(reason)
        return AgentToolResult(content=[TextContent(f"cleaned up ({reason})")])

    async def reject_async(reason: str) -> AgentToolResult:
        await asyncio.sleep(0)
        return reject_sync(reason)

    store.push(
        PendingAction(
            label="L",
            source_tool_name="s",
            apply=lambda r: None,
            reject=reject_async if is_async else reject_sync,
        )
    )
    result = await resolve(store, "discard", "nope")
    assert result.text == "cleaned up (nope)"
    assert reasons == ["nope"]
    assert result.details["source_tool_name"] == "s"


async def test_reject_returning_none_falls_back_to_default() -> None:
    store = PendingActionStore()
    called: list[str] = []
    store.push(
        PendingAction(label="L", source_tool_name="s", apply=lambda r: None, reject=called.append)
    )
    result = await resolve(store, "discard", "r")
    assert called == ["r"]
    assert result.text == "Discarded: L. Reason: r"


@pytest.mark.parametrize("action", ["apply", "discard"])
async def test_reason_passed_through_unchanged(action: str) -> None:
    store = PendingActionStore()
    seen: list[str] = []
    reason = "  Ünïcode, punctuation!? and\nnewlines  "
    store.push(
        PendingAction(label="L", source_tool_name="s", apply=seen.append, reject=seen.append)
    )
    result = await resolve(store, action, reason)
    assert seen == [reason]
    assert result.details["reason"] == reason


async def test_async_apply_is_awaited() -> None:
    store = PendingActionStore()
    done = asyncio.Event()

    async def apply(reason: str) -> str:
        await asyncio.sleep(0)
        done.set()
        return "wrote it"

    store.push(PendingAction(label="L", source_tool_name="s", apply=apply))
    result = await resolve(store, "apply", "go")
    assert done.is_set()
    assert result.text == "wrote it"


async def test_apply_failure_keeps_action_pending_and_reports_error() -> None:
    store = PendingActionStore()
    attempts: list[str] = []
    pushes: list[int] = []
    store.subscribe_push(lambda a, n: pushes.append(n))

    def apply(reason: str) -> str:
        attempts.append(reason)
        if len(attempts) == 1:
            raise OSError("disk full")
        return "done"

    below = PendingAction(label="below", source_tool_name="s", apply=lambda r: None)
    top = PendingAction(label="top", source_tool_name="s", apply=apply)
    below = store.push(below)
    top = store.push(top)
    result = await resolve(store, "apply", "try")
    assert result.is_error is True
    assert result.text.startswith("Apply failed: disk full")
    assert "still pending" in result.text
    assert result.details == {
        "action": "apply",
        "reason": "try",
        "source_tool_name": "s",
        "label": "top",
    }
    assert store.count == 2
    assert store.peek() is top  # back on top, order kept
    assert pushes == [1, 2]  # putting it back is not a new preview
    retry = await resolve(store, "apply", "again")
    assert retry.text == "done"
    assert store.peek() is below


async def test_apply_failure_then_discard() -> None:
    store = PendingActionStore()

    def apply(reason: str) -> None:
        raise RuntimeError("file changed since the preview")

    store.push(PendingAction(label="L", source_tool_name="s", apply=apply))
    assert (await resolve(store, "apply", "x")).is_error
    result = await resolve(store, "discard", "stale")
    assert result.text == "Discarded: L. Reason: stale"
    assert store.count == 0


async def test_reject_failure_still_discards() -> None:
    store = PendingActionStore()

    def reject(reason: str) -> None:
        raise RuntimeError("lock gone")

    store.push(PendingAction(label="L", source_tool_name="s", apply=lambda r: None, reject=reject))
    result = await resolve(store, "discard", "x")
    assert result.is_error
    assert "lock gone" in result.text
    assert store.count == 0


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"action": "commit", "reason": "x"}, "action"),
        ({"action": "apply"}, "reason"),
        ({"reason": "x"}, "action"),
        ({"action": "apply", "reason": "x", "force": True}, "force"),
    ],
)
async def test_invalid_arguments_name_the_field(params: dict[str, Any], field: str) -> None:
    store = PendingActionStore()
    store.push(PendingAction(label="L", source_tool_name="s", apply=lambda r: None))
    with pytest.raises(ToolError) as info:
        await create_resolve_tool(store).execute("c", params)
    assert f"- {field}:" in str(info.value)
    assert store.count == 1  # nothing popped on bad input


async def test_apply_returning_a_wrong_type_names_what_apply_may_return() -> None:
    # None is fine for apply/reject (the default text), so this message lists it.
    store = PendingActionStore()
    store.push(PendingAction(label="odd", source_tool_name="s", apply=lambda r: 42))
    result = await resolve(store, "apply", "go")
    assert result.is_error is True
    assert result.text.startswith(
        "Apply failed: expected an AgentToolResult, a str, a dict with 'content', or None; "
        "got an int\n"
    )
    assert store.count == 1
