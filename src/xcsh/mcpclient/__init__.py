"""xcsh as an MCP client: other servers' tools in the agent, and their writes as previews.

``[mcp_servers.NAME]`` in the settings (:mod:`xcsh.mcpclient.settings`) names
the servers; :class:`McpServers` starts them with the session and offers
their tools as ``NAME__tool`` (:mod:`xcsh.mcpclient.tools`); a call of a tool
that is not read-only becomes a pending action whose effect makes the real
call on apply (:mod:`xcsh.mcpclient.preview`). It sits beside ``plugins``:
another way tools join a session, below the agent and the composition root,
above the journal and the pending actions it builds on.
"""

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
    CallMode,
    McpKeys,
    McpSettings,
    ServerSpec,
    read_mcp_settings,
)
from xcsh.mcpclient.tools import SEPARATOR, BuiltTools, build_tools, tool_name
from xcsh.mcpclient.wire import RemoteTool

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
