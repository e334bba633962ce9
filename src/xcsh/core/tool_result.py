"""A tool call's result: :class:`AgentToolResult`, the shapes a tool may return, and the cap.

A tool (or a pending action's ``apply``/``reject``) may return a result, a
string or a dict shaped like the original description's examples; the
``coerce_*`` functions turn each into an :class:`AgentToolResult`. The
``cap_*`` functions cut a result's text to :data:`MAX_RESULT_CHARS`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Generic

import pydantic
from typing_extensions import TypeVar

from xcsh.core.content import Content, TextContent, content_from_any

D = TypeVar("D", covariant=True, default=object)
"""The type of a result's ``details``: a built-in tool's :class:`~xcsh.core.details.ToolDetails`
subclass; ``object`` (opaque) for a custom tool's."""


@dataclass(frozen=True)
class AgentToolResult(Generic[D]):
    """What a tool call returns (frozen: build a new one to change it).

    Args:
        content: blocks for the model (text or images), in order.
        details: structured data for front ends; never sent to the model. A
            built-in tool's is its frozen details value (``AgentToolResult[BashDetails]``).
        is_error: True when the call failed; the text says why.
    """

    content: list[Content] = field(default_factory=list)
    details: D | None = None
    is_error: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", [content_from_any(block) for block in self.content])

    @property
    def text(self) -> str:
        """The non-empty text blocks joined by newlines (images left out)."""
        return "\n".join(
            block.text for block in self.content if isinstance(block, TextContent) and block.text
        )


def text_result(text: str, *, details: object = None, is_error: bool = False) -> AgentToolResult:
    """Build a result holding one text block (``details`` of any type, kept as given)."""
    return AgentToolResult(content=[TextContent(text)], details=details, is_error=is_error)


TOOL_RESULT_SHAPES = "an AgentToolResult, a str, or a dict with 'content'"
"""What a tool's ``run``/``execute`` may return, as error messages name it."""
CALLBACK_RESULT_SHAPES = "an AgentToolResult, a str, a dict with 'content', or None"
"""What a pending action's ``apply``/``reject`` may return (``None``: the default text)."""


def describe_value_type(value: object) -> str:
    """``None``, ``an int``, ``a str``: a value's type with its article, for messages."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def coerce_result(value: object) -> AgentToolResult | None:
    """Accept what a pending action's ``apply``/``reject`` returns (contract §1).

    Accepts an ``AgentToolResult``, ``None`` (returned as ``None``: the caller
    uses its default text), a ``str`` (one text block), or a dict shaped like
    the description's examples (``{"content": [...], "details": ...,
    "is_error"|"isError": ...}``). A tool's own result may not be ``None``:
    use :func:`coerce_tool_result` for those.

    Raises:
        TypeError: any other value; the message names :data:`CALLBACK_RESULT_SHAPES`
            and the type received.
    """
    if value is None:
        return None
    return _coerce(value, CALLBACK_RESULT_SHAPES)


def coerce_tool_result(value: object) -> AgentToolResult:
    """Accept what a tool's ``run``/``execute`` returns, refusing ``None``.

    Like :func:`coerce_result`, but ``None`` is refused, since every tool call must
    give the model a result.

    Raises:
        TypeError: ``None`` or any other unaccepted value; the message names
            :data:`TOOL_RESULT_SHAPES` and the type received.
    """
    if value is None:
        raise TypeError(f"expected {TOOL_RESULT_SHAPES}; got None")
    return _coerce(value, TOOL_RESULT_SHAPES)


def _coerce(value: object, accepted: str) -> AgentToolResult:
    if isinstance(value, AgentToolResult):
        return value
    if isinstance(value, str):
        return text_result(value)
    if isinstance(value, Mapping):
        read = _ResultDict.model_validate(dict(value))
        return AgentToolResult(content=read.content, details=read.details, is_error=read.is_error)
    raise TypeError(f"expected {accepted}; got {describe_value_type(value)}")


def _content_blocks(value: object) -> list[Content]:
    """A dict result's ``content``: a list of blocks, or one string.

    Raises:
        TypeError: ``value`` is not iterable, or one of its items is not a
            content block (:func:`content_from_any`'s message).
    """
    blocks = [value] if isinstance(value, str) else value
    if not isinstance(blocks, Iterable):
        raise TypeError(f"{type(blocks).__name__!r} object is not iterable")
    return [content_from_any(block) for block in blocks]


class _ResultDict(pydantic.BaseModel):
    """A result given as a dict, as the original description's examples write it.

    ``{"content": [...] | "text", "details": ..., "is_error"|"isError": ...}``;
    other keys are ignored, and any truthy ``is_error`` counts.
    """

    model_config = pydantic.ConfigDict(frozen=True, extra="ignore")

    content: Annotated[list[Content], pydantic.PlainValidator(_content_blocks)] = []
    details: object = None
    is_error: Annotated[bool, pydantic.BeforeValidator(bool)] = pydantic.Field(
        default=False, validation_alias=pydantic.AliasChoices("is_error", "isError")
    )


MAX_RESULT_CHARS = 50_000
"""Default cap on one text block of a tool result: about 12,000 tokens, enough
for any useful answer, small enough that a runaway result cannot fill a
model's context (and every later request of the session)."""


def cap_text(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """``text`` cut to at most about ``limit`` characters, keeping its head and tail.

    The middle is replaced by a note saying how many characters (and lines)
    were cut, so the reader knows the text is incomplete. Text within the
    limit is returned unchanged.

    Args:
        text: any text.
        limit: the most characters kept (the note comes on top); at least 2.
    """
    if len(text) <= limit:
        return text
    head = text[: limit // 2]
    tail = text[len(text) - (limit - len(head)) :]
    cut = text[len(head) : len(text) - len(tail)]
    lines = cut.count("\n")
    lines_note = f", {lines} line break{'s' if lines != 1 else ''}" if lines else ""
    note = (
        f"\n[... {len(cut)} characters cut{lines_note}: this text had {len(text)} "
        f"characters, more than the {limit} shown ...]\n"
    )
    return head + note + tail


def cap_content(content: list[Content], limit: int = MAX_RESULT_CHARS) -> list[Content]:
    """``content`` with each text block cut by :func:`cap_text` (images kept).

    Returns the same list object when nothing was cut.
    """
    if all(not isinstance(b, TextContent) or len(b.text) <= limit for b in content):
        return content
    return [
        TextContent(cap_text(b.text, limit)) if isinstance(b, TextContent) else b for b in content
    ]


def cap_result(result: AgentToolResult[D], limit: int = MAX_RESULT_CHARS) -> AgentToolResult[D]:
    """``result`` with its text blocks capped (:func:`cap_content`); ``details`` untouched.

    Returns ``result`` itself when nothing was cut. The agent loop applies it
    to every tool call's result and the MCP server to every result it sends,
    so a custom tool that returns megabytes cannot overflow the model's
    context or the session file.
    """
    content = cap_content(result.content, limit)
    if content is result.content:
        return result
    return AgentToolResult(content=content, details=result.details, is_error=result.is_error)
