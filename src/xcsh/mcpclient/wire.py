"""What passes between xcsh and a server's transport: tools as listed, and the watch on the wire.

:func:`watched` wraps a transport's streams: it says when the server's side
ends (the server exited or closed the connection) and makes every
``tools/list`` answer readable before the SDK checks it
(:func:`repair_listing`), so one tool with a bad schema never costs the
server. :func:`list_tools` lists every tool as a :class:`RemoteTool`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field

import anyio
import mcp_types as types
from mcp import Client
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import JSONRPCResponse


@dataclass(frozen=True, kw_only=True)
class RemoteTool:
    """A tool as the server lists it.

    Args:
        name: its name on the server.
        title: its title (``""``: none).
        description: what the server says it does.
        input_schema: its ``inputSchema`` as sent.
        annotations: its behaviour hints (``None``: the server gave none).
        repaired: what was changed in its input schema so it could be read (``""``: nothing).
        refused: why its input schema cannot be offered (``""``: it can).
    """

    name: str
    title: str = ""
    description: str = ""
    input_schema: Mapping[str, object] = field(default_factory=dict)
    annotations: types.ToolAnnotations | None = None
    repaired: str = ""
    refused: str = ""

    @property
    def read_only(self) -> bool:
        """True when the server says the tool changes nothing (``readOnlyHint: true``)."""
        return self.annotations is not None and self.annotations.read_only_hint is True


async def list_tools(client: Client, notes: Mapping[str, tuple[str, str]]) -> list[RemoteTool]:
    """Every tool the server lists, following its pages (at most 100).

    ``notes`` holds, by tool, what :func:`repair_listing` did to its schema.
    """
    found: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            found.append(
                RemoteTool(
                    name=tool.name,
                    title=tool.title or "",
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema),
                    annotations=tool.annotations,
                    repaired=notes.get(tool.name, ("", ""))[0],
                    refused=notes.get(tool.name, ("", ""))[1],
                )
            )
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def repair_listing(
    item: SessionMessage | Exception, notes: dict[str, tuple[str, str]]
) -> SessionMessage | Exception:
    """A ``tools/list`` answer the SDK can read, whatever schemas its tools have.

    The SDK refuses a whole listing when one tool's ``inputSchema`` lacks ``"type":
    "object"``, so one bad tool would cost the server. Before the SDK reads the
    answer, such a schema is repaired (no ``type``: the top level of arguments is an
    object) or replaced by an empty object schema with the tool marked refused (not
    an object); ``notes`` records ``(repaired, refused)`` by tool name.
    """
    if not isinstance(item, SessionMessage) or not isinstance(item.message, JSONRPCResponse):
        return item
    listed = item.message.result.get("tools")
    if not isinstance(listed, list):
        return item
    fixed: list[object] = []
    changed = False
    for tool in listed:
        if isinstance(tool, dict):
            name = str(tool.get("name", ""))
            schema = tool.get("inputSchema")
            note: tuple[str, str] | None = None
            if not isinstance(schema, dict):
                note = ("", "its input schema is not a JSON object")
            elif "type" not in schema:
                note = ('added "type": "object" to its input schema', "")
                tool = {**tool, "inputSchema": {**schema, "type": "object"}}
            elif schema.get("type") != "object":
                note = ("", f'its input schema is of type {schema.get("type")!r}, not "object"')
            if note is not None:
                notes[name] = note
                changed = True
                if note[1]:
                    tool = {**tool, "inputSchema": {"type": "object"}}
        fixed.append(tool)
    if not changed:
        return item
    result = {**item.message.result, "tools": fixed}
    message = JSONRPCResponse(jsonrpc="2.0", id=item.message.id, result=result)
    return SessionMessage(message=message, metadata=item.metadata)


@asynccontextmanager
async def watched(
    inner: AbstractAsyncContextManager[TransportStreams],
    ended: Callable[[], None],
    notes: dict[str, tuple[str, str]],
) -> AsyncIterator[TransportStreams]:
    """``inner``'s streams, with ``ended()`` called when the server's side ends.

    Each ``tools/list`` answer is made readable on the way (:func:`repair_listing`).
    """
    async with inner as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        # the SDK's read and write stream protocols are what anyio's memory streams are

        async def pump() -> None:
            try:
                async with send:
                    async for item in read:
                        await send.send(repair_listing(item, notes))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass
            finally:
                ended()

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()


__all__ = ["RemoteTool", "list_tools", "repair_listing", "watched"]
