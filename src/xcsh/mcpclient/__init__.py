"""xcsh as an MCP client: other servers' tools in the agent, and their writes as previews.

``[mcp_servers.NAME]`` in the settings (:mod:`xcsh.mcpclient.settings`) names
the servers; :class:`McpServers` starts them with the session and offers
their tools as ``NAME__tool`` (:mod:`xcsh.mcpclient.tools`); a call of a tool
that is not read-only becomes a pending action whose effect makes the real
call on apply (:mod:`xcsh.mcpclient.preview`). It sits beside ``plugins``:
another way tools join a session, below the agent and the composition root,
above the journal and the pending actions it builds on.
"""

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports

if TYPE_CHECKING:
    from xcsh.mcpclient.connection import (
        ServerCallError,
        ServerConnection,
        ServerState,
        ServerStatus,
        ServerUnavailableError,
    )
    from xcsh.mcpclient.preview import McpCallEffect, annotations_text, build_preview
    from xcsh.mcpclient.schema import check_schema, schema_bytes
    from xcsh.mcpclient.servers import McpServers, ToolsChange
    from xcsh.mcpclient.settings import (
        MCP_KEYS,
        SEPARATOR,
        CallMode,
        McpKeys,
        McpSettings,
        ServerSpec,
        read_mcp_settings,
    )
    from xcsh.mcpclient.tools import BuiltTools, build_tools, tool_name
    from xcsh.mcpclient.wire import RemoteTool

# The settings are read by every session; the SDK (seconds to import on a busy machine)
# loads only when a server is started.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.mcpclient.connection": (
            "ServerCallError",
            "ServerConnection",
            "ServerState",
            "ServerStatus",
            "ServerUnavailableError",
        ),
        "xcsh.mcpclient.preview": ("McpCallEffect", "annotations_text", "build_preview"),
        "xcsh.mcpclient.schema": ("check_schema", "schema_bytes"),
        "xcsh.mcpclient.servers": ("McpServers", "ToolsChange"),
        "xcsh.mcpclient.settings": (
            "MCP_KEYS",
            "SEPARATOR",
            "CallMode",
            "McpKeys",
            "McpSettings",
            "ServerSpec",
            "read_mcp_settings",
        ),
        "xcsh.mcpclient.tools": ("BuiltTools", "build_tools", "tool_name"),
        "xcsh.mcpclient.wire": ("RemoteTool",),
    },
)

__all__ = [
    "MCP_KEYS",
    "SEPARATOR",
    "BuiltTools",
    "CallMode",
    "McpCallEffect",
    "McpKeys",
    "McpServers",
    "McpSettings",
    "RemoteTool",
    "ServerCallError",
    "ServerConnection",
    "ServerSpec",
    "ServerState",
    "ServerStatus",
    "ServerUnavailableError",
    "ToolsChange",
    "annotations_text",
    "build_preview",
    "build_tools",
    "check_schema",
    "read_mcp_settings",
    "schema_bytes",
    "tool_name",
]
