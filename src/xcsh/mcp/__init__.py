"""``xcsh mcp``: xcsh's preview/apply tools served to any MCP client.

Each MCP session has its own :class:`~xcsh.pending.PendingActionStore` and
its own tool instances; results end with a steering line while previews are
pending; a session that leaves has its previews discarded, never applied.
"""

from xcsh.mcp.http_server import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    HttpSessions,
    create_http_app,
    serve_http,
)
from xcsh.mcp.server import create_server, serve_stdio
from xcsh.mcp.session import (
    DEFAULT_MAX_PENDING,
    DISCONNECT_REASON,
    IDLE_REASON,
    STOP_REASON,
    UNDELIVERED_REASON,
    Delivery,
    McpSession,
    McpToolsFactory,
    max_pending_message,
    pending_notice,
)
from xcsh.mcp.tools import (
    builtin_tool_factory,
    combine_factories,
    custom_tool_factory,
    journaled_factory,
    mcp_tool,
    tool_annotations,
)

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_MAX_PENDING",
    "DEFAULT_MAX_SESSIONS",
    "DISCONNECT_REASON",
    "IDLE_REASON",
    "STOP_REASON",
    "UNDELIVERED_REASON",
    "Delivery",
    "HttpSessions",
    "McpSession",
    "McpToolsFactory",
    "builtin_tool_factory",
    "combine_factories",
    "create_http_app",
    "create_server",
    "custom_tool_factory",
    "journaled_factory",
    "max_pending_message",
    "mcp_tool",
    "pending_notice",
    "serve_http",
    "serve_stdio",
    "tool_annotations",
]
