"""The built-in tools a session offers, in the order the model sees them."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.checks import Checker
from xcsh.core import Tool, ToolDetails
from xcsh.fs import xcsh_home
from xcsh.journal import Journal
from xcsh.journal.commands import CommandRecorder
from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.sandbox import ProcessSupervisor, SandboxPlan
from xcsh.tools.coding import create_coding_tools
from xcsh.tools.coding._bash_previewing import Previewer

if TYPE_CHECKING:
    from xcsh.structural.scan.warm import WarmIndex

CODING_TOOL_NAMES = ("read", "write", "edit", "bash", "grep", "find", "ls")
STRUCTURAL_TOOL_NAMES = ("ast_grep", "ast_edit")
BUILTIN_TOOL_NAMES: tuple[str, ...] = (*CODING_TOOL_NAMES, *STRUCTURAL_TOOL_NAMES, "resolve")
"""Every built-in tool name; custom tools may not reuse them (contract §5)."""


def builtin_details_types() -> Mapping[str, type[ToolDetails]]:
    """Map each built-in tool's name to the details class of its results.

    The session file reads the details back as these classes.
    """
    from xcsh.pending import ResolveOutcome
    from xcsh.structural.tools.details import AstEditDetails, AstGrepDetails
    from xcsh.tools.coding import details

    return {
        "read": details.ReadDetails,
        "write": details.WriteDetails,
        "edit": details.EditFileDetails,
        "bash": details.BashDetails,
        "grep": details.GrepDetails,
        "find": details.FindDetails,
        "ls": details.LsDetails,
        "ast_grep": AstGrepDetails,
        "ast_edit": AstEditDetails,
        "resolve": ResolveOutcome,
    }


def create_builtin_tools(
    cwd: str | Path,
    store: PendingActionStore,
    *,
    journal: Journal | None = None,
    sandbox: SandboxPlan | None = None,
    checker: Checker | None = None,
    index: WarmIndex | None = None,
    widen_renames: bool = False,
    recorder: CommandRecorder | None = None,
    previews: Callable[[str], bool] | None = None,
) -> list[Tool]:
    """Build every built-in tool for one session.

    Args:
        cwd: the workspace folder; file tools refuse paths outside it.
        store: the session's pending-action store (``ast_edit`` pushes onto it,
            ``resolve`` pops from it).
        journal: the workspace's undo journal: ``ast_edit`` applies, ``write`` and
            ``edit`` record into it.
        sandbox: how ``bash`` confines its commands (None: unconfined).
        checker: the project's check ``ast_edit`` runs on staged previews
            (None: previews are not checked).
        index: the session's warm structural index ``ast_grep`` and ``ast_edit``
            share (None: each call reads and parses afresh).
        widen_renames: ``ast_edit`` previews the bare-name rename when a call-pattern
            rename matches no call, and the relaxed form of a pattern that matched
            nothing; ``ast_grep`` lists that form's matches (the compact profile's
            small models).
        recorder: records what each ``bash`` command changed in the journal (the
            session's one recorder, which direct MCP tool calls share; ``None``:
            not recorded).
        previews: the commands ``bash`` previews unasked (the user's approval rules).

    Returns:
        The coding tools, ``ast_grep``, ``ast_edit`` and the hidden ``resolve``.
    """
    import xcsh.structural as structural  # ast-grep is loaded with the first tools

    plan = sandbox if sandbox is not None else SandboxPlan()
    previewer = Previewer(
        root=Path(os.path.realpath(cwd)),
        home=xcsh_home(),
        store=store,
        journal=journal,
        checker=checker,
        supervisor=ProcessSupervisor(),
        network=plan.confinement.network if plan.confinement is not None else True,
    )
    tools: list[Tool] = create_coding_tools(
        cwd,
        journal=journal,
        sandbox=sandbox,
        recorder=recorder,
        previewer=previewer,
        previews=previews,
    )
    tools.append(structural.create_ast_grep_tool(str(cwd), index=index, widen=widen_renames))
    tools.append(
        structural.create_ast_edit_tool(
            str(cwd),
            store,
            journal=journal,
            checker=checker,
            index=index,
            widen_renames=widen_renames,
        )
    )
    tools.append(create_resolve_tool(store))
    return tools
