"""Helpers for the ``xcsh mcp`` tests: the workspace's custom tool and the server command.

The custom tool ``write_note`` previews writing a file; its pending action's
``reject`` appends ``<path>: <reason>`` to ``rejected.log`` in the workspace,
which is how a discard (or a disconnect) is observed from outside the server.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

NOTE_TOOL = """
from xcsh import CustomTool, CustomToolPendingAction

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
    "required": ["path", "text"],
    "additionalProperties": False,
}


def factory(api):
    def execute(tool_call_id, params):
        target = api.cwd / params["path"]

        def apply(reason):
            target.write_text(params["text"])
            return f"Wrote {params['path']}."

        def reject(reason):
            with (api.cwd / "rejected.log").open("a") as log:
                log.write(f"{params['path']}: {reason}\\n")

        api.push_pending_action(
            CustomToolPendingAction(label=f"Note: {params['path']}", apply=apply, reject=reject)
        )
        return f"Preview: {params['path']} would contain {params['text']!r}."

    return CustomTool(
        name="write_note",
        description="Preview writing a note file.",
        parameters=SCHEMA,
        execute=execute,
    )
"""

APP = "print(1)\nprint(2)\n"
XCSH_MCP = [sys.executable, "-m", "xcsh", "mcp"]
"""``xcsh mcp`` run by this interpreter (add the subcommand's flags)."""


def xcsh_mcp(workspace: Path, *extra: str) -> StdioServerParameters:
    """``xcsh mcp --cwd <workspace> ...`` as the MCP client's stdio server."""
    return StdioServerParameters(
        command=XCSH_MCP[0],
        args=[*XCSH_MCP[1:], "--cwd", str(workspace), *extra],
        env={"XCSH_HOME": os.environ["XCSH_HOME"]},
    )


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


def read_http_banner(stderr: Any) -> tuple[str, str]:
    """``(url, token)`` from the two lines ``xcsh mcp --http`` prints when it is ready."""
    line = stderr.readline()
    assert line.startswith("xcsh mcp: serving http://127.0.0.1:"), line
    url = line.split("serving ", 1)[1].strip()
    token_line = stderr.readline()
    assert token_line.startswith("xcsh mcp: token "), token_line
    return url, token_line.split()[3]


def http_client(url: str, token: str) -> Client:
    """An MCP client for ``url`` that sends the server's bearer token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http))
