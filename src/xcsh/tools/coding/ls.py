"""The ``ls`` tool: one folder's entries, folders marked with ``/``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.fs import Workspace
from xcsh.tools.coding._paths import capped_listing
from xcsh.tools.coding.details import LsDetails

DEFAULT_LIMIT = 500

DESCRIPTION = f"""\
List one folder's entries (not recursive), sorted by name, folders marked with a \
trailing `/`, dot-files included and ignore files not applied. At most `limit` entries \
(default {DEFAULT_LIMIT}). Use `find` to list files recursively by glob, `grep` to search \
contents, and `ast_grep` to find code by its syntax."""


class LsParams(BaseModel):
    """Arguments of ``ls``."""

    path: str = Field(default=".", description="Folder to list (default: workspace).")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=100_000, description="Most entries.")


def create_ls_tool(
    cwd: str | Path, *, allow_outside: Sequence[str | Path] = ()
) -> AgentTool[LsParams, LsDetails]:
    """Build the ``ls`` tool.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed listing.

    Returns:
        A read-only tool; ``run`` raises :class:`ToolError` when the path is
        missing, a file, or unreadable.
    """
    policy = Workspace(cwd, allow_outside)

    def run(params: LsParams, ctx: ToolCallContext) -> AgentToolResult[LsDetails]:
        folder = policy.resolve(params.path)
        shown = policy.display(folder)
        if not folder.exists():
            raise ToolError(f"Folder not found: {shown}. Use find to locate it.")
        if not folder.is_dir():
            raise ToolError(f"{shown} is a file, not a folder. Use read to see its content.")
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise ToolError(f"Cannot list {shown}: {exc.strerror or exc}.") from exc
        names: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError:
                is_dir = False
            names.append(entry.name + ("/" if is_dir else ""))
        names.sort(key=lambda name: (name.lower(), name))
        if not names:
            text = f"{shown} is empty."
        else:
            text = capped_listing(
                names,
                len(names),
                params.limit,
                plural(len(names), "entry", "entries"),
                "Raise limit, or use find with a glob.",
            )
        return AgentToolResult(
            content=[TextContent(text)],
            details=LsDetails(path=str(folder), count=len(names)),
        )

    return AgentTool(
        name="ls",
        label="List",
        description=DESCRIPTION,
        parameters=LsParams,
        run=run,
        read_only=True,
    )
