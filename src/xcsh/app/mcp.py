"""The MCP servers of a session: the user's and a trusted project's, started and policed.

:func:`session_servers` reads which servers a session in a folder starts (the
user's ``[mcp_servers]``, and the project's own ``.xcsh/settings.toml`` once
the folder is trusted: starting them runs the project's programs, so its
trust fingerprint covers that file). :class:`PolicedServers` is the
session's tool source: the servers' tools, each wrapped in the user's
``[approval]`` rules, which apply to MCP tools by name (``fs__write_file =
"deny"``) as they do to built-in ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.agent import ToolsUpdate, compact_schema_warning
from xcsh.checks.keys import PROJECT_SETTINGS
from xcsh.core import Tool, UsageError
from xcsh.fs import read_settings_file
from xcsh.mcpclient.settings import SEPARATOR, McpKeys, McpSettings, read_mcp_settings
from xcsh.plugins.trust import how_to_trust, is_trusted

if TYPE_CHECKING:
    from xcsh.mcpclient.servers import McpServers


@dataclass(frozen=True, kw_only=True)
class ServersUpdate:
    """The servers' tools now (policed) and the notices that go with them."""

    tools: tuple[Tool, ...]
    notices: tuple[str, ...] = ()


class PolicedServers:
    """A session's :class:`~xcsh.agent.ToolSource`: the servers' tools under the approval rules.

    Args:
        servers: the session's servers.
        police: wraps tools in the user's approval rules.
    """

    def __init__(self, servers: McpServers, police: Callable[[Sequence[Tool]], list[Tool]]) -> None:
        self.servers = servers
        self._police = police

    def tools(self) -> Sequence[Tool]:
        """The servers' tools now, policed."""
        return self._police(self.servers.tools())

    async def refresh(self) -> ToolsUpdate | None:
        """What changed between turns (lists changed, a server stopped), policed."""
        change = await self.servers.refresh()
        if change is None:
            return None
        return ServersUpdate(tools=tuple(self._police(change.tools)), notices=change.notices)


def session_servers(
    user: McpSettings, cwd: Path, home: Path, *, trust_project: bool
) -> tuple[McpSettings, tuple[str, ...]]:
    """The servers a session in ``cwd`` starts, and notices about the project's.

    A project's ``.xcsh/settings.toml`` adds its ``[mcp_servers]`` when the folder is
    trusted at its current fingerprint (``xcsh trust``) or ``trust_project`` is set;
    otherwise a notice says they were not started and how to trust the folder.

    Raises:
        UsageError: the project's file is unreadable or its servers' tables are bad
            (only when they would be used).
    """
    path = cwd / PROJECT_SETTINGS
    try:
        values = read_settings_file(path)
    except UsageError:
        values = None  # the check's reading of the same file reports it
    if not values or "mcp_servers" not in values:
        return user, ()
    if not (trust_project or is_trusted(cwd, home)):
        return user, (
            f"MCP servers in {path} were not started: the folder {cwd} is not trusted "
            f"(they are programs the repository names). {how_to_trust(cwd)}",
        )
    keys = McpKeys.from_file({"mcp_servers": values["mcp_servers"]}, str(path))
    project = read_mcp_settings(keys, str(path))
    return user.with_project(project)


def configured_prefixes(settings: McpSettings) -> tuple[str, ...]:
    """``NAME__`` for each configured server: approval rules may name their tools in advance."""
    return tuple(f"{s.name}{SEPARATOR}" for s in settings.servers)


def open_servers(
    settings: McpSettings, cwd: Path, home: Path, *, profile: str, env: Mapping[str, str]
) -> McpServers | None:
    """The session's servers (not started), offered only when ``mcp_tools`` and the profile say.

    ``None`` when no server is configured or none is offered (the SDK is not even loaded).
    """
    if not settings.servers or not settings.offered(profile):
        return None
    from xcsh.mcpclient.servers import McpServers

    return McpServers(
        settings,
        workspace=cwd,
        log_dir=home / "logs" / "mcp",
        env=env,
        offered=settings.offered(profile),
    )


def schema_warning(
    profile: str, tools: Iterable[Tool], mcp: McpSettings, window: int | None = None
) -> str:
    """The compact profile's warning when the tools offered pass what llama.cpp can take.

    ``""`` in the full profile, with no MCP server, or when the tool list is small enough
    for the server's context ``window`` in tokens (:func:`xcsh.agent.compact_schema_warning`).
    """
    if profile != "compact" or not mcp.servers or not mcp.offered(profile):
        return ""
    return compact_schema_warning(tools, window)


__all__ = [
    "PolicedServers",
    "ServersUpdate",
    "configured_prefixes",
    "open_servers",
    "schema_warning",
    "session_servers",
]
