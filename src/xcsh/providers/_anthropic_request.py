"""Map a :class:`~xcsh.core.ModelRequest` to Anthropic Messages API parameters.

Wire format: https://docs.anthropic.com/en/api/messages. Consecutive
user-role content (tool results, then a hidden reminder) is merged into one
user message, tool results first, as the API requires after ``tool_use``.
The parameters are typed with the SDK's own ``TypedDict`` types (imported for
type checkers only: building them loads no SDK).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Required, TypeAlias, TypedDict, cast

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
    UserMessage,
)

if TYPE_CHECKING:
    from anthropic.types import (
        CacheControlEphemeralParam,
        ImageBlockParam,
        MessageParam,
        TextBlockParam,
        ThinkingBlockParam,
        ThinkingConfigEnabledParam,
        ToolChoiceParam,
        ToolParam,
        ToolResultBlockParam,
        ToolUseBlockParam,
    )
    from anthropic.types.base64_image_source_param import Base64ImageSourceParam

MIN_THINKING_BUDGET = 1024
"""The smallest ``budget_tokens`` the API accepts."""

ContentBlock: TypeAlias = "TextBlockParam | ImageBlockParam"
"""A block of a user's or a tool result's content."""
Block: TypeAlias = (
    "TextBlockParam | ImageBlockParam | ThinkingBlockParam | ToolUseBlockParam"
    " | ToolResultBlockParam"
)
"""A content block of a Messages API message, as xcsh sends them."""
MediaType: TypeAlias = Literal["image/jpeg", "image/png", "image/gif", "image/webp"]
"""The image types the API names; an image of another type is sent as it is, and refused."""


class StreamParams(TypedDict, total=False):
    """The keyword arguments xcsh passes to ``AsyncAnthropic().messages.stream``.

    Each value has the SDK's own parameter type; keys are sent in this order,
    those not marked required only when set.
    """

    model: Required[str]
    max_tokens: Required[int]
    messages: Required[list[MessageParam]]
    cache_control: CacheControlEphemeralParam
    system: str
    tools: list[ToolParam]
    tool_choice: ToolChoiceParam
    thinking: ThinkingConfigEnabledParam


def build_params(
    request: ModelRequest,
    *,
    model: str,
    max_tokens: int,
    thinking: bool,
    thinking_budget: int,
    prompt_cache: bool = True,
) -> StreamParams:
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
    turns = _turns(request.messages)
    params: StreamParams = {
        "model": model,
        "max_tokens": cap,
        "messages": [turn.param() for turn in turns],
    }
    if prompt_cache:
        params["cache_control"] = {"type": "ephemeral"}
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": {**t.parameters}}
            for t in request.tools
        ]
        params["tool_choice"] = map_tool_choice(request.tool_choice)
    forces = isinstance(request.tool_choice, ForcedTool) or request.tool_choice == "required"
    budget = min(thinking_budget, cap - 1)
    if thinking and not forces and budget >= MIN_THINKING_BUDGET and _thinking_allowed(turns):
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return params


@dataclass
class _Turn:
    """One message as sent: consecutive same-role messages merged.

    Attributes:
        role: whose message it is.
        blocks: its content blocks, in order.
        answers_tools: it carries tool results.
        opens_with_thinking: its first block is a signed thinking block.
    """

    role: Literal["user", "assistant"]
    blocks: list[Block]
    answers_tools: bool = False
    opens_with_thinking: bool = False

    def param(self) -> MessageParam:
        """The message in the API's shape."""
        if self.role == "user":
            return {"role": "user", "content": self.blocks}
        return {"role": "assistant", "content": self.blocks}


def _thinking_allowed(turns: list[_Turn]) -> bool:
    """False when the request continues a tool-use turn whose assistant message has no thinking.

    That is: the last message carries tool results and the assistant message
    before it does not start with a thinking block. A fresh user message
    starts a new turn, where thinking is allowed again.
    """
    if len(turns) < 2 or turns[-2].role != "assistant":
        return True
    if not turns[-1].answers_tools:
        return True
    return turns[-2].opens_with_thinking


def map_tool_choice(choice: ToolChoice) -> ToolChoiceParam:
    """``auto``/``none``/``required`` → ``auto``/``none``/``any``; a forced tool → ``tool``."""
    if isinstance(choice, ForcedTool):
        return {"type": "tool", "name": choice.name}
    if choice == "auto":
        return {"type": "auto"}
    if choice == "none":
        return {"type": "none"}
    return {"type": "any"}


def map_messages(messages: list[Message]) -> list[MessageParam]:
    """Messages in API shape, merging consecutive same-role content; empty ones dropped."""
    return [turn.param() for turn in _turns(messages)]


def _turns(messages: list[Message]) -> list[_Turn]:
    out: list[_Turn] = []
    for message in messages:
        turn = _turn(message)
        if not turn.blocks:
            continue
        if out and out[-1].role == turn.role:
            out[-1].blocks.extend(turn.blocks)
            out[-1].answers_tools |= turn.answers_tools
        else:
            out.append(turn)
    return out


def _turn(message: Message) -> _Turn:
    if isinstance(message, UserMessage):
        return _Turn("user", list(_content(message.content)))
    if isinstance(message, ToolResultMessage):
        block: ToolResultBlockParam = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        content = _content(message.content)
        if content:
            block["content"] = content
        if message.is_error:
            block["is_error"] = True
        return _Turn("user", [block], answers_tools=True)
    return _assistant(message)


def _assistant(message: AssistantMessage) -> _Turn:
    turn = _Turn("assistant", [])
    for part in message.content:
        if isinstance(part, TextContent):
            if part.text:
                turn.blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ThinkingContent):
            # Unsigned reasoning (an aborted stream) cannot be sent back, nor an
            # OpenAI reasoning item (it has an id; its signature is encrypted content).
            if part.signature and part.id is None:
                turn.opens_with_thinking |= not turn.blocks
                turn.blocks.append(
                    {"type": "thinking", "thinking": part.thinking, "signature": part.signature}
                )
        elif isinstance(part, ToolCall):
            turn.blocks.append(_tool_use(part))
    return turn


def _tool_use(call: ToolCall) -> ToolUseBlockParam:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": {**call.arguments}}


def _content(content: list[TextContent | ImageContent]) -> list[ContentBlock]:
    blocks: list[ContentBlock] = []
    for part in content:
        if isinstance(part, TextContent):
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        else:
            blocks.append({"type": "image", "source": _image_source(part)})
    return blocks


def _image_source(image: ImageContent) -> Base64ImageSourceParam:
    media_type = cast(MediaType, image.mime_type)  # sent as given: the API names what it refuses
    return {"type": "base64", "media_type": media_type, "data": image.data}
