"""Which tools an MCP session offers, and how they are described to MCP clients."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import mcp_types as types

from xcsh import tools as builtin
from xcsh.agent.policy.approval import approval_resolve_tool
from xcsh.checks import Checker
from xcsh.core import Content, ImageContent, TextContent, Tool
from xcsh.journal import Journal, record_applies
from xcsh.mcp.session import McpToolsFactory
from xcsh.pending import RESOLVE_TOOL_NAME, PendingActionStore
from xcsh.plugins import CustomToolSet, LoadError, prepare_custom_tools

if TYPE_CHECKING:
    from xcsh.structural.scan.warm import WarmIndex

_ANNOTATIONS: dict[str, types.ToolAnnotations] = {
    # Searching changes nothing; the same query gives the same answer.
    "ast_grep": types.ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    # A preview: nothing on disk changes, but each call pushes a pending action.
    "ast_edit": types.ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    ),
    # Applying writes the previewed change; this is the one destructive step.
    RESOLVE_TOOL_NAME: types.ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
    ),
}


def builtin_tool_factory(
    cwd: str | Path,
    *,
    journal: Journal | None = None,
    checker: Checker | None = None,
    index_memory: int | None = None,
) -> McpToolsFactory:
    """The built-in MCP tools for a workspace: ``ast_grep``, ``ast_edit`` and ``resolve``.

    Args:
        cwd: the workspace folder; the structural tools refuse paths outside it.
        journal: the workspace's undo journal ``ast_edit`` applies record into.
        checker: the project's check ``ast_edit`` runs on staged previews.
        index_memory: bytes of trees and answers the server's warm structural
            index keeps (default 256 MiB). One index, made on the first session,
            serves every session's ``ast_grep`` and ``ast_edit``.

    Returns:
        A factory building fresh tool instances around one session's store.
    """
    folder = Path(cwd)
    shared: list[WarmIndex] = []

    def build(store: PendingActionStore) -> list[Tool]:
        # The structural tools (and ast-grep) load on the first session, not at import.
        if not shared:
            from xcsh.structural.scan.warm import WarmIndex

            shared.append(WarmIndex() if index_memory is None else WarmIndex(index_memory))
        warm = shared[0]
        return [
            builtin.create_ast_grep_tool(str(folder), index=warm),
            builtin.create_ast_edit_tool(
                str(folder), store, journal=journal, checker=checker, index=warm
            ),
            approval_resolve_tool(
                store,
                None,
                requires_checks=checker is not None and checker.settings.apply_requires_checks,
            ),
        ]

    return build


def journaled_factory(factory: McpToolsFactory, journal: Journal) -> McpToolsFactory:
    """Wrap ``factory`` so every apply on a session's store is recorded in ``journal``.

    This covers the applies of custom tools' pending actions; built-in tools record
    their own.
    """

    def build(store: PendingActionStore) -> list[Tool]:
        record_applies(store, journal)
        return list(factory(store))

    return build


def custom_tool_factory(
    cwd: str | Path,
    *,
    trust_project: bool = False,
    on_errors: Callable[[list[LoadError]], None] | None = None,
    checker: Checker | None = None,
    journal: Journal | None = None,
) -> McpToolsFactory:
    """The folder's custom tools, built for each session from modules imported once.

    User tools (``$XCSH_HOME/tools/``) and installed ``xcsh.tools`` entry
    points always load; the project's ``.xcsh/tools/`` only when the folder is
    trusted (``xcsh trust``) or ``trust_project`` is set: over MCP there is no
    terminal to ask. The modules are imported on the first session and kept
    for the server's life (their top level runs once per process); each
    session then gets its own instances from each ``factory(api)``, wired to
    its own store, so ``api.push_pending_action`` lands on the calling
    client's stack.

    Args:
        cwd: the workspace folder.
        trust_project: load the project's tools without a trust record.
        on_errors: receives the load errors (and the untrusted-folder notice)
            of every load; loading itself never raises because of a tool module.
        checker: the project's check, for ``api.apush_pending_action``.
        journal: the workspace's undo journal, for ``api.file_changes``.
    """
    folder = Path(cwd)
    prepared: list[CustomToolSet] = []

    def build(store: PendingActionStore) -> list[Tool]:
        if not prepared:
            prepared.append(prepare_custom_tools(folder, trust_project=trust_project))
        result = prepared[0].build(store=store, checker=checker, journal=journal)
        if result.errors and on_errors is not None:
            on_errors(list(result.errors))
        return result.tools

    return build


def combine_factories(*factories: McpToolsFactory) -> McpToolsFactory:
    """One factory whose tools are those of ``factories``, in order."""

    def build(store: PendingActionStore) -> list[Tool]:
        tools: list[Tool] = []
        for factory in factories:
            tools.extend(factory(store))
        return tools

    return build


def tool_annotations(tool: Tool) -> types.ToolAnnotations:
    """MCP behaviour hints for ``tool``.

    ``ast_grep`` is read-only, ``ast_edit`` is not destructive (it only
    previews), ``resolve`` is destructive. Any other tool is read-only when it
    says so; otherwise no destructiveness is claimed, so clients keep the MCP
    default (possibly destructive) for code xcsh did not write.
    """
    known = _ANNOTATIONS.get(tool.name)
    if known is not None:
        return known
    if tool.read_only:
        return types.ToolAnnotations(read_only_hint=True, destructive_hint=False)
    return types.ToolAnnotations(read_only_hint=False)


def mcp_tool(tool: Tool) -> types.Tool:
    """Describe ``tool`` for ``tools/list``: name, title, description, input schema, hints."""
    schema = tool.json_schema()
    schema.setdefault("type", "object")
    return types.Tool(
        name=tool.name,
        title=tool.label,
        description=tool.description,
        input_schema=schema,
        annotations=tool_annotations(tool),
    )


def mcp_content(blocks: Sequence[Content]) -> list[types.ContentBlock]:
    """Convert xcsh content blocks to MCP content blocks (text and images)."""
    out: list[types.ContentBlock] = []
    for block in blocks:
        if isinstance(block, TextContent):
            out.append(types.TextContent(type="text", text=block.text))
        elif isinstance(block, ImageContent):
            out.append(types.ImageContent(type="image", data=block.data, mime_type=block.mime_type))
    return out
