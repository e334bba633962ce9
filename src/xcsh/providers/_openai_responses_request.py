"""Map a :class:`~xcsh.core.ModelRequest` to Responses API parameters.

Wire format: https://platform.openai.com/docs/api-reference/responses/create.
Requests are stateless (``store: false``): the whole conversation is sent each
time as input items; tool calls are ``function_call`` items paired with
``function_call_output`` items by ``call_id``. With reasoning on, the request
asks for ``reasoning.encrypted_content`` and each earlier answer's reasoning
items are sent back (id, summary, encrypted content) before its calls, so the
model keeps its reasoning across tool turns.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ImageContent,
    Message,
    ModelRequest,
    TextContent,
    ThinkingContent,
    ToolChoice,
    ToolResultMessage,
)
from xcsh.providers._common import UserItem, data_url, joined_text, openai_messages


class _InputText(TypedDict):
    type: Literal["input_text"]
    text: str


class _InputImage(TypedDict):
    type: Literal["input_image"]
    image_url: str
    detail: Literal["auto"]


Part = _InputText | _InputImage
"""A content block of a user message."""


class _CallOutput(TypedDict):
    type: Literal["function_call_output"]
    call_id: str
    output: str


class _Summary(TypedDict):
    type: Literal["summary_text"]
    text: str


class _Reasoning(TypedDict):
    type: Literal["reasoning"]
    id: str | None
    summary: list[_Summary]
    encrypted_content: str | None


class _AssistantText(TypedDict):
    role: Literal["assistant"]
    content: str


class _FunctionCall(TypedDict):
    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str


_Item = _CallOutput | _Reasoning | _AssistantText | _FunctionCall
InputItem = _Item | UserItem[Part]
"""An input item as the Responses API takes it."""


class _NamedChoice(TypedDict):
    type: Literal["function"]
    name: str


def build_params(
    request: ModelRequest, *, model: str, max_tokens: int | None, thinking: bool
) -> dict[str, Any]:
    """Keyword arguments for ``AsyncOpenAI().responses.create`` (besides ``stream``).

    Args:
        request: the request.
        model: model id.
        max_tokens: ``max_output_tokens`` when the request sets none (None: omitted).
        thinking: ask reasoning models for reasoning and its summary.
    """
    params: dict[str, Any] = {
        "model": model,
        "input": map_input(request.messages),
        "store": False,
    }
    if request.system:
        params["instructions"] = request.system
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in request.tools
        ]
        params["tool_choice"] = map_tool_choice(request.tool_choice)
    cap = request.max_tokens or max_tokens
    if cap is not None:
        params["max_output_tokens"] = cap
    if thinking:
        params["reasoning"] = {"effort": "medium", "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    return params


def map_tool_choice(choice: ToolChoice) -> str | _NamedChoice:
    """``"auto"``, ``"none"``, ``"required"`` as is; a forced tool as a named function."""
    if isinstance(choice, ForcedTool):
        return {"type": "function", "name": choice.name}
    return choice


def map_input(messages: list[Message]) -> list[InputItem]:
    """Conversation as input items; tool-result images follow as one user message."""
    return openai_messages(messages, _items, _part)


def _items(message: ToolResultMessage | AssistantMessage) -> list[_Item]:
    if isinstance(message, ToolResultMessage):
        return [
            {
                "type": "function_call_output",
                "call_id": message.tool_call_id,
                "output": joined_text(message.content),
            }
        ]
    items: list[_Item] = []
    items.extend(_reasoning(b) for b in message.content if _returnable(b))
    if message.text:
        items.append({"role": "assistant", "content": message.text})
    items.extend(
        {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": json.dumps(call.arguments),
        }
        for call in message.tool_calls
    )
    return items


def _returnable(block: object) -> bool:
    return isinstance(block, ThinkingContent) and bool(block.id) and bool(block.signature)


def _reasoning(block: object) -> _Reasoning:
    assert isinstance(block, ThinkingContent)
    summary: list[_Summary] = (
        [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
    )
    return {
        "type": "reasoning",
        "id": block.id,
        "summary": summary,
        "encrypted_content": block.signature,
    }


def _part(block: TextContent | ImageContent) -> Part:
    if isinstance(block, TextContent):
        return {"type": "input_text", "text": block.text}
    return {"type": "input_image", "image_url": data_url(block), "detail": "auto"}
