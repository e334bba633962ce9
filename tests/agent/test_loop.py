"""The loop: events, tool errors, concurrency, cancellation and repair (contract case R3)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from agent_harness import Gate, MakeHarness, call, wait_tool

from xcsh.agent import (
    CANCELLED_TEXT,
    AgentError,
    RunEnd,
    TextDelta,
    ToolCallStart,
    ToolResult,
    TurnEnd,
    TurnStart,
    repair_tool_pairs,
)
from xcsh.core import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def assert_paired(messages: list[dict[str, Any]] | list[Message]) -> None:
    """Every tool call has exactly one result, right after its message (R3)."""
    as_dicts = [m if isinstance(m, dict) else {"role": m.role, "m": m} for m in messages]
    i = 0
    while i < len(as_dicts):
        m = as_dicts[i]
        i += 1
        calls = _calls(m)
        if not calls:
            assert m["role"] != "tool_result", "a result without its call"
            continue
        ids = []
        while i < len(as_dicts) and as_dicts[i]["role"] == "tool_result":
            ids.append(_result_id(as_dicts[i]))
            i += 1
        assert Counter(ids) == Counter(calls), (ids, calls)


def _calls(m: dict[str, Any]) -> list[str]:
    if "m" in m:
        msg = m["m"]
        return [c.id for c in msg.tool_calls] if isinstance(msg, AssistantMessage) else []
    if m["role"] != "assistant":
        return []
    return [b["id"] for b in m["content"] if b.get("type") == "tool_call"]


def _result_id(m: dict[str, Any]) -> str:
    return str(m["m"].tool_call_id if "m" in m else m["tool_call_id"])


async def test_event_order_for_a_tool_round_trip(make_harness: MakeHarness) -> None:
    h = make_harness(
        [{"text": "Reading.", "tool_calls": [call("read", path="f.txt")]}, {"text": "It says hi."}]
    )
    (h.root / "f.txt").write_text("hi\n")

    end = await h.session.prompt("what is in f.txt?")

    kinds = [type(e).__name__ for e in h.events]
    assert kinds == [
        "TurnStart",
        "TextDelta",
        "ToolCallStart",
        "ToolResult",
        "TurnEnd",
        "TurnStart",
        "TextDelta",
        "TurnEnd",
        "RunEnd",
    ]
    (result,) = h.of_type(ToolResult)
    assert result.text == "hi\n" and not result.message.is_error
    assert end.final_text == "It says hi."
    # the result went back to the model in the second request
    second = h.requests()[1]["messages"]
    assert second[-1]["role"] == "tool_result" and second[-1]["content"][0]["text"] == "hi\n"
    assert "- read: Read a file." in h.requests()[0]["system"]


async def test_tool_error_and_unknown_tool_become_error_results(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("read", path="nope.txt"), call("frobnicate"), call("read")]},
            {"text": "sorry"},
        ]
    )

    await h.session.prompt("go")

    missing, unknown, invalid = (e.message for e in h.of_type(ToolResult))
    assert missing.is_error and missing.content[0].text == "No such file: nope.txt"  # type: ignore[union-attr]
    assert unknown.is_error
    assert unknown.content[0].text == (  # type: ignore[union-attr]
        "Unknown tool 'frobnicate'. Available tools: read, preview_write, resolve."
    )
    assert invalid.is_error and "path" in invalid.content[0].text  # type: ignore[union-attr]


async def test_read_only_calls_run_concurrently_results_in_call_order(
    make_harness: MakeHarness,
) -> None:
    gate = Gate()
    h = make_harness(
        [{"tool_calls": [call("wait", name="slow"), call("read", path="f.txt")]}, {"text": "ok"}],
        extra_tools=[wait_tool(gate)],
    )
    (h.root / "f.txt").write_text("fast\n")
    run = asyncio.create_task(h.session.prompt("go"))
    # the read finishes while the wait is still blocked: they run together
    while not h.of_type(ToolResult):
        await asyncio.sleep(0.001)
    assert h.of_type(ToolResult)[0].text == "fast\n"
    gate.release.set()
    await run
    turn_end = h.of_type(TurnEnd)[0]
    assert [r.tool_name for r in turn_end.results] == ["wait", "read"]
    assert_paired(h.session.messages)


async def test_cancel_mid_batch_gives_every_call_one_result(make_harness: MakeHarness) -> None:
    gate = Gate()
    h = make_harness(
        [
            {
                "tool_calls": [
                    call("read", path="f.txt"),
                    call("wait", name="w1"),
                    call("preview_write", path="g.txt", content="x"),
                    call("wait", name="w2"),
                ]
            },
            {"text": "after cancel"},
        ],
        extra_tools=[wait_tool(gate)],
    )
    (h.root / "f.txt").write_text("data\n")
    run = asyncio.create_task(h.session.prompt("go"))
    await gate.started.wait()
    h.session.cancel()
    end = await run

    assert end.reason == "cancelled"
    assert isinstance(h.events[-1], RunEnd)
    assert gate.finished == []
    results = {e.message.tool_call_id: e.message for e in h.of_type(ToolResult)}
    assert len(results) == 4 and len(h.of_type(ToolResult)) == 4
    texts = [r.content[0].text for r in results.values()]  # type: ignore[union-attr]
    assert texts[0] == "data\n"
    assert texts[1:] == [CANCELLED_TEXT] * 3
    assert not (h.root / "g.txt").exists() and h.store.count == 0
    assert_paired(h.session.messages)

    # the next run's request pairs every call too
    end2 = await h.session.prompt("continue")
    assert end2.final_text == "after cancel"
    assert_paired(h.requests()[-1]["messages"])


async def test_outer_task_cancellation_like_ctrl_c(make_harness: MakeHarness) -> None:
    gate = Gate()
    h = make_harness(
        [{"tool_calls": [call("wait", name="w"), call("wait", name="v")]}],
        extra_tools=[wait_tool(gate)],
    )
    outer = asyncio.create_task(h.session.prompt("go"))
    await gate.started.wait()
    outer.cancel()  # what asyncio.run does on SIGINT
    with pytest.raises(asyncio.CancelledError):
        await outer
    assert isinstance(h.events[-1], RunEnd) and h.events[-1].reason == "cancelled"
    assert_paired(h.session.messages)
    assert not h.session.running


async def test_provider_error_ends_run_with_error(make_harness: MakeHarness) -> None:
    h = make_harness([{"error": "overloaded (529)"}])

    end = await h.session.prompt("go")

    assert end.reason == "error"
    (error,) = h.of_type(AgentError)
    assert error.kind == "provider" and "overloaded (529)" in error.message


def test_repair_adds_missing_results_in_place_and_drops_orphans() -> None:
    a = ToolCall(id="a", name="read", arguments={})
    b = ToolCall(id="b", name="read", arguments={})
    ok = ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent("x")])
    orphan = ToolResultMessage(tool_call_id="zzz", tool_name="read", content=[])
    history: list[Message] = [
        UserMessage(content=[TextContent("hi")]),
        AssistantMessage(content=[a, b], stop_reason="tool_use"),
        ok,
        orphan,
        UserMessage(content=[TextContent("again")]),
    ]
    repaired, changes = repair_tool_pairs(history)
    assert changes == 2
    assert [getattr(m, "tool_call_id", m.role) for m in repaired] == [
        "user",
        "assistant",
        "a",
        "b",
        "user",
    ]
    assert repaired[3].is_error  # type: ignore[union-attr]
    assert repair_tool_pairs(repaired) == (repaired, 0)


async def test_resumed_history_with_unpaired_call_is_repaired_before_request(
    make_harness: MakeHarness,
) -> None:
    h = make_harness([{"text": "fine"}])
    dangling = AssistantMessage(
        content=[ToolCall(id="old1", name="read", arguments={"path": "x"})], stop_reason="tool_use"
    )
    h.session._messages[:] = [UserMessage(content=[TextContent("before")]), dangling]

    await h.session.prompt("resume")

    sent = h.requests()[0]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool_result", "user"]
    assert sent[2]["tool_call_id"] == "old1" and sent[2]["is_error"] is True
    assert_paired(sent)


async def test_busy_session_refuses_a_second_prompt(make_harness: MakeHarness) -> None:
    gate = Gate()
    h = make_harness([{"tool_calls": [call("wait", name="w")]}], extra_tools=[wait_tool(gate)])
    run = asyncio.create_task(h.session.prompt("one"))
    await gate.started.wait()
    from xcsh.core import UsageError

    with pytest.raises(UsageError, match="already in progress"):
        await h.session.prompt("two")
    gate.release.set()
    await run
    assert [type(e) for e in h.events].count(TurnStart) == 2
    assert h.of_type(ToolCallStart)[0].arguments == {"name": "w"}
    assert all(isinstance(e.text, str) for e in h.of_type(TextDelta))
