"""Map a :class:`~xcsh.core.ModelRequest` to Chat Completions parameters.

Wire format: https://platform.openai.com/docs/api-reference/chat/create, as
also served by llama.cpp, vLLM and Ollama. Tool messages carry text only, so
images a tool returned follow the tool messages as one user message.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Required, TypeAlias, TypedDict

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    ImageContent,
    Message,
    ModelRequest,
    TextContent,
    ToolChoice,
    ToolResultMessage,
    ToolSpec,
)
from xcsh.providers._common import UserContent, data_url, joined_text, openai_messages
from xcsh.providers._tool_schema import tool_call_schema

if TYPE_CHECKING:
    from openai.types.chat import (
        ChatCompletionAssistantMessageParam,
        ChatCompletionContentPartImageParam,
        ChatCompletionContentPartTextParam,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageFunctionToolCallParam,
        ChatCompletionMessageParam,
        ChatCompletionStreamOptionsParam,
        ChatCompletionToolChoiceOptionParam,
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )
    from openai.types.shared_params import ReasoningEffort, ResponseFormatJSONSchema

Part: TypeAlias = "ChatCompletionContentPartTextParam | ChatCompletionContentPartImageParam"
"""A content block of a user message."""


class StreamParams(TypedDict, total=False):
    """The keyword arguments xcsh passes to ``AsyncOpenAI().chat.completions.stream``.

    Each value has the SDK's own parameter type; keys are sent in the order
    :func:`build_params` sets them, those not marked required only when set.
    """

    model: Required[str]
    messages: Required[list[ChatCompletionMessageParam]]
    stream_options: Required[ChatCompletionStreamOptionsParam]
    tools: list[ChatCompletionFunctionToolParam]
    tool_choice: ChatCompletionToolChoiceOptionParam
    response_format: ResponseFormatJSONSchema
    max_tokens: int
    max_completion_tokens: int
    temperature: float
    reasoning_effort: ReasoningEffort


def build_params(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int | None,
    thinking: bool,
    forced_tool_choice: bool,
    compatible_server: bool,
    constrain_forced: bool = False,
    temperature: float | None = None,
) -> StreamParams:
    """Keyword arguments for ``AsyncOpenAI().chat.completions.stream``.

    Args:
        request: the request.
        model: model id.
        max_tokens: output cap when the request sets none (None: server default).
        thinking: send ``reasoning_effort="medium"`` (reasoning models only).
        forced_tool_choice: the server accepts a named tool choice; when False
            a forced tool becomes ``"required"`` (contract §3: strongest mode plus
            the reminder the loop adds).
        compatible_server: a ``--base-url`` server: the cap is sent as
            ``max_tokens``, which they understand, instead of OpenAI's
            ``max_completion_tokens``.
        constrain_forced: on a turn that forces a tool, also send
            ``response_format`` with the JSON Schema of a call of the forced
            tool (``"required"``: of any offered tool), so a server that
            constrains its output (llama.cpp) can only write that call, as
            JSON text the adapter reads back (:func:`forced_tools`).
        temperature: sampling temperature to send; None sends none (the
            server's or provider's default).
    """
    messages: list[ChatCompletionMessageParam] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(map_messages(request.messages))
    params: StreamParams = {
        "model": model,
        "messages": messages,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        params["tools"] = [_tool(t) for t in request.tools]
        params["tool_choice"] = map_tool_choice(request.tool_choice, forced_tool_choice)
        allowed = forced_tools(request) if constrain_forced else []
        if allowed:
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "tool_call", "schema": {**tool_call_schema(allowed)}},
            }
    cap = request.max_tokens or max_tokens
    if cap is not None and compatible_server:
        params["max_tokens"] = cap
    elif cap is not None:
        params["max_completion_tokens"] = cap
    if temperature is not None:
        params["temperature"] = temperature
    if thinking:
        params["reasoning_effort"] = "medium"
    return params


def _tool(tool: ToolSpec) -> ChatCompletionFunctionToolParam:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": {**tool.parameters},
        },
    }


def forced_tools(request: ModelRequest) -> list[ToolSpec]:
    """The tools a forced turn may call.

    The named one, every offered one for ``"required"`` but those the request
    names in ``not_chosen``, none when the turn does not force.
    """
    choice = request.tool_choice
    if isinstance(choice, ForcedTool):
        return [t for t in request.tools if t.name == choice.name]
    if choice == "required":
        return [t for t in request.tools if t.name not in request.not_chosen]
    return []


def map_tool_choice(
    choice: ToolChoice, forced_supported: bool
) -> ChatCompletionToolChoiceOptionParam:
    """``"auto"``/``"none"``/``"required"`` as is; a forced tool as a named function."""
    if isinstance(choice, ForcedTool):
        if not forced_supported:
            return "required"
        return {"type": "function", "function": {"name": choice.name}}
    return choice


def map_messages(messages: list[Message]) -> list[ChatCompletionMessageParam]:
    """Messages in Chat Completions shape; consecutive user messages are merged.

    Chat templates of local models (llama.cpp, vLLM) often require user and
    assistant turns to alternate, so user messages in a row (a resumed
    session whose assistant turns were empty, a hidden reminder after the
    user's own text) become one: their texts joined by a blank line, or their
    parts concatenated when one holds images.
    """
    out: list[ChatCompletionMessageParam] = []
    user: str | list[Part] | None = None  # the user content not yet sent, merged so far
    for item in openai_messages(messages, _items, _part):
        if isinstance(item, UserContent):
            user = item.content if user is None else _merged(user, item.content)
            continue
        if user is not None:
            out.append(_user(user))
            user = None
        out.append(item)
    if user is not None:
        out.append(_user(user))
    return out


def _user(content: str | list[Part]) -> ChatCompletionUserMessageParam:
    return {"role": "user", "content": content}


def _merged(first: str | list[Part], second: str | list[Part]) -> str | list[Part]:
    if isinstance(first, str) and isinstance(second, str):
        return "\n\n".join(t for t in (first, second) if t)
    return _parts(first) + _parts(second)


def _parts(content: str | list[Part]) -> list[Part]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content)


def _items(
    message: ToolResultMessage | AssistantMessage,
) -> list[ChatCompletionToolMessageParam | ChatCompletionAssistantMessageParam]:
    if isinstance(message, ToolResultMessage):
        return [
            {
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": joined_text(message.content),
            }
        ]
    assistant = _assistant(message)
    return [] if assistant is None else [assistant]


def _assistant(message: AssistantMessage) -> ChatCompletionAssistantMessageParam | None:
    text = message.text
    calls: list[ChatCompletionMessageFunctionToolCallParam] = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in message.tool_calls
    ]
    if not text and not calls:
        return None
    out: ChatCompletionAssistantMessageParam = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    return out


def _part(block: TextContent | ImageContent) -> Part:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    return {"type": "image_url", "image_url": {"url": data_url(block)}}
