"""Run ``xcsh mcp`` with a small file-writing preview tool beside ``resolve``.

Used as a subprocess by the MCP tests: ``python preview_server.py mcp <xcsh mcp args>``.
The CLI is the real one; only the tool set differs. ``write_file`` previews
writing a file and pushes a pending action whose ``apply`` writes it and whose
``reject`` appends ``<reason>`` to ``<cwd>/rejected.log`` (evidence that a
discard, or a disconnect, ran it). ``read_file`` is read-only.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from xcsh.cli import main, mcp_cmd
from xcsh.core import AgentTool, ToolCallContext, ToolError, text_result
from xcsh.mcp.session import ToolFactory
from xcsh.pending import PendingAction, PendingActionStore, create_resolve_tool

WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "file to write, relative to the workspace"},
        "content": {"type": "string", "description": "the new content"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}
READ_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
    "additionalProperties": False,
}


def factory_for(cwd: Path, *, trust_project: bool) -> ToolFactory:
    def build(store: PendingActionStore) -> list[AgentTool[Any]]:
        def write(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            target = cwd / params["path"]
            content = params["content"]
            before = target.read_text() if target.exists() else ""

            def apply(reason: str) -> str:
                target.write_text(content)
                return f"Wrote {params['path']} ({reason})"

            def reject(reason: str) -> None:
                with (cwd / "rejected.log").open("a") as log:
                    log.write(f"{params['path']}: {reason}\n")

            store.push(
                PendingAction(
                    label=f"Write: {params['path']}",
                    source_tool_name="write_file",
                    apply=apply,
                    reject=reject,
                )
            )
            return text_result(f"Preview of {params['path']}:\n-{before}\n+{content}")

        def read(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            target = cwd / params["path"]
            if not target.exists():
                raise ToolError(f"No file {params['path']}")
            return text_result(target.read_text())

        return [
            AgentTool(
                name="write_file",
                label="Write file",
                description="Preview writing a file.",
                parameters=WRITE_SCHEMA,
                run=write,
            ),
            AgentTool(
                name="read_file",
                label="Read file",
                description="Read a file.",
                parameters=READ_SCHEMA,
                run=read,
                read_only=True,
            ),
            create_resolve_tool(store),
        ]

    return build


if __name__ == "__main__":
    mcp_cmd.tool_factory = factory_for  # type: ignore[assignment]
    sys.exit(main(sys.argv[1:]))
