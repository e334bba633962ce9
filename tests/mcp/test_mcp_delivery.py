"""A preview whose result did not reach the client is discarded (in-process)."""

from __future__ import annotations

import asyncio
from typing import Any

from xcsh.core import AgentTool, ToolCallContext, text_result
from xcsh.mcp import UNDELIVERED_REASON, Delivery, McpSession
from xcsh.pending import PendingAction, PendingActionStore
from xcsh.tools import create_resolve_tool

SCHEMA = {"type": "object", "properties": {"wait": {"type": "number"}}}


def make_session(rejected: list[str]) -> McpSession:
    def factory(store: PendingActionStore) -> list[AgentTool[Any]]:
        async def preview(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            store.push(
                PendingAction(
                    label="Preview",
                    source_tool_name="preview",
                    apply=lambda r: "applied",
                    reject=rejected.append,
                )
            )
            await asyncio.sleep(params.get("wait", 0))  # pushed, result not yet returned
            return text_result("preview")

        tool = AgentTool(name="preview", label="P", description="d", parameters=SCHEMA, run=preview)
        return [tool, create_resolve_tool(store)]

    return McpSession.create(factory)


async def test_a_cancelled_call_discards_the_preview_it_pushed() -> None:
    rejected: list[str] = []
    session = make_session(rejected)
    await session.call("preview", {})  # delivered (stdio): kept
    task = asyncio.create_task(session.call("preview", {"wait": 60}))
    await asyncio.sleep(0.05)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert rejected == [UNDELIVERED_REASON]
    assert session.store.count == 1  # the delivered one stays


async def test_a_result_lost_before_or_after_the_call_ends_discards_its_preview() -> None:
    rejected: list[str] = []
    session = make_session(rejected)
    kept = Delivery()
    await session.call("preview", {}, delivery=kept)
    late = Delivery()
    await session.call("preview", {}, delivery=late)
    assert session.store.count == 2
    await late.lost()  # the response could not be completed after the call ended
    early = Delivery()
    await early.lost()  # the connection dropped while the call still ran
    await session.call("preview", {}, delivery=early)
    assert rejected == [UNDELIVERED_REASON, UNDELIVERED_REASON]
    assert session.store.count == 1
    result = await session.call("resolve", {"action": "apply", "reason": "seen"})
    assert [block.text for block in result.content] == ["applied"]  # type: ignore[union-attr]


class _NumberedAction(PendingAction):
    @property
    def id(self) -> str:  # as the store numbers previews: p1, p2, ...
        return "p7"


async def test_a_result_that_pushed_a_preview_names_its_id() -> None:
    def factory(store: PendingActionStore) -> list[AgentTool[Any]]:
        def preview(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            store.push(
                _NumberedAction(
                    label="Preview", source_tool_name="preview", apply=lambda r: "applied"
                )
            )
            return text_result("preview")

        tool = AgentTool(name="preview", label="P", description="d", parameters=SCHEMA, run=preview)
        return [tool, create_resolve_tool(store)]

    session = McpSession.create(factory)
    result = await session.call("preview", {})
    texts = [block.text for block in result.content]  # type: ignore[union-attr]
    assert texts[:2] == ["preview", 'Preview p7 is pending (resolve id "p7").']
