"""Every configured MCP server of a session, started together and kept as the session's tool source.

:class:`McpServers` starts the enabled servers concurrently
(:meth:`McpServers.start`: each within its own ``timeout``; one that fails,
hangs or exits is named once and left out), offers the tools of those that
run (:meth:`McpServers.tools`), picks up ``tools/list_changed`` and servers
that stopped between turns (:meth:`McpServers.refresh`), and stops them all
(:meth:`McpServers.close`). Every notice is said once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import Tool
from xcsh.journal.commands import CommandRecorder
from xcsh.mcpclient.connection import ServerConnection, ServerStatus
from xcsh.mcpclient.settings import McpSettings
from xcsh.mcpclient.tools import build_tools
from xcsh.pending import PendingActionStore


@dataclass(frozen=True, kw_only=True)
class ToolsChange:
    """What changed in the servers' tools since last asked.

    Args:
        tools: every MCP tool offered now (replacing the ones offered before).
        notices: what to tell the user, each once (a server stopped, a tool left out).
    """

    tools: tuple[Tool, ...]
    notices: tuple[str, ...] = ()


class McpServers:
    """The session's MCP servers (see the module's docstring).

    Args:
        settings: the servers and ``mcp_tools``.
        workspace: the session's folder.
        log_dir: where stdio servers' stderr goes (``$XCSH_HOME/logs/mcp``).
        env: the environment ``${VAR}`` references are read from.
        offered: the model is offered the servers' tools (the profile and
            ``mcp_tools`` decide); when ``False`` nothing is started.
    """

    def __init__(
        self,
        settings: McpSettings,
        *,
        workspace: Path,
        log_dir: Path,
        env: Mapping[str, str],
        offered: bool = True,
    ) -> None:
        self.settings = settings
        self.workspace = workspace
        self.offered = offered
        self.taken: frozenset[str] = frozenset()
        """Names of the session's other tools (an MCP tool of such a name is left out)."""
        self.store: PendingActionStore | None = None
        """Where deferred calls are pushed (``None``: every tool runs directly)."""
        self.recorder: CommandRecorder | None = None
        """Records what a direct call changes in the workspace, as ``bash`` commands are
        (the session's one recorder; ``None``: not recorded)."""
        self.on_notice: Callable[[str], None] | None = None
        """Receives each notice at once, instead of :meth:`take_notices` (``xcsh mcp``'s stderr)."""
        self._notices: list[str] = []
        self._said: set[str] = set()
        self._changed: set[str] = set()
        self._dirty = False
        self.connections = tuple(
            ServerConnection(
                spec,
                workspace=workspace,
                env=env,
                log_dir=log_dir,
                on_notice=self._notice,
                on_tools_changed=self._watcher(spec.name),
            )
            for spec in settings.servers
        )
        self._offered_tools: tuple[Tool, ...] = ()

    def _notice(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            if self.on_notice is not None:
                self.on_notice(text)
            else:
                self._notices.append(text)
        self._dirty = True

    def _watcher(self, name: str) -> Callable[[], None]:
        def changed() -> None:
            self._changed.add(name)
            self._dirty = True

        return changed

    def take_notices(self) -> tuple[str, ...]:
        """The notices not yet taken, oldest first (each is given once)."""
        taken, self._notices = tuple(self._notices), []
        return taken

    async def start(self) -> None:
        """Start every enabled server concurrently; each within its own ``timeout``.

        Never raises for a server: a failure is its state and a notice.
        """
        if not self.offered:
            return
        await asyncio.gather(*(c.start() for c in self.connections))
        self._offered_tools = self._build()

    def statuses(self) -> list[ServerStatus]:
        """Each server's state and tools, in the settings' order."""
        return [c.status() for c in self.connections]

    def tools(self) -> tuple[Tool, ...]:
        """The MCP tools offered now (those of running servers, and of stopped ones to restart)."""
        return self._offered_tools

    def _build(self) -> tuple[Tool, ...]:
        tools: list[Tool] = []
        for connection in self.connections:
            if connection.status().state not in ("ready", "stopped"):
                continue
            built = build_tools(
                connection,
                store=self.store,
                workspace=self.workspace,
                taken=self.taken,
                recorder=self.recorder,
            )
            tools.extend(built.tools)
            for notice in built.notices:
                self._notice(notice)
        return tuple(tools)

    async def refresh(self) -> ToolsChange | None:
        """Between turns: list again the tools of servers that said they changed.

        Returns:
            The tools offered now and the new notices, or ``None`` when nothing
            changed since the last call.
        """
        if not self._dirty:
            return None
        self._dirty = False
        changed, self._changed = self._changed, set()
        for connection in self.connections:
            if connection.name in changed:
                await connection.relist()
        before = [t.name for t in self._offered_tools]
        self._offered_tools = self._build()
        notices = self.take_notices()
        if [t.name for t in self._offered_tools] == before and not notices and not changed:
            return None
        return ToolsChange(tools=self._offered_tools, notices=notices)

    def session_tools(self, store: PendingActionStore) -> list[Tool]:
        """The tools of running servers built around another store (one ``xcsh mcp`` client's)."""
        tools: list[Tool] = []
        for connection in self.connections:
            if connection.status().state in ("ready", "stopped"):
                built = build_tools(
                    connection, store=store, workspace=self.workspace, taken=self.taken
                )
                tools.extend(built.tools)
        return tools

    async def close(self) -> None:
        """Stop every server (their process trees end); safe to call more than once."""
        await asyncio.gather(*(c.close() for c in self.connections))


__all__ = ["McpServers", "ToolsChange"]
