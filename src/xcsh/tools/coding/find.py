"""The ``find`` tool: files whose path matches a glob, honouring ignore files."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.fs import Workspace
from xcsh.tools.coding._paths import capped_listing
from xcsh.tools.coding._walk import GlobFilter, sort_key, walk
from xcsh.tools.coding.details import FindDetails

DEFAULT_LIMIT = 1000

DESCRIPTION = f"""\
Find files by glob, sorted by path, paths relative to the workspace. A glob without `/` \
matches file names at any depth (`*.py`, `test_*`, `*.{{ts,tsx}}`); one with `/` matches \
the path relative to `path` (`src/**/*.ts`, `**/fixtures/*.json`). Files listed in \
.gitignore/.ignore, dot-folders and node_modules are skipped. Lists files only (use `ls` \
for a folder's entries); at most `limit` results (default {DEFAULT_LIMIT}). To search \
inside files use `grep`, or `ast_grep` to find code by its syntax."""


class FindParams(BaseModel):
    """Arguments of ``find``."""

    pattern: str = Field(min_length=1, description="Glob such as '*.py' or 'src/**/*.ts'.")
    path: str = Field(default=".", description="Folder to search (default: workspace).")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=100_000, description="Most results.")


def create_find_tool(
    cwd: str | Path, *, allow_outside: Sequence[str | Path] = ()
) -> AgentTool[FindParams, FindDetails]:
    """Build the ``find`` tool.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed searching.

    Returns:
        A read-only tool; ``run`` raises :class:`ToolError` for a missing or
        non-folder ``path`` or an invalid glob.
    """
    policy = Workspace(cwd, allow_outside)

    def search(params: FindParams, ctx: ToolCallContext) -> AgentToolResult[FindDetails]:
        start = policy.resolve(params.path)
        shown = policy.display(start)
        if not start.is_dir():
            what = "is a file" if start.exists() else "does not exist"
            raise ToolError(f"{shown} {what}; find searches a folder. Give a folder path.")
        glob = GlobFilter(params.pattern)
        found: list[tuple[tuple[str, ...], Path]] = []
        for path, relative in walk(start, policy, glob):
            if ctx.cancel.is_set():
                raise ToolError("Search cancelled.")
            found.append((sort_key(relative), path))
        found.sort()
        if not found:
            where = "the workspace" if shown == "." else shown
            text = f"No files match {params.pattern!r} in {where}."
        else:
            text = capped_listing(
                [policy.display(path) for _, path in found[: params.limit]],
                len(found),
                params.limit,
                plural(len(found), "file"),
                "Narrow the pattern or path, or raise limit.",
            )
        return AgentToolResult(
            content=[TextContent(text)],
            details=FindDetails(count=len(found), truncated=len(found) > params.limit),
        )

    async def run(params: FindParams, ctx: ToolCallContext) -> AgentToolResult[FindDetails]:
        return await asyncio.to_thread(search, params, ctx)

    return AgentTool(
        name="find",
        label="Find",
        description=DESCRIPTION,
        parameters=FindParams,
        run=run,
        read_only=True,
    )
