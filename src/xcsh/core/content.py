"""Content blocks carried by tool results and messages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class TextContent:
    """A block of text.

    Args:
        text: the text, any length.
    """

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ImageContent:
    """An image, base64-encoded.

    Args:
        data: base64 of the image bytes.
        mime_type: e.g. ``"image/png"``.
    """

    data: str
    mime_type: str
    type: Literal["image"] = "image"


Content = TextContent | ImageContent


def content_from_any(value: Content | Mapping[str, object] | str) -> Content:
    """Normalise a content block given as a dataclass, a dict or a plain string.

    Dicts follow the shape of the original description's examples:
    ``{"type": "text", "text": ...}`` or
    ``{"type": "image", "data": ..., "mime_type"|"mimeType": ...}``.

    Raises:
        TypeError: the value is none of these shapes.
    """
    if isinstance(value, TextContent | ImageContent):
        return value
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, Mapping):
        kind = value.get("type", "text")
        text = value.get("text")
        if kind == "text" and isinstance(text, str):
            return TextContent(text)
        data = value.get("data")
        if kind == "image" and isinstance(data, str):
            mime = value.get("mime_type", value.get("mimeType"))
            if isinstance(mime, str):
                return ImageContent(data, mime)
    raise TypeError(
        f"content block must be TextContent, ImageContent, a str, or a dict with "
        f"type 'text' or 'image'; got {value!r}"
    )
