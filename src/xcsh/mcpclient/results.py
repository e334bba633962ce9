"""A server's ``CallToolResult`` as the result the model and the front ends read.

Text stays text and images stay images; audio, resource links and embedded
resources become a line of text saying what they are (their text, for a text
resource); ``structuredContent`` is added as pretty JSON unless a text block
already holds the same value. The loop cuts each text block at the output
cap and says so (:func:`xcsh.core.cap_content`).
"""

from __future__ import annotations

import json

import mcp_types as types

from xcsh.core import AgentToolResult, Content, ImageContent, TextContent
from xcsh.core.wording import plural


def tool_result(result: types.CallToolResult, *, server: str, tool: str) -> AgentToolResult:
    """The model-facing result of one call of ``tool`` on ``server``.

    An ``isError`` result is an error result; an empty one says that the tool returned
    nothing, so the model never reads an empty answer as a failure of xcsh.
    """
    blocks: list[Content] = []
    for block in result.content:
        blocks.append(_block(block))
    structured = result.structured_content
    if structured is not None and not _already_there(structured, blocks):
        text = json.dumps(structured, indent=2, ensure_ascii=False, sort_keys=False)
        blocks.append(TextContent(f"Structured content:\n{text}"))
    if not blocks:
        blocks.append(TextContent(f"{server}__{tool} returned no content."))
    return AgentToolResult(content=blocks, is_error=bool(result.is_error))


def _block(block: types.ContentBlock) -> Content:
    if isinstance(block, types.TextContent):
        return TextContent(block.text)
    if isinstance(block, types.ImageContent):
        return ImageContent(data=block.data, mime_type=block.mime_type)
    if isinstance(block, types.AudioContent):
        size = len(block.data) * 3 // 4
        return TextContent(f"[audio {block.mime_type}, about {plural(size, 'byte')}: not shown]")
    if isinstance(block, types.ResourceLink):
        what = f" ({block.description})" if block.description else ""
        return TextContent(f"[resource link {block.uri}: {block.name}{what}]")
    resource = block.resource
    if isinstance(resource, types.TextResourceContents):
        return TextContent(f"[resource {resource.uri}]\n{resource.text}")
    size = len(resource.blob) * 3 // 4
    mime = resource.mime_type or "binary"
    return TextContent(f"[resource {resource.uri}: {mime}, about {plural(size, 'byte')}]")


def _already_there(structured: object, blocks: list[Content]) -> bool:
    """Whether the text blocks already carry ``structured``.

    Servers often send both: the same value as JSON text, or (the reference
    filesystem server) ``{"content": <the text>}`` beside that text.
    """
    texts = [b.text for b in blocks if isinstance(b, TextContent)]
    for text in texts:
        try:
            if json.loads(text) == structured:
                return True
        except ValueError:
            continue
    if isinstance(structured, dict) and structured:
        joined = "\n".join(texts)
        return all(isinstance(v, str) and v in joined for v in structured.values())
    return False


__all__ = ["tool_result"]
