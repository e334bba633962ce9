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
from typing import TYPE_CHECKING, Required, TypedDict

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ImageContent,
    Message,
    ModelRequest,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolChoice,
    ToolResultMessage,
    ToolSpec,
)
from xcsh.providers._common import UserContent, data_url, joined_text, openai_messages

if TYPE_CHECKING:
    from openai.types.responses import (
        EasyInputMessageParam,
        FunctionToolParam,
        ResponseFunctionToolCallParam,
        ResponseIncludable,
        ResponseInputContentParam,
        ResponseInputItemParam,
        ResponseReasoningItemParam,
    )
    from openai.types.responses.response_create_params import ToolChoice as ToolChoiceParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput
    from openai.types.responses.response_reasoning_item_param import Summary
    from openai.types.shared_params import Reasoning


class CreateParams(TypedDict, total=False):
    """The keyword arguments xcsh passes to ``AsyncOpenAI().responses.create``.

    ``stream`` is passed besides them. Each value has the SDK's own parameter
    type; keys are sent in the order :func:`build_params` sets them, those not
    marked required only when set.
    """

    model: Required[str]
    input: Required[list[ResponseInputItemParam]]
    store: Required[bool]
    instructions: str
    tools: list[FunctionToolParam]
    tool_choice: ToolChoiceParam
    max_output_tokens: int
    reasoning: Reasoning
    include: list[ResponseIncludable]


def build_params(
    request: ModelRequest, *, model: str, max_tokens: int | None, thinking: bool
) -> CreateParams:
    """Keyword arguments for ``AsyncOpenAI().responses.create`` (besides ``stream``).

    Args:
        request: the request.
        model: model id.
        max_tokens: ``max_output_tokens`` when the request sets none (None: omitted).
        thinking: ask reasoning models for reasoning and its summary.
    """
    params: CreateParams = {
        "model": model,
        "input": map_input(request.messages),
        "store": False,
    }
    if request.system:
        params["instructions"] = request.system
    if request.tools:
        params["tools"] = [_tool(t) for t in request.tools]
        params["tool_choice"] = map_tool_choice(request.tool_choice)
    cap = request.max_tokens or max_tokens
    if cap is not None:
        params["max_output_tokens"] = cap
    if thinking:
        params["reasoning"] = {"effort": "medium", "summary": "auto"}
        params["include"] = ["reasoning.encrypted_content"]
    return params


def _tool(tool: ToolSpec) -> FunctionToolParam:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": {**tool.parameters},
        "strict": False,
    }


def map_tool_choice(choice: ToolChoice) -> ToolChoiceParam:
    """``"auto"``, ``"none"``, ``"required"`` as is; a forced tool as a named function."""
    if isinstance(choice, ForcedTool):
        return {"type": "function", "name": choice.name}
    return choice


def map_input(messages: list[Message]) -> list[ResponseInputItemParam]:
    """Conversation as input items; tool-result images follow as one user message."""
    return [
        _user(item) if isinstance(item, UserContent) else item
        for item in openai_messages(messages, _items, _part)
    ]


def _user(item: UserContent[ResponseInputContentParam]) -> EasyInputMessageParam:
    return {"role": "user", "content": item.content}


def _items(message: ToolResultMessage | AssistantMessage) -> list[ResponseInputItemParam]:
    if isinstance(message, ToolResultMessage):
        output: FunctionCallOutput = {
            "type": "function_call_output",
            "call_id": message.tool_call_id,
            "output": joined_text(message.content),
        }
        return [output]
    items: list[ResponseInputItemParam] = []
    for block in message.content:
        reasoning = _reasoning(block) if isinstance(block, ThinkingContent) else None
        if reasoning is not None:
            items.append(reasoning)
    if message.text:
        items.append({"role": "assistant", "content": message.text})
    items.extend(_function_call(call) for call in message.tool_calls)
    return items


def _function_call(call: ToolCall) -> ResponseFunctionToolCallParam:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": json.dumps(call.arguments),
    }


def _reasoning(block: ThinkingContent) -> ResponseReasoningItemParam | None:
    """An earlier answer's reasoning item, sent back.

    ``None`` for reasoning that cannot be (no id, or no encrypted content: not
    an item of this API).
    """
    if not block.id or not block.signature:
        return None
    summary: list[Summary] = (
        [{"type": "summary_text", "text": block.thinking}] if block.thinking else []
    )
    return {
        "type": "reasoning",
        "id": block.id,
        "summary": summary,
        "encrypted_content": block.signature,
    }


def _part(block: TextContent | ImageContent) -> ResponseInputContentParam:
    if isinstance(block, TextContent):
        return {"type": "input_text", "text": block.text}
    return {"type": "input_image", "image_url": data_url(block), "detail": "auto"}
