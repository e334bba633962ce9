"""Small pieces the adapters share: argument parsing, aborted answers, data URLs."""

from __future__ import annotations

import json
from typing import Any

from xcsh.core import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
)
from xcsh.providers._errors import ErrorContext, bad_tool_arguments


def parse_arguments(ctx: ErrorContext, tool: str, raw: str | None) -> dict[str, Any]:
    """Parse tool-call arguments sent as a JSON string.

    An empty string (a tool without parameters on some servers) means ``{}``.

    Raises:
        ProviderError: the text is not valid JSON or not a JSON object (retryable).
    """
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise bad_tool_arguments(ctx, tool, raw, str(exc)) from exc
    if not isinstance(value, dict):
        raise bad_tool_arguments(ctx, tool, raw, f"expected an object, got {type(value).__name__}")
    return value


def aborted(provider: str, model: str, text: list[str], thinking: list[str]) -> AssistantMessage:
    """The answer for a cancelled stream: the text and reasoning received so far.

    Tool calls are dropped, since their arguments may be incomplete: the
    history stays valid (no tool call without a result, CASES.md R3).
    """
    content: list[TextContent | ThinkingContent | ToolCall] = []
    if thinking:
        content.append(ThinkingContent(thinking="".join(thinking)))
    if text:
        content.append(TextContent("".join(text)))
    return AssistantMessage(content=content, stop_reason="aborted", provider=provider, model=model)


def data_url(image: ImageContent) -> str:
    """A ``data:`` URL for an image, as OpenAI's APIs accept them."""
    return f"data:{image.mime_type};base64,{image.data}"


def joined_text(blocks: list[TextContent | ImageContent]) -> str:
    """The text blocks of a content list, joined by newlines (images left out)."""
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))
