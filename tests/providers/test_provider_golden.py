"""The exact request bodies each adapter sends, against committed golden JSON.

Covers contract §3's mapping of a forced tool choice per provider (Anthropic:
thinking switched off for that request, contract case R2), a conversation with
tool calls, tool results and a hidden reminder, and plain ``auto``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from provider_support import Exchange, conversation_request, simple_request, sse

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ModelRequest,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from xcsh.providers import ProviderSettings, ResponseDone, create_provider

FIXTURE = {
    "anthropic": "anthropic_text.sse",
    "openai": "openai_chat_llamacpp_text.sse",
    "openai-responses": "openai_responses_tool_use.sse",
}
PATH = {
    "anthropic": "/v1/messages",
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
}


async def sent_body(
    exchange: Callable[..., Exchange], settings: ProviderSettings, request: ModelRequest
) -> dict[str, Any]:
    ex = exchange(sse(FIXTURE[settings.provider]))
    provider = create_provider(settings, http_client=ex.client())
    events = [e async for e in provider.stream(request)]
    assert isinstance(events[-1], ResponseDone)
    assert len(ex.requests) == 1
    assert ex.requests[0].url.path == PATH[settings.provider]
    body: dict[str, Any] = ex.bodies()[0]
    return body


def settings(provider: str, **extra: Any) -> ProviderSettings:
    model = {"anthropic": "claude-sonnet-4-6"}.get(provider, "gpt-5.1")
    return ProviderSettings(provider=provider, model=model, api_key="test-key", **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-responses"])
async def test_forced_conversation(provider: str, exchange: Any, golden: Any) -> None:
    body = await sent_body(exchange, settings(provider), conversation_request())
    golden(f"{provider}_forced_conversation", body)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-responses"])
async def test_auto(provider: str, exchange: Any, golden: Any) -> None:
    body = await sent_body(exchange, settings(provider), simple_request(thinking=True))
    golden(f"{provider}_auto", body)


async def test_openai_server_without_named_tool_choice(exchange: Any, golden: Any) -> None:
    local = settings(
        "openai",
        base_url="http://localhost:8080/v1",
        forced_tool_choice=False,
        max_tokens=2048,
    )
    body = await sent_body(exchange, local, conversation_request(thinking=False))
    golden("openai_local_forced_unsupported", body)


async def test_anthropic_forced_switches_thinking_off(exchange: Any) -> None:
    forced = await sent_body(exchange, settings("anthropic"), conversation_request())
    assert forced["tool_choice"] == {"type": "tool", "name": "resolve"}
    assert "thinking" not in forced
    free = await sent_body(
        exchange, settings("anthropic"), conversation_request(tool_choice="auto")
    )
    assert free["tool_choice"] == {"type": "auto"}
    assert free["thinking"] == {"type": "enabled", "budget_tokens": 4096}
    required = await sent_body(
        exchange, settings("anthropic"), conversation_request(tool_choice="required")
    )
    assert required["tool_choice"] == {"type": "any"}
    assert "thinking" not in required


async def test_anthropic_merges_tool_results_and_reminder(exchange: Any) -> None:
    body = await sent_body(exchange, settings("anthropic"), conversation_request())
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "user"]
    last = body["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["tool_result", "tool_result", "text"]
    assert [b.get("tool_use_id") for b in last[:2]] == ["call_read_1", "call_edit_2"]


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        ("anthropic", {"type": "tool", "name": "resolve"}),
        ("openai", {"type": "function", "function": {"name": "resolve"}}),
        ("openai-responses", {"type": "function", "name": "resolve"}),
    ],
)
async def test_forced_tool_choice_shapes(
    provider: str, expected: dict[str, Any], exchange: Any
) -> None:
    request = simple_request(tool_choice=ForcedTool(name="resolve"))
    body = await sent_body(exchange, settings(provider), request)
    assert body["tool_choice"] == expected


async def test_anthropic_thinking_stays_off_after_a_forced_tool_call(exchange: Any) -> None:
    """A forced ``resolve`` call has no thinking block, so the next request keeps thinking off."""
    base = conversation_request()
    resolve_call = AssistantMessage(
        content=[
            ToolCall(id="call_res_3", name="resolve", arguments={"action": "apply", "reason": "ok"})
        ],
        stop_reason="tool_use",
    )
    result = ToolResultMessage(
        tool_call_id="call_res_3", tool_name="resolve", content=[TextContent("Applied.")]
    )
    after = conversation_request(
        messages=[*base.messages, resolve_call, result], tool_choice="auto"
    )
    body = await sent_body(exchange, settings("anthropic"), after)
    assert body["tool_choice"] == {"type": "auto"}
    assert "thinking" not in body
    fresh = conversation_request(
        messages=[
            *after.messages,
            AssistantMessage(content=[TextContent("Renamed.")]),
            UserMessage(content=[TextContent("Next task.")]),
        ],
        tool_choice="auto",
    )
    # A new user message starts a new turn: thinking is allowed again.
    assert "thinking" in await sent_body(exchange, settings("anthropic"), fresh)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "openai-responses"])
async def test_malformed_call_goes_back_as_valid_json(
    provider: str, exchange: Any, golden: Any
) -> None:
    """A call whose arguments were not JSON is sent back with ``{}`` (its error
    result quotes the text), since servers reject invalid JSON in the history."""
    bad = ToolCall(
        id="call_bad_1",
        name="ls",
        arguments={},
        invalid_arguments='{"path": ',
        arguments_error="Expecting value: line 1 column 10 (char 9)",
    )
    request = ModelRequest(
        system="You are a coding agent.",
        messages=[
            UserMessage(content=[TextContent("List the files.")]),
            AssistantMessage(content=[bad], stop_reason="tool_use", provider="t", model="t"),
            ToolResultMessage(
                tool_call_id="call_bad_1",
                tool_name="ls",
                content=[TextContent("Not executed: the arguments for 'ls' are not valid JSON.")],
                is_error=True,
            ),
        ],
        tools=[],
    )
    body = await sent_body(exchange, settings(provider), request)
    golden(f"{provider}_malformed_call", body)
