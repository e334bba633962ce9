"""Another server's tools as xcsh tools: ``NAME__tool``, run directly or previewed.

A tool the server marks ``readOnlyHint: true`` runs when the model calls it;
any other (destructive, or with no annotations) is deferred: the call becomes
a pending action whose preview shows the server, the tool, its annotations
and the arguments (:mod:`xcsh.mcpclient.preview`), and ``resolve apply``
makes the real call. ``mode`` and ``tool_modes`` in the server's settings
choose ``direct`` or ``preview`` per server or per tool. A tool that takes a
dry-run argument is previewed by its own dry run. Progress notifications
reach the front ends as the call's updates; cancelling the call (Ctrl-C)
sends ``notifications/cancelled``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    JsonValue,
    Progress,
    TextContent,
    Tool,
    ToolCallContext,
    ToolError,
    running_tool_call,
)
from xcsh.journal.commands import CommandRecorder
from xcsh.mcpclient.connection import (
    ServerCallError,
    ServerConnection,
    ServerUnavailableError,
)
from xcsh.mcpclient.paths import DESTINATION_KEYS, PATH_KEYS, first_path, protected_refusal
from xcsh.mcpclient.preview import McpCallEffect, build_preview, dry_run_parameter
from xcsh.mcpclient.recording import recorded_call
from xcsh.mcpclient.results import tool_result
from xcsh.mcpclient.schema import check_schema
from xcsh.mcpclient.settings import SEPARATOR
from xcsh.mcpclient.wire import RemoteTool
from xcsh.pending import PendingAction, PendingActionStore

_NOT_A_NAME_CHAR = re.compile(r"[^A-Za-z0-9_-]")
MAX_NAME = 64
"""The longest tool name providers take."""


@dataclass(frozen=True, kw_only=True)
class BuiltTools:
    """A server's tools as xcsh tools, and what was said about the ones left out or repaired.

    Args:
        tools: the tools, in the server's order.
        notices: one line per tool left out (name or schema) or repaired.
    """

    tools: tuple[Tool, ...] = ()
    notices: tuple[str, ...] = ()


def tool_name(server: str, tool: str) -> str:
    """``server__tool``, any character providers refuse in the tool's name made ``_``."""
    return f"{server}{SEPARATOR}{_NOT_A_NAME_CHAR.sub('_', tool)}"


def build_tools(
    connection: ServerConnection,
    *,
    store: PendingActionStore | None,
    workspace: Path,
    taken: frozenset[str] = frozenset(),
    recorder: CommandRecorder | None = None,
) -> BuiltTools:
    """The xcsh tools of ``connection``'s current tools.

    Args:
        connection: a server (its last listed tools are used).
        store: the session's store deferred calls are pushed on (``None``: every
            tool runs directly, as in a listing).
        workspace: the workspace folder, for the previews' file diffs.
        taken: names other tools already use (a clash leaves the MCP tool out).
        recorder: the session's command recorder: what a call made directly of a
            tool that is not read-only changes in the workspace is recorded with it,
            as a ``bash`` command's changes are (``None``: not recorded).
    """
    tools: list[Tool] = []
    notices: list[str] = []
    server = connection.name
    seen: set[str] = set()
    for remote in connection.tools:
        name = tool_name(server, remote.name)
        where = f"MCP server {server}: tool {remote.name!r}"
        if len(name) > MAX_NAME:
            notices.append(f"{where} is left out: {name} is longer than {MAX_NAME} characters")
            continue
        if name in taken or name in seen:
            notices.append(f"{where} is left out: another tool is already named {name}")
            continue
        if remote.refused:
            notices.append(f"{where} is left out: {remote.refused}")
            continue
        checked = check_schema(remote.input_schema)
        if checked.schema is None:
            notices.append(f"{where} is left out: {checked.problem}")
            continue
        repaired = remote.repaired or checked.repaired
        if repaired:
            notices.append(f"{where}: {repaired}")
        seen.add(name)
        tools.append(_tool(connection, remote, name, checked.schema, store, workspace, recorder))
    return BuiltTools(tools=tuple(tools), notices=tuple(notices))


def _tool(
    connection: ServerConnection,
    remote: RemoteTool,
    name: str,
    schema: dict[str, JsonValue],
    store: PendingActionStore | None,
    workspace: Path,
    recorder: CommandRecorder | None,
) -> Tool:
    server = connection.name
    mode = connection.spec.mode_of(remote.name, remote.read_only)
    deferred = mode == "preview" and store is not None
    dry_flag = dry_run_parameter(schema)
    how = (
        "previewed: the call is made only when `resolve` applies it"
        if deferred
        else "runs when called"
    )
    description = (remote.description or remote.title or remote.name).strip()
    description += f"\n(Tool {remote.name} of MCP server {server}; {how}.)"

    def refuse(arguments: Mapping[str, JsonValue]) -> None:
        """A call of a tool that may write, naming a place in .git, .hg or .xcsh, is not made."""
        if remote.read_only:
            return  # reading there is what xcsh's own read does too
        refusal = protected_refusal(arguments, workspace)
        if refusal is not None:
            raise ToolError(
                f"The call of {remote.name} on MCP server {server} was not made. {refusal}"
            )

    async def run(params: Mapping[str, JsonValue], ctx: ToolCallContext) -> AgentToolResult:
        arguments = dict(params)
        refuse(arguments)
        if dry_flag is not None and arguments.get(dry_flag) is True:
            return await call_tool(connection, remote.name, arguments, ctx)  # writes nothing
        if not deferred:
            if recorder is None or remote.read_only:
                return await call_tool(connection, remote.name, arguments, ctx)
            return await recorded_call(
                recorder,
                label=f"MCP: {name}{_target(arguments)}",
                tool=name,
                call=lambda: call_tool(connection, remote.name, arguments, ctx),
            )
        assert store is not None
        dry_text = ""
        if dry_flag is not None:
            dry = await call_tool(connection, remote.name, {**arguments, dry_flag: True}, ctx)
            if dry.is_error:
                return dry  # the server refused even to say what it would do
            dry_text = dry.text
        preview = build_preview(
            server=server,
            tool=remote.name,
            annotations=remote.annotations,
            arguments=arguments,
            workspace=workspace,
            dry_run=dry_text,
        )
        label = f"MCP {server}: {remote.name}" + _target(arguments)
        kept = {k: v for k, v in arguments.items() if k != dry_flag}

        async def real_call(values: Mapping[str, object]) -> AgentToolResult:
            refuse(arguments)  # a link made since the preview may lead there now
            return await call_tool(connection, remote.name, values, running_tool_call())

        effect = McpCallEffect(label=label, call=real_call, arguments=kept)
        action = store.push(
            PendingAction(
                label=label,
                source_tool_name=name,
                effect=effect,
                preview=preview.preview(),
            )
        )
        text = (
            f"Preview {action.id}: the call of {remote.name} on MCP server {server} was not "
            f'made.\n{preview.text}Call `resolve` with action "apply" to make the call, '
            'or "discard" to drop it.'
        )
        return AgentToolResult(content=[TextContent(text)])

    return AgentTool(
        name=name,
        label=f"{server}: {remote.title or remote.name}",
        description=description,
        parameters=schema,
        run=run,
        read_only=mode == "direct" and remote.read_only,
    )


def _target(arguments: Mapping[str, JsonValue]) -> str:
    """`` notes.txt`` for a call naming a path, to tell previews apart in the stack."""
    value = first_path(arguments, PATH_KEYS) or first_path(arguments, DESTINATION_KEYS)
    if value is None:
        return ""
    return f" {value if len(value) <= 60 else '...' + value[-57:]}"


def progress_text(done: float, total: float | None, message: str | None) -> str:
    """``40% (4/10): indexing`` or ``4: indexing`` for one progress notification."""
    amount = f"{done:g}"
    if total:
        amount = f"{round(100 * done / total)}% ({done:g}/{total:g})"
    return f"{amount}: {message}" if message else amount


async def call_tool(
    connection: ServerConnection,
    tool: str,
    arguments: Mapping[str, object],
    ctx: ToolCallContext | None,
) -> AgentToolResult:
    """Call ``tool`` now; progress goes to ``ctx``'s updates.

    Raises:
        ToolError: the server is not running, timed out or went away (the model
            reads why; the session goes on).
    """

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if ctx is not None:
            text = progress_text(progress, total, message)
            ctx.update(AgentToolResult(content=[TextContent(text)], details=Progress(text=text)))

    try:
        result = await connection.call(tool, arguments, progress=on_progress)
    except (ServerUnavailableError, ServerCallError) as exc:
        raise ToolError(str(exc)) from exc
    return tool_result(result, server=connection.name, tool=tool)


__all__ = ["BuiltTools", "build_tools", "call_tool", "progress_text", "tool_name"]
