"""Content blocks carried by tool results and messages."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

import pydantic


@dataclass(frozen=True)
class TextContent:
    """A block of text.

    Args:
        text: the text, any length.
    """

    text: pydantic.StrictStr
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ImageContent:
    """An image, base64-encoded.

    Args:
        data: base64 of the image bytes.
        mime_type: e.g. ``"image/png"`` (read from a dict as ``mime_type`` or ``mimeType``).
    """

    data: pydantic.StrictStr
    mime_type: Annotated[
        pydantic.StrictStr,
        pydantic.Field(validation_alias=pydantic.AliasChoices("mime_type", "mimeType")),
    ]
    type: Literal["image"] = "image"


Content = TextContent | ImageContent


def _content_kind(value: object) -> object:
    return value.get("type", "text") if isinstance(value, dict) else None


def _text_of_string(value: object) -> object:
    return {"text": value} if isinstance(value, str) else value


ContentBlock = Annotated[
    Annotated[TextContent, pydantic.Tag("text")] | Annotated[ImageContent, pydantic.Tag("image")],
    pydantic.Discriminator(_content_kind),
    pydantic.BeforeValidator(_text_of_string),
]
"""A :data:`Content` block as pydantic reads one from JSON data: its fields (a text
block's ``type`` may be left out, an image's ``mime_type`` may be spelt ``mimeType``,
other keys are ignored), or a plain string for a text block."""


def content_from_any(value: object) -> Content:
    """Normalise a content block given as a dataclass, a dict or a plain string.

    Any value is accepted as the argument; only these shapes give a block.

    Dicts follow the shape of the original description's examples:
    ``{"type": "text", "text": ...}`` (``type`` may be left out) or
    ``{"type": "image", "data": ..., "mime_type"|"mimeType": ...}``; other
    keys are ignored. They are read through the one adapter of a
    :data:`ContentBlock`.

    Raises:
        TypeError: the value is none of these shapes.
    """
    if isinstance(value, TextContent | ImageContent):
        return value
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, Mapping):
        try:
            return _block_adapter().validate_python(dict(value))
        except pydantic.ValidationError:
            pass
    raise TypeError(
        f"content block must be TextContent, ImageContent, a str, or a dict with "
        f"type 'text' or 'image'; got {value!r}"
    )


@functools.cache
def _block_adapter() -> pydantic.TypeAdapter[Content]:
    """The one adapter of a content block (built on first use: it costs milliseconds)."""
    return pydantic.TypeAdapter(ContentBlock)
