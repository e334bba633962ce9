"""The store stamps which tool call pushed each pending action (its origin) on the copy it
keeps; the value pushed never changes."""

from __future__ import annotations

from typing import Any

from xcsh import PendingAction, PendingActionStore
from xcsh.core import AgentTool, ToolCallContext
from xcsh.pending import (
    DEFAULT_SOURCE_TOOL_NAME,
    PushOrigin,
    StalePreviewError,
    create_resolve_tool,
)


def make(label: str, source: str = "stage", **extra: Any) -> PendingAction:
    return PendingAction(label=label, source_tool_name=source, apply=lambda reason: None, **extra)


def staging_tool(store: PendingActionStore, action: PendingAction) -> AgentTool[Any]:
    def run(params: Any, ctx: ToolCallContext) -> str:
        store.push(action)
        return "staged"

    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    return AgentTool(
        name="stage", label="Stage Things", description="d", parameters=schema, run=run
    )


async def test_a_push_during_a_tool_call_is_stamped_with_that_call() -> None:
    store = PendingActionStore()
    action = make("Stage: one")
    await staging_tool(store, action).execute("call_7", {"x": 1})
    kept = store.peek()
    assert kept is not None and kept.origin == PushOrigin(
        tool_call_id="call_7", tool_name="stage", tool_label="Stage Things", arguments={"x": 1}
    )
    assert action.origin is None and action.id == ""


def test_a_push_outside_any_tool_call_has_no_origin_and_an_explicit_one_wins() -> None:
    store = PendingActionStore()
    loose, given = make("loose"), make("given")
    kept_loose = store.push(loose)
    origin = PushOrigin(tool_call_id="call_1", tool_name="t", tool_label="T")
    kept_given = store.push(given, origin=origin)
    assert kept_loose.origin is None
    assert kept_given.origin is origin and given.origin is None
    assert store.find(kept_loose.id) is kept_loose and store.find("p99") is None


async def test_a_preview_rebuilt_by_resolve_keeps_the_origin_of_the_one_it_replaces() -> None:
    store = PendingActionStore()
    rebuilt = make("Stage: again")

    def stale(reason: str) -> None:
        raise StalePreviewError("changed", files=("a.txt",))

    old = PendingAction(
        label="Stage: one", source_tool_name="stage", apply=stale, rebuild=lambda: (rebuilt, "text")
    )
    await staging_tool(store, old).execute("call_7", {"x": 1})
    result = await create_resolve_tool(store).execute("call_9", {"action": "apply", "reason": "go"})
    top = store.peek()
    assert result.is_error and top is not None and top.label == "Stage: again"
    assert top.origin is not None and top.origin.tool_call_id == "call_7"


async def test_a_custom_tool_without_a_source_is_named_by_its_tool_label() -> None:
    store = PendingActionStore()
    generic = make("Write stamp.txt", source=DEFAULT_SOURCE_TOOL_NAME)
    named = make("Write stamp.txt", source="stamper")
    await staging_tool(store, generic).execute("call_1", {})
    await staging_tool(store, named).execute("call_2", {})
    kept_named, kept_generic = store.snapshot()
    assert kept_generic.source_label == "Stage Things"
    assert kept_named.source_label == "stamper"
    discarded = await create_resolve_tool(store).execute(
        "call_3", {"action": "discard", "reason": "no"}
    )
    assert discarded.details.badge == "stamper"
    discarded = await create_resolve_tool(store).execute(
        "call_4", {"action": "discard", "reason": "no"}
    )
    # the contract's four keys are unchanged; only the display badge names the tool
    assert discarded.details["source_tool_name"] == DEFAULT_SOURCE_TOOL_NAME
    assert discarded.details.badge == "Stage Things"
