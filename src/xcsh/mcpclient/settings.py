"""The ``[mcp_servers.NAME]`` tables of a settings file, checked into :class:`ServerSpec` values.

In ``$XCSH_HOME/settings.toml`` (and in a trusted project's ``.xcsh/settings.toml``)::

    mcp_tools = "auto"              # "auto" (default), "all" or "none": see below

    [mcp_servers.fs]                # a server run over stdio
    command = "npx"
    args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
    env = { API_TOKEN = "${MY_TOKEN}" }   # ${VAR} names a variable of xcsh's environment
    cwd = "."                       # relative to the workspace (default: the workspace)
    enabled = true                  # false: configured, never started
    tools = ["read_file", "write_file"]   # allow list (default: every tool)
    timeout = 60                    # seconds to start, and for each call
    mode = "preview"                # default for tools not read-only: "preview" or "direct"
    tool_modes = { write_file = "direct" }

    [mcp_servers.tracker]           # a server over Streamable HTTP
    url = "https://tracker.example/mcp"
    headers = { Authorization = "Bearer ${TRACKER_TOKEN}" }

Values of ``env`` and ``headers`` are read from the environment when the server
starts (:func:`expand`) and are never written anywhere by xcsh: not to the
session file, not to a log. ``mcp_tools``: ``auto`` offers every server's tools
in the full profile and none in the compact one; ``all`` offers them in both;
``none`` in neither.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.validation import Problem

CallMode = Literal["direct", "preview"]
"""How a tool call runs: ``direct`` (when the model calls it) or ``preview`` (a pending action)."""
McpToolsSetting = Literal["auto", "all", "none"]
"""The values of the ``mcp_tools`` setting."""
MCP_TOOLS_SETTINGS: tuple[McpToolsSetting, ...] = ("auto", "all", "none")

SEPARATOR = "__"
"""Between a server's name and its tool's in the name the model calls: ``fs__write_file``."""

DEFAULT_TIMEOUT = 60.0
"""Seconds a server may take to start, and a call to answer, unless ``timeout`` says otherwise."""

SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$")
"""A server's name: letters, digits, ``-`` and single ``_`` (``__`` separates it from a tool's)."""
MAX_SERVER_NAME = 24
"""A server's name leaves room for its tools' names within the 64 characters providers take."""

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HOW = (
    'write for instance [mcp_servers.fs] with command = "npx" and args = [...], '
    'or url = "http://127.0.0.1:8765/mcp"'
)


class _ServerTable(BaseModel):
    """One ``[mcp_servers.NAME]`` table as written; unknown keys are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: StrictStr | None = None
    args: list[StrictStr] = Field(default_factory=list)
    env: dict[str, StrictStr] = Field(default_factory=dict)
    cwd: StrictStr | None = None
    url: StrictStr | None = None
    headers: dict[str, StrictStr] = Field(default_factory=dict)
    enabled: StrictBool = True
    tools: list[StrictStr] | None = None
    timeout: float = DEFAULT_TIMEOUT
    mode: CallMode | None = None
    tool_modes: dict[str, CallMode] = Field(default_factory=dict)


class McpKeys(SettingsKeys):
    """The MCP keys of a settings file's top level: ``mcp_servers`` tables and ``mcp_tools``.

    Each server's table is checked here as a whole (:class:`_ServerTable`);
    what pydantic refuses is worded with the file, the server and the key.
    """

    mcp_servers: dict[str, _ServerTable] = Field(default_factory=dict)
    mcp_tools: McpToolsSetting = "auto"

    @classmethod
    def refusal(
        cls, found: Sequence[Problem], given: Mapping[str, object], source: str
    ) -> UsageError:
        """The first refused value: ``mcp_tools``, the servers' table, a server, or its key."""
        first = found[0]
        if first.key == "mcp_tools":
            return UsageError(
                f'{source}: mcp_tools must be "auto", "all" or "none", not {first.got!r}',
                hint='mcp_tools = "all" offers MCP tools to small models too',
            )
        place = first.path
        if len(place) == 1:
            return UsageError(f"{source}: mcp_servers must be a table of servers", hint=_HOW)
        where = f"{source}: mcp_servers.{place[1]}"
        if len(place) == 2:
            return UsageError(f"{where} must be a table", hint=_HOW)
        inner = ".".join(place[2:])
        got = f" (got {first.got!r})" if first.shown else ""
        return UsageError(f"{where}.{inner}: {first.message}{got}", hint=_key_hint(place[2]))


MCP_KEYS = tuple(McpKeys.model_fields)
"""The settings.toml keys this module reads (a trusted project's file may set them too)."""


@dataclass(frozen=True, kw_only=True)
class ServerSpec:
    """One configured MCP server.

    Args:
        name: its name in the settings (the prefix of its tools: ``NAME__tool``).
        source: the settings file it comes from (named in messages).
        command: the program of a stdio server (``""`` for an HTTP one).
        args: its arguments.
        env: variables set for it, each value as written (``${VAR}`` expanded at start).
        cwd: where it runs (relative to the workspace; ``""``: the workspace).
        url: the Streamable HTTP endpoint (``""`` for a stdio server).
        headers: HTTP headers, each value as written (``${VAR}`` expanded at start).
        enabled: ``False``: listed, never started.
        tools: the allow list (``None``: every tool).
        timeout: seconds to start, and for each call.
        mode: how its tools that are not read-only run (``None``: preview them).
        tool_modes: per tool, ``direct`` or ``preview`` (wins over ``mode`` and annotations).
    """

    name: str
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True
    tools: frozenset[str] | None = None
    timeout: float = DEFAULT_TIMEOUT
    mode: CallMode | None = None
    tool_modes: Mapping[str, CallMode] = field(default_factory=dict)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        """``"http"`` for a server with a ``url``, else ``"stdio"``."""
        return "http" if self.url else "stdio"

    @property
    def where(self) -> str:
        """The command line or the URL, for listings (no environment or header values)."""
        if self.url:
            return self.url
        return " ".join([self.command, *self.args])

    def allows(self, tool: str) -> bool:
        """Whether the allow list lets ``tool`` in."""
        return self.tools is None or tool in self.tools

    def mode_of(self, tool: str, read_only: bool) -> CallMode:
        """How a call of ``tool`` runs: its ``tool_modes`` entry, else by annotations and mode."""
        chosen = self.tool_modes.get(tool)
        if chosen is not None:
            return chosen
        if read_only:
            return "direct"
        return self.mode or "preview"


@dataclass(frozen=True, kw_only=True)
class McpSettings:
    """The MCP client's settings.

    Args:
        servers: every configured server, in the order written.
        tools: the ``mcp_tools`` setting.
    """

    servers: tuple[ServerSpec, ...] = ()
    tools: McpToolsSetting = "auto"

    def offered(self, profile: str) -> bool:
        """Whether the servers' tools are offered to a model in ``profile``."""
        if self.tools == "auto":
            return profile != "compact"
        return self.tools == "all"

    def with_project(self, project: McpSettings) -> tuple[McpSettings, tuple[str, ...]]:
        """These settings plus a trusted project's servers, and notices for the ones refused.

        A project's server whose name the user's settings already use is left out
        (a repository never replaces a server the user configured); the project's
        ``mcp_tools`` is ignored for the same reason.
        """
        names = {s.name for s in self.servers}
        kept = [s for s in project.servers if s.name not in names]
        notices = tuple(
            f"{s.source}: MCP server {s.name!r} is not used: your settings already define "
            "a server of that name"
            for s in project.servers
            if s.name in names
        )
        return McpSettings(servers=(*self.servers, *kept), tools=self.tools), notices


def read_mcp_settings(keys: McpKeys, source: str) -> McpSettings:
    """The ``mcp_servers`` tables and ``mcp_tools`` of one settings file, checked.

    The tables' kinds were checked when ``keys`` was read (:meth:`McpKeys.from_file`);
    what remains is what no type says.

    Raises:
        UsageError: a server with both or neither of ``command`` and ``url``, a bad
            name, URL or timeout; the message names the file, the server and the key.
    """
    servers = tuple(_server(name, table, source) for name, table in keys.mcp_servers.items())
    return McpSettings(servers=servers, tools=keys.mcp_tools)


def _server(name: str, parsed: _ServerTable, source: str) -> ServerSpec:
    where = f"{source}: mcp_servers.{name}"
    if not SERVER_NAME.match(name) or len(name) > MAX_SERVER_NAME:
        raise UsageError(
            f"{where}: a server's name must be 1-{MAX_SERVER_NAME} letters, digits, '-' or "
            "'_' (never two '_' in a row)",
            hint="rename the table, for example [mcp_servers.files]",
        )
    if bool(parsed.command) == bool(parsed.url):
        raise UsageError(f"{where} needs either command (stdio) or url (HTTP)", hint=_HOW)
    if parsed.url and not parsed.url.startswith(("http://", "https://")):
        raise UsageError(
            f"{where}.url must start with http:// or https://, not {parsed.url!r}", hint=_HOW
        )
    if not math.isfinite(parsed.timeout) or parsed.timeout <= 0:
        raise UsageError(
            f"{where}.timeout must be a number of seconds above 0, not {parsed.timeout!r}",
            hint="for example timeout = 120",
        )
    return ServerSpec(
        name=name,
        source=source,
        command=parsed.command or "",
        args=tuple(parsed.args),
        env=dict(parsed.env),
        cwd=parsed.cwd or "",
        url=parsed.url or "",
        headers=dict(parsed.headers),
        enabled=parsed.enabled,
        tools=frozenset(parsed.tools) if parsed.tools is not None else None,
        timeout=float(parsed.timeout),
        mode=parsed.mode,
        tool_modes=dict(parsed.tool_modes),
    )


def _key_hint(key: str) -> str:
    hints = {
        "args": 'args is a list of strings, for example args = ["--port", "0"]',
        "env": 'env is a table of strings, for example env = { TOKEN = "${MY_TOKEN}" }',
        "headers": 'headers is a table of strings: headers = { Authorization = "Bearer ${TOKEN}" }',
        "tools": 'tools lists the tools to offer, for example tools = ["read_file"]',
        "mode": 'mode is "preview" or "direct"',
        "tool_modes": 'tool_modes maps a tool to "preview" or "direct"',
        "enabled": "enabled is true or false",
        "timeout": "timeout is a number of seconds",
    }
    known = ", ".join(_ServerTable.model_fields)
    return hints.get(key, f"a server's table takes {known}")


def expand(value: str, env: Mapping[str, str], what: str) -> str:
    """``value`` with each ``${VAR}`` replaced by the variable of ``env``.

    Raises:
        KeyError: a named variable is not set; the message names it and ``what``
            (``header Authorization``).
    """

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        found = env.get(name)
        if found is None:
            raise KeyError(f"{what} names the environment variable {name}, which is not set")
        return found

    return _REFERENCE.sub(one, value)


def server_folder(spec: ServerSpec, workspace: Path) -> Path:
    """Where a stdio server runs: its ``cwd`` below the workspace, or the workspace."""
    return (workspace / spec.cwd).resolve() if spec.cwd else workspace


__all__ = [
    "DEFAULT_TIMEOUT",
    "MCP_KEYS",
    "MCP_TOOLS_SETTINGS",
    "SEPARATOR",
    "CallMode",
    "McpKeys",
    "McpSettings",
    "McpToolsSetting",
    "ServerSpec",
    "expand",
    "read_mcp_settings",
    "server_folder",
]
