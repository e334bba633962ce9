"""Map a :class:`~xcsh.core.ModelRequest` to Anthropic Messages API parameters.

Wire format: https://docs.anthropic.com/en/api/messages. Consecutive
user-role content (tool results, then a hidden reminder) is merged into one
user message, tool results first, as the API requires after ``tool_use``.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ImageContent,
    JsonObject,
    Message,
    ModelRequest,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    UserMessage,
)

MIN_THINKING_BUDGET = 1024
"""The smallest ``budget_tokens`` the API accepts."""


class _Text(TypedDict):
    type: Literal["text"]
    text: str


class _ImageSource(TypedDict):
    type: Literal["base64"]
    media_type: str
    data: str


class _Image(TypedDict):
    type: Literal["image"]
    source: _ImageSource


class _Thinking(TypedDict):
    type: Literal["thinking"]
    thinking: str
    signature: str


class _ToolUse(TypedDict):
    type: Literal["tool_use"]
    id: str
    name: str
    input: JsonObject


class _ToolResult(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: NotRequired[list[Block]]
    is_error: NotRequired[bool]


Block = _Text | _Image | _Thinking | _ToolUse | _ToolResult
"""A content block of a Messages API message."""


class MessageParam(TypedDict):
    """A message as the Messages API takes it."""

    role: Literal["user", "assistant"]
    content: list[Block]


def build_params(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int,
    thinking: bool,
    thinking_budget: int,
    prompt_cache: bool = True,
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncAnthropic().messages.stream``.

    Args:
        request: the request.
        model: model id.
        max_tokens: output cap when the request sets none.
        thinking: extended thinking wanted (``request.thinking`` or the setting).
        thinking_budget: ``budget_tokens`` when thinking is on; clipped below
            ``max_tokens``; thinking is dropped when that leaves under 1,024.
        prompt_cache: send the top-level ``cache_control`` (ephemeral), which
            marks the last cacheable block, so each turn of a conversation
            reads the previous turns from the prompt cache.

    Thinking is switched off whenever the tool choice forces tool use
    (``ForcedTool`` or ``"required"``): the API rejects both together
    (contract case R2, contract §3). It also stays off when the request answers
    tool calls from an assistant message without a signed thinking block
    (e.g. the forced ``resolve`` call): with thinking on, the API requires
    the assistant message of a tool-use loop to start with one.
    """
    cap = request.max_tokens or max_tokens
    messages = map_messages(request.messages)
    params: dict[str, Any] = {"model": model, "max_tokens": cap, "messages": messages}
    if prompt_cache:
        params["cache_control"] = {"type": "ephemeral"}
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        params["tool_choice"] = map_tool_choice(request.tool_choice)
    forces = isinstance(request.tool_choice, ForcedTool) or request.tool_choice == "required"
    budget = min(thinking_budget, cap - 1)
    if thinking and not forces and budget >= MIN_THINKING_BUDGET and _thinking_allowed(messages):
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return params


def _thinking_allowed(messages: list[MessageParam]) -> bool:
    """False when the request continues a tool-use turn whose assistant message has no thinking.

    That is: the last message carries tool results and the assistant message
    before it does not start with a thinking block. A fresh user message
    starts a new turn, where thinking is allowed again.
    """
    if len(messages) < 2 or messages[-2]["role"] != "assistant":
        return True
    if not any(b["type"] == "tool_result" for b in messages[-1]["content"]):
        return True
    return bool(messages[-2]["content"][0]["type"] == "thinking")


def map_tool_choice(choice: ToolChoice) -> dict[str, str]:
    """``auto``/``none``/``required`` → ``auto``/``none``/``any``; a forced tool → ``tool``."""
    if isinstance(choice, ForcedTool):
        return {"type": "tool", "name": choice.name}
    return {"type": {"auto": "auto", "none": "none", "required": "any"}[choice]}


def map_messages(messages: list[Message]) -> list[MessageParam]:
    """Messages in API shape, merging consecutive same-role content; empty ones dropped."""
    out: list[MessageParam] = []
    for message in messages:
        role, blocks = _blocks(message)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _blocks(message: Message) -> tuple[Literal["user", "assistant"], list[Block]]:
    if isinstance(message, UserMessage):
        return "user", _content(message.content)
    if isinstance(message, ToolResultMessage):
        block: _ToolResult = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        content = _content(message.content)
        if content:
            block["content"] = content
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    return "assistant", _assistant(message)


def _assistant(message: AssistantMessage) -> list[Block]:
    blocks: list[Block] = []
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ThinkingContent):
            # Unsigned reasoning (an aborted stream) cannot be sent back, nor an
            # OpenAI reasoning item (it has an id; its signature is encrypted content).
            if part.signature and part.id is None:
                blocks.append(
                    {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
                )
        elif isinstance(part, ToolCall):
            blocks.append(
                {"type": "tool_use", "id": part.id, "name": part.name, "input": part.arguments}
            )
    return blocks


def _content(content: list[TextContent | ImageContent]) -> list[Block]:
    blocks: list[Block] = []
    for part in content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        else:
            blocks.append(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": part.mime_type, "data": part.data},
                }
            )
    return blocks
