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


def content_from_any(value: object) -> Content:
    """Normalise a content block given as a dataclass, a dict or a plain string.

    Any value is accepted as the argument; only these shapes give a block.

    Dicts follow the shape of the original description's examples:
    ``{"type": "text", "text": ...}`` (``type`` may be left out) or
    ``{"type": "image", "data": ..., "mime_type"|"mimeType": ...}``; other
    keys are ignored. They are read through one pydantic adapter.

    Raises:
        TypeError: the value is none of these shapes.
    """
    if isinstance(value, TextContent | ImageContent):
        return value
    if isinstance(value, str):
        return TextContent(value)
    if isinstance(value, Mapping):
        try:
            return _block_adapter().validate_python(dict(value)).block()
        except pydantic.ValidationError:
            pass
    raise TypeError(
        f"content block must be TextContent, ImageContent, a str, or a dict with "
        f"type 'text' or 'image'; got {value!r}"
    )


class _TextBlock(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="ignore")

    text: pydantic.StrictStr

    def block(self) -> TextContent:
        return TextContent(self.text)


class _ImageBlock(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="ignore")

    data: pydantic.StrictStr
    mime_type: pydantic.StrictStr = pydantic.Field(
        validation_alias=pydantic.AliasChoices("mime_type", "mimeType")
    )

    def block(self) -> ImageContent:
        return ImageContent(self.data, self.mime_type)


def _block_kind(value: object) -> object:
    return value.get("type", "text") if isinstance(value, dict) else None


_Block = Annotated[
    Annotated[_TextBlock, pydantic.Tag("text")] | Annotated[_ImageBlock, pydantic.Tag("image")],
    pydantic.Discriminator(_block_kind),
]


@functools.cache
def _block_adapter() -> pydantic.TypeAdapter[_TextBlock | _ImageBlock]:
    """The one adapter of a content block given as a dict (built on first use)."""
    return pydantic.TypeAdapter(_Block)
