"""Recorded SSE streams parsed into events and one AssistantMessage per adapter."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from provider_support import FIXTURES, Exchange, simple_request, sse

from xcsh.core import (
    ProviderError,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
)
from xcsh.providers import (
    ProviderSettings,
    ResponseDone,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
    create_provider,
)


def make(provider: str, ex: Exchange, **extra: Any) -> Any:
    values: dict[str, Any] = {
        "provider": provider,
        "model": {"anthropic": "claude-sonnet-4-6"}.get(provider, "gpt-5.1"),
        "api_key": "k",
        **extra,
    }
    settings = ProviderSettings(**values)
    return create_provider(settings, http_client=ex.client())


async def collect(provider: Any, **kw: Any) -> list[StreamEvent]:
    return [e async for e in provider.stream(simple_request(), **kw)]


def done(events: list[StreamEvent]) -> Any:
    last = events[-1]
    assert isinstance(last, ResponseDone)
    assert sum(isinstance(e, ResponseDone) for e in events) == 1
    return last.message


async def test_anthropic_thinking_text_and_tool_call(exchange: Any) -> None:
    events = await collect(make("anthropic", exchange(sse("anthropic_tool_use.sse"))))
    assert [type(e) for e in events] == [
        ThinkingChunk,
        TextChunk,
        TextChunk,
        ResponseDone,
    ]
    message = done(events)
    assert message.content == [
        ThinkingContent(
            thinking="The user wants the greeting renamed.",
            signature="EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        ),
        TextContent("I'll rename it now."),
        ToolCall(
            id="toolu_01T1x1fJ34qAmk2tNTrN7Up6",
            name="ast_edit",
            arguments={"ops": [{"pat": "hello($A)", "out": "greet($A)"}], "path": "src/app.py"},
        ),
    ]
    assert message.stop_reason == "tool_use"
    # $3/M input, $15/M output, $0.30/M cache reads for claude-sonnet-4-6.
    assert message.usage == Usage(
        input_tokens=472,
        output_tokens=89,
        cache_read_tokens=1200,
        cost_usd=pytest.approx((472 * 3 + 89 * 15 + 1200 * 0.3) / 1e6),
    )
    assert (message.provider, message.model) == ("anthropic", "claude-sonnet-4-6")


async def test_anthropic_plain_text(exchange: Any) -> None:
    message = done(await collect(make("anthropic", exchange(sse("anthropic_text.sse")))))
    assert message.text == "Hello!"
    assert message.stop_reason == "stop"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (25, 15)


async def test_openai_chat_text_and_two_tool_calls(exchange: Any) -> None:
    events = await collect(make("openai", exchange(sse("openai_chat_tool_use.sse"))))
    message = done(events)
    assert message.text == "Previewing the rename."
    assert message.tool_calls == [
        ToolCall(
            id="call_Q0k2nXr3fT8yVb1LmZ4aPcDe",
            name="ast_edit",
            arguments={"ops": [{"pat": "hello($A)", "out": "greet($A)"}]},
        ),
        ToolCall(id="call_7HsWq2eRt9UyIo0PaSdFgHjK", name="read", arguments={"path": "src/app.py"}),
    ]
    assert message.stop_reason == "tool_use"
    # 1480 prompt tokens of which 1024 cached; gpt-5.1 is $1.25/M, $0.125/M cached, $10/M out.
    assert (message.usage.input_tokens, message.usage.cache_read_tokens) == (456, 1024)
    assert message.usage.output_tokens == 64
    assert message.usage.cost_usd == pytest.approx((456 * 1.25 + 1024 * 0.125 + 64 * 10) / 1e6)


async def test_openai_chat_local_server_reasoning(exchange: Any) -> None:
    provider = make(
        "openai",
        exchange(sse("openai_chat_llamacpp_text.sse")),
        base_url="http://localhost:8080/v1",
        model="qwen3-coder",
    )
    events = await collect(provider)
    assert [e.text for e in events if isinstance(e, ThinkingChunk)] == [
        "The user says hi.",
        " Answer briefly.",
    ]
    message = done(events)
    assert message.content == [
        ThinkingContent(thinking="The user says hi. Answer briefly."),
        TextContent("Hello there!"),
    ]
    assert message.stop_reason == "stop"
    assert message.usage == Usage(input_tokens=30, output_tokens=12)  # unknown model: no cost


@pytest.mark.parametrize(
    ("provider", "fixture", "call_id", "raw"),
    [
        ("openai", "openai_chat_bad_arguments.sse", "call_bad", '{"ops": [{"pat": "x"'),
        (
            "openai-responses",
            "openai_responses_bad_arguments.sse",
            "call_Zx81mQ2vB7nN4kLp0oIu3yT6",
            '{"ops": [{"pat": ',
        ),
    ],
)
async def test_malformed_arguments_become_a_marked_tool_call(
    provider: str, fixture: str, call_id: str, raw: str, exchange: Any
) -> None:
    message = done(await collect(make(provider, exchange(sse(fixture)))))
    (tool_call,) = message.tool_calls
    assert tool_call.id == call_id and tool_call.name == "ast_edit"
    assert tool_call.arguments == {}
    assert tool_call.invalid_arguments == raw
    assert tool_call.arguments_error is not None and "line 1 column" in tool_call.arguments_error
    assert message.stop_reason == "tool_use"


async def test_openai_responses_reasoning_text_and_tool_call(exchange: Any) -> None:
    events = await collect(make("openai-responses", exchange(sse("openai_responses_tool_use.sse"))))
    assert [type(e) for e in events] == [
        ThinkingChunk,
        TextChunk,
        TextChunk,
        ResponseDone,
    ]
    message = done(events)
    assert message.content == [
        ThinkingContent(thinking="Use ast_edit.", id="rs_68f0c1d2bb"),
        TextContent("Previewing the rename."),
        ToolCall(
            id="call_Zx81mQ2vB7nN4kLp0oIu3yT6",
            name="ast_edit",
            arguments={"ops": [{"pat": "hello($A)", "out": "greet($A)"}]},
        ),
    ]
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.cache_read_tokens) == (500, 1000)
    assert message.usage.output_tokens == 80


async def test_openai_responses_round_trips_reasoning_between_tool_turns(exchange: Any) -> None:
    """With store false, reasoning survives a tool turn only if the encrypted
    reasoning items are asked for and sent back before the calls they led to."""
    ex = exchange(
        sse("openai_responses_reasoning_encrypted.sse"), sse("openai_responses_incomplete.sse")
    )
    provider = make("openai-responses", ex, thinking=True)
    first = simple_request(thinking=True)
    message = done([e async for e in provider.stream(first)])
    (reasoning,) = [b for b in message.content if isinstance(b, ThinkingContent)]
    assert reasoning == ThinkingContent(
        thinking="Use ast_edit.", signature="gAAAAABo8MHS-enc-Use-ast-edit==", id="rs_68f0c1d2bb"
    )
    result = ToolResultMessage(
        tool_call_id=message.tool_calls[0].id, tool_name="ast_edit", content=[TextContent("ok")]
    )
    second = simple_request(thinking=True, messages=[*first.messages, message, result])
    [e async for e in provider.stream(second)]
    sent = ex.bodies()
    assert sent[0]["include"] == ["reasoning.encrypted_content"] and sent[0]["store"] is False
    kinds = [item.get("type", item.get("role")) for item in sent[1]["input"]]
    assert kinds == ["user", "reasoning", "assistant", "function_call", "function_call_output"]
    assert sent[1]["input"][1] == {
        "type": "reasoning",
        "id": "rs_68f0c1d2bb",
        "summary": [{"type": "summary_text", "text": "Use ast_edit."}],
        "encrypted_content": "gAAAAABo8MHS-enc-Use-ast-edit==",
    }


async def test_openai_responses_incomplete_is_length(exchange: Any) -> None:
    message = done(
        await collect(make("openai-responses", exchange(sse("openai_responses_incomplete.sse"))))
    )
    assert message.text == "Partial"
    assert message.stop_reason == "length"


async def test_openai_responses_failed_raises(exchange: Any) -> None:
    provider = make("openai-responses", exchange(sse("openai_responses_failed.sse")))
    with pytest.raises(ProviderError, match="The model failed to generate a response"):
        await collect(provider)


class SlowStream(httpx2.AsyncByteStream):
    """Sends the first part of a recorded stream, then stalls until closed."""

    def __init__(self, head: bytes) -> None:
        self.head = head
        self.closed = False

    async def __aiter__(self) -> Any:
        yield self.head
        await asyncio.sleep(30)
        yield b""

    async def aclose(self) -> None:
        self.closed = True


@pytest.mark.parametrize(
    ("provider", "fixture", "marker"),
    [
        ("anthropic", "anthropic_tool_use.sse", '"partial_json":"{'),
        ("openai", "openai_chat_tool_use.sse", '"arguments":"{'),
        ("openai-responses", "openai_responses_tool_use.sse", "response.output_text.done"),
    ],
)
async def test_cancel_mid_stream_returns_aborted(
    provider: str, fixture: str, marker: str, exchange: Any
) -> None:
    raw = (FIXTURES / fixture).read_text()
    # Serve whole SSE events up to the one holding the marker, then stall.
    cut = raw.rfind("\n\n", 0, raw.index(marker)) + 2
    body = SlowStream(raw[:cut].encode())
    answer = httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
    adapter = make(provider, exchange(answer))
    cancel = asyncio.Event()
    events: list[StreamEvent] = []

    async def consume() -> None:
        async for event in adapter.stream(simple_request(), cancel=cancel):
            events.append(event)
            if isinstance(event, TextChunk) and "rename" in event.text:
                cancel.set()

    await asyncio.wait_for(consume(), timeout=5)
    message = done(events)
    assert message.stop_reason == "aborted"
    assert "rename" in message.text
    assert message.tool_calls == []  # incomplete calls are dropped (contract case R3)
    assert body.closed


async def test_cancel_before_answer_returns_aborted(exchange: Any) -> None:
    body = SlowStream(b"")
    answer = httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=body)
    adapter = make("anthropic", exchange(answer))
    cancel = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, cancel.set)
    events = await asyncio.wait_for(collect(adapter, cancel=cancel), timeout=5)
    message = done(events)
    assert message.stop_reason == "aborted"
    assert message.content == []


@pytest.mark.parametrize(
    ("raw", "arguments", "error"),
    [
        ("", {}, None),
        ('{"path": "a"}', {"path": "a"}, None),
        ('{"path": ', {}, "Expecting value: line 1 column 10 (char 9)"),
        ("[1, 2]", {}, "expected an object, got list"),
        ('"a.txt"', {}, "expected an object, got str"),
    ],
)
def test_parse_tool_call(raw: str, arguments: dict[str, Any], error: str | None) -> None:
    from xcsh.providers._common import parse_tool_call

    call = parse_tool_call("c1", "ls", raw)
    assert call.arguments == arguments and call.arguments_error == error
    assert call.invalid_arguments == (raw if error else None)
