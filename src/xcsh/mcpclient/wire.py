"""What passes between xcsh and a server's transport: tools as listed, and the watch on the wire.

:func:`watched` wraps a transport's streams: it says when the server's side
ends (the server exited or closed the connection) and makes every
``tools/list`` answer readable before the SDK checks it
(:func:`repair_listing`), so one tool with a bad schema never costs the
server. A line a stdio server prints on stdout that is no JSON-RPC message
(debug output, a banner) reaches the SDK as a parse failure; it is handed to
``on_noise`` instead (the connection writes it to the server's log) and the
session goes on; the SDK's own logging of it (a traceback on stderr) is
dropped (:func:`quiet_parse_failures`). :func:`list_tools` lists every tool
as a :class:`RemoteTool`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field

import anyio
import mcp_types as types
import pydantic
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


PARSE_FAILURE = "Failed to parse JSONRPC message from server"
"""What the SDK's stdio transport logs, with a traceback, for each line that is no message."""


def _not_a_parse_failure(record: logging.LogRecord) -> bool:
    return record.msg != PARSE_FAILURE


def quiet_parse_failures() -> None:
    """Drop the SDK's traceback for a stdout line that is no JSON-RPC message (idempotent).

    :func:`watched` hands such lines to the connection, which logs them per server.
    """
    logging.getLogger("mcp.client.stdio").addFilter(_not_a_parse_failure)


def noise_line(failure: Exception) -> str:
    """The stdout line a parse failure was about (as sent when the SDK keeps it)."""
    if isinstance(failure, pydantic.ValidationError):
        errors = failure.errors(include_url=False)
        if errors and "input" in errors[0]:
            given = errors[0]["input"]
            return given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
    return str(failure).splitlines()[0] if str(failure) else type(failure).__name__


@asynccontextmanager
async def watched(
    inner: AbstractAsyncContextManager[TransportStreams],
    ended: Callable[[], None],
    notes: dict[str, tuple[str, str]],
    on_noise: Callable[[str], None] | None = None,
) -> AsyncIterator[TransportStreams]:
    """``inner``'s streams, with ``ended()`` called when the server's side ends.

    Each ``tools/list`` answer is made readable on the way (:func:`repair_listing`);
    a line that was no JSON-RPC message goes to ``on_noise`` (its text), not to the SDK.
    """
    async with inner as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        # the SDK's read and write stream protocols are what anyio's memory streams are

        async def pump() -> None:
            try:
                async with send:
                    async for item in read:
                        if isinstance(item, Exception) and on_noise is not None:
                            on_noise(noise_line(item))
                            continue
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


__all__ = [
    "PARSE_FAILURE",
    "RemoteTool",
    "list_tools",
    "noise_line",
    "quiet_parse_failures",
    "repair_listing",
    "watched",
]
