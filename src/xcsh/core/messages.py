"""Conversation messages and model requests, independent of any provider.

These frozen dataclasses are the seam between the agent loop and the
provider adapters: the loop builds a :class:`ModelRequest`, a provider turns it
into its own wire format and streams back :class:`StreamEvent` values ending
in one :class:`AssistantMessage`. Pydantic reads the messages straight from
the session file's JSON: their annotations say how (the tag of each block,
defaults for what an older file left out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

import pydantic

from xcsh.core.content import ContentBlock, TextContent
from xcsh.core.json_types import JsonObject


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A tool call the model made.

    Args:
        id: the provider's id, echoed back in the matching result.
        name: the tool's name.
        arguments: parsed JSON arguments (``{}`` when the model sent none, or
            sent text that is not a JSON object).
        invalid_arguments: the text the model sent when it was not a JSON
            object (small local models often cut it short), else ``None``.
            The agent loop never runs such a call: it answers it with an
            ``is_error`` result that quotes the text and asks for valid JSON.
        arguments_error: why ``invalid_arguments`` did not parse (the JSON
            parser's message), else ``None``.
        from_text: the model wrote this call as its answer text (a JSON
            object naming an offered tool), as small local models do, and the
            provider adapter read it as a call.
    """

    id: str
    name: str
    arguments: JsonObject
    invalid_arguments: str | None = None
    arguments_error: str | None = None
    from_text: bool = False
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, kw_only=True)
class ThinkingContent:
    """Reasoning text a provider returned (kept so it can be sent back when required).

    Args:
        thinking: the text (a summary for OpenAI reasoning models; may be empty).
        signature: provider-specific opaque token, if any: Anthropic's
            signature, or the OpenAI Responses reasoning item's encrypted content.
        id: the provider's id of the reasoning item (OpenAI Responses), if any.
    """

    thinking: str
    signature: str | None = None
    id: str | None = None
    type: Literal["thinking"] = "thinking"


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token counts for one model response and its cost in US dollars (0 when unknown)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0


@dataclass(frozen=True, kw_only=True)
class UserMessage:
    """A user-role message.

    Args:
        content: text and images.
        hidden: True for runtime reminders the user did not type (contract §3);
            sent to the model, shown dimmed or not at all by front ends.
    """

    content: list[ContentBlock] = field(default_factory=list)
    hidden: bool = False
    role: Literal["user"] = "user"

    @property
    def text(self) -> str:
        """The text blocks joined by newlines (images left out)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextContent))


StopReason = Literal["stop", "tool_use", "length", "error", "aborted"]

AssistantBlock = Annotated[
    TextContent | ThinkingContent | ToolCall, pydantic.Field(discriminator="type")
]
"""A block of an answer: text, thinking or a tool call, tagged by its ``type``."""


def _usage_or_empty(value: object) -> object:
    return value or {}


@dataclass(frozen=True, kw_only=True)
class AssistantMessage:
    """What the model answered in one turn.

    Args:
        content: text, thinking and tool calls in the order the model produced them.
        stop_reason: why the turn ended.
        usage: token counts and cost.
        provider: the provider's name (``"anthropic"``, ``"openai"``, ...).
        model: the model id.
        error: the error message when ``stop_reason`` is ``"error"``.
    """

    content: list[AssistantBlock] = field(default_factory=list)
    stop_reason: StopReason = "stop"
    usage: Annotated[Usage, pydantic.BeforeValidator(_usage_or_empty)] = field(
        default_factory=Usage
    )
    provider: str = ""
    model: str = ""
    error: str | None = None
    role: Literal["assistant"] = "assistant"

    @property
    def text(self) -> str:
        """The answer's text blocks joined together (thinking and tool calls left out)."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls of the answer, in the order the model made them."""
        return [b for b in self.content if isinstance(b, ToolCall)]


@dataclass(frozen=True, kw_only=True)
class ToolResultMessage:
    """The result of one tool call, sent back to the model.

    Args:
        tool_call_id: the id of the :class:`ToolCall` it answers.
        tool_name: the tool's name.
        content: text and images for the model.
        details: structured data for front ends; never sent to the model.
        is_error: the call failed.
    """

    tool_call_id: str
    tool_name: str
    content: list[ContentBlock] = field(default_factory=list)
    details: object = None
    is_error: bool = False
    role: Literal["tool_result"] = "tool_result"


Message = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(frozen=True, kw_only=True)
class ToolSpec:
    """A tool as offered to a model: name, description and JSON Schema parameters."""

    name: str
    description: str
    parameters: JsonObject


@dataclass(frozen=True, kw_only=True)
class ForcedTool:
    """Tool choice that forces one named tool (contract §3)."""

    name: str


ToolChoice = Literal["auto", "none", "required"] | ForcedTool


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One request to a model.

    Args:
        system: the system prompt.
        messages: the conversation so far.
        tools: tools offered.
        tool_choice: ``"auto"`` normally; a :class:`ForcedTool` while actions are pending.
        thinking: ask for extended reasoning where the provider supports it;
            adapters must switch it off when the API forbids it together with a
            forced tool choice (Anthropic).
        max_tokens: cap on output tokens, or ``None`` for the adapter's default.
        not_chosen: names of offered tools a ``"required"`` turn must not call: an
            adapter that constrains a forced turn to a schema of the calls it allows
            leaves them out of it (the tools list itself stays as it is, so a server's
            prompt cache holds).
    """

    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    tool_choice: ToolChoice = "auto"
    thinking: bool = False
    max_tokens: int | None = None
    not_chosen: tuple[str, ...] = ()
