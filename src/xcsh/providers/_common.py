"""Small pieces the adapters share.

Tool-call parsing, aborted answers, and the content mapping both OpenAI APIs
use (data URLs, text, tool-result images).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from xcsh.core import (
    AssistantMessage,
    ImageContent,
    JsonValue,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from xcsh.core.json_read import loads as bounded_json

TOOL_IMAGES_NOTE = "Images returned by the tool calls above:"
"""Opens the user message that carries the images of a run of tool results."""

ItemT = TypeVar("ItemT")
"""An input item (a message) in an API's own shape."""
PartT = TypeVar("PartT")
"""A content block in an API's own shape."""


@dataclass(frozen=True)
class UserContent(Generic[PartT]):
    """A user message's content as both OpenAI APIs take it.

    Attributes:
        content: its text as one string, or a list of ``PartT`` blocks when it
            holds images. Each API wraps it in its own user message type.
    """

    content: str | list[PartT]


def parse_tool_call(call_id: str, name: str, raw: str | None) -> ToolCall:
    """A :class:`ToolCall` from arguments sent as a JSON string.

    An empty string (a tool without parameters on some servers) means ``{}``.
    Text that is not a JSON object does not fail the response: the call
    keeps it in ``invalid_arguments`` (with the parser's message in
    ``arguments_error``) and empty ``arguments``, and the agent loop answers
    it with an error result the model can correct, never running the tool
    with arguments the model did not mean.
    """
    if raw is None or not raw.strip():
        return ToolCall(id=call_id, name=name, arguments={})
    try:
        value = bounded_json(raw)
    except json.JSONDecodeError as exc:
        return _malformed(call_id, name, raw, str(exc))
    if not isinstance(value, dict):
        return _malformed(call_id, name, raw, f"expected an object, got {type(value).__name__}")
    return ToolCall(id=call_id, name=name, arguments=value)


_FENCE = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)


class _WrittenCall(BaseModel):
    """A tool call a model wrote as a JSON object.

    ``name``, and its ``arguments`` (or ``parameters``); any other key is kept
    (``model_extra``), as a parameter put one level too high.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    name: JsonValue
    arguments: JsonValue = None
    parameters: JsonValue = None


def text_tool_call(text: str, offered: Collection[str], call_id: str) -> ToolCall | None:
    """The tool call a model wrote as its answer text, or ``None``.

    Small local models often answer ``{"name": "resolve", "arguments": {...}}``
    as text instead of a structured call. The text counts as a call only when
    it is exactly one JSON object (a ```json fence around it is allowed) with
    ``name`` naming one of the ``offered`` tools and ``arguments`` (or
    ``parameters``) an object, or a string holding one. The call is marked
    ``from_text``.

    Such an object with other keys beside ``arguments`` (``"check": true``
    next to it: a parameter put one level too high) is a call the model
    meant but wrote wrong: it comes back with the text in
    ``invalid_arguments`` and the stray keys named in ``arguments_error``, so
    the agent loop answers it with an error the model can correct instead of
    running it with arguments the model did not mean, or taking it for prose.
    """
    stripped = text.strip()
    fenced = _FENCE.fullmatch(stripped)
    if fenced:
        stripped = fenced.group(1)
    if not stripped.startswith("{"):
        return None
    try:
        value = bounded_json(stripped)
    except json.JSONDecodeError:
        return None
    try:
        call = _WrittenCall.model_validate(value)
    except ValidationError:  # not a JSON object, or no "name"
        return None
    given = sorted(call.model_fields_set & {"arguments", "parameters"})
    if len(given) == 2:
        return None
    where = given[0] if given else None
    arguments: JsonValue = {}
    if where is not None:
        arguments = call.arguments if where == "arguments" else call.parameters
    if isinstance(arguments, str):
        try:
            parsed = bounded_json(arguments) if arguments.strip() else {}
        except json.JSONDecodeError:
            return None
        if not isinstance(parsed, dict):
            return None
        arguments = parsed
    name = call.name
    if not isinstance(name, str) or name not in offered or not isinstance(arguments, dict):
        return None
    stray = list(call.model_extra or {})
    if stray and where is None:
        return None  # no arguments at all: not recognisably a call
    if stray:
        keys = ", ".join(json.dumps(key) for key in stray)
        return ToolCall(
            id=call_id,
            name=name,
            arguments={},
            invalid_arguments=stripped,
            arguments_error=f"{keys} beside {json.dumps(where)}: every parameter goes inside it",
            from_text=True,
        )
    return ToolCall(id=call_id, name=name, arguments=arguments, from_text=True)


_TOOL_CALL_TAG = re.compile(r"<(tool_call|tools)>\s*(?P<body>.*?)\s*(?:</\1>|\Z)", re.DOTALL)
"""``<tool_call>`` blocks, and ``<tools>`` ones: the tag Qwen's template lists the tools in,
which a small model also writes its calls in."""
_FENCED_BLOCK = re.compile(r"```(?:json)?[ \t]*\n?(?P<body>.*?)```", re.DOTALL)


def text_tool_calls(
    text: str, offered: Collection[str], id_prefix: str = "call_text_"
) -> tuple[list[ToolCall], str]:
    """The tool calls a model wrote in its answer text, and the text left around them.

    Read, in this order, the first form that yields calls:

    - the whole text as one call (:func:`text_tool_call`), a JSON list of
      calls, or several calls one after another;
    - ``<tool_call>...</tool_call>`` blocks (Qwen's and Hermes' format; a
      last block cut off before its closing tag counts), and ``<tools>``
      blocks (the tag Qwen's template lists the tools in), each as above;
    - fenced code blocks (```` ```json ````), each as above.

    Every call must name one of the ``offered`` tools with an object of
    arguments (:func:`text_tool_call`'s rules); in the block forms a block
    that is not such a call is left in the text, and one that is, is taken
    out of it. A JSON list counts only when every item is a call; of
    several objects one after another (one per line, as small models write
    a plan), those that are calls are taken and the others stay text (a
    ``resolve`` written before anything is pending). Prose around the calls
    is never read as a call. Returns ``([], text)`` when nothing qualifies.
    Call ids are ``id_prefix`` plus the call's index; each call is marked
    ``from_text``.
    """
    whole, rest = _calls_in(text, offered)
    if whole:
        return _numbered(whole, id_prefix), rest
    for pattern in (_TOOL_CALL_TAG, _FENCED_BLOCK):
        calls: list[ToolCall] = []
        kept: list[str] = []
        last = 0
        for match in pattern.finditer(text):
            found, left = _calls_in(match.group("body"), offered)
            if not found:
                continue
            calls.extend(found)
            kept += [text[last : match.start()], left]
            last = match.end()
        if calls:
            kept.append(text[last:])
            return _numbered(calls, id_prefix), "".join(kept).strip()
    return [], text


def _calls_in(block: str, offered: Collection[str]) -> tuple[list[ToolCall], str]:
    """The calls in ``block`` and what is left of it.

    One call, a JSON list of calls (all of them valid), or objects one after
    another (the calls among them); else ``([], block)``.
    """
    single = text_tool_call(block, offered, "")
    if single is not None:
        return [single], ""
    values = _json_values(block)
    if values is None or not values:
        return [], block
    if len(values) == 1:
        items = values[0][0]
        if not isinstance(items, list) or not items:
            return [], block
        listed = [text_tool_call(json.dumps(item), offered, "") for item in items]
        return ([c for c in listed if c is not None], "") if all(listed) else ([], block)
    calls: list[ToolCall] = []
    left: list[str] = []
    for _, source in values:
        call = text_tool_call(source, offered, "")
        if call is None:
            left.append(source)
        else:
            calls.append(call)
    return (calls, "\n".join(left)) if calls else ([], block)


def _json_values(block: str) -> list[tuple[JsonValue, str]] | None:
    """The JSON values written one after another in ``block``, each with its text.

    Only whitespace may come between them; ``None`` when anything else is there.
    """
    decoder = json.JSONDecoder()
    values: list[tuple[JsonValue, str]] = []
    at = 0
    while True:
        while at < len(block) and block[at].isspace():
            at += 1
        if at == len(block):
            return values
        try:
            value, end = decoder.raw_decode(block, at)
        except json.JSONDecodeError:
            return None
        values.append((value, block[at:end]))
        at = end


def _numbered(calls: list[ToolCall], id_prefix: str) -> list[ToolCall]:
    return [dataclasses.replace(c, id=f"{id_prefix}{i}") for i, c in enumerate(calls)]


def _malformed(call_id: str, name: str, raw: str, error: str) -> ToolCall:
    return ToolCall(
        id=call_id, name=name, arguments={}, invalid_arguments=raw, arguments_error=error
    )


def aborted(provider: str, model: str, text: list[str], thinking: list[str]) -> AssistantMessage:
    """The answer for a cancelled stream: the text and reasoning received so far.

    Tool calls are dropped, since their arguments may be incomplete: the
    history stays valid (no tool call without a result, contract case R3).
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


def openai_messages(
    messages: list[Message],
    items: Callable[[ToolResultMessage | AssistantMessage], list[ItemT]],
    part: Callable[[TextContent | ImageContent], PartT],
) -> list[ItemT | UserContent[PartT]]:
    """Messages in the shape both OpenAI APIs share for user content and tool-result images.

    A user message becomes a :class:`UserContent`: its text as one string, or
    a list of ``part`` blocks when it holds images. Tool results and assistant
    messages become ``items(message)``. The OpenAI APIs take text only in a
    tool's output, so the images of a run of consecutive tool results follow
    that run as one more :class:`UserContent`: the :data:`TOOL_IMAGES_NOTE`
    text, then the images, each as ``part`` makes it.
    """
    out: list[ItemT | UserContent[PartT]] = []
    images: list[ImageContent] = []
    for message in messages:
        if not isinstance(message, ToolResultMessage) and images:
            out.append(_image_message(images, part))
            images = []
        if isinstance(message, UserMessage):
            out.append(UserContent(_user_content(message.content, part)))
        else:
            out.extend(items(message))
        if isinstance(message, ToolResultMessage):
            images.extend(b for b in message.content if isinstance(b, ImageContent))
    if images:
        out.append(_image_message(images, part))
    return out


def _user_content(
    content: list[TextContent | ImageContent], part: Callable[[TextContent | ImageContent], PartT]
) -> str | list[PartT]:
    if not any(isinstance(b, ImageContent) for b in content):
        return joined_text(content)
    return [part(b) for b in content]


def _image_message(
    images: list[ImageContent], part: Callable[[TextContent | ImageContent], PartT]
) -> UserContent[PartT]:
    parts = [part(TextContent(TOOL_IMAGES_NOTE))]
    parts.extend(part(i) for i in images)
    return UserContent(parts)
