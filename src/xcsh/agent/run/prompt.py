"""The system prompt: who the agent is, its tools, and where it works.

The working folder comes after everything that is the same in every
session, so a server's prompt cache (llama.cpp, vLLM) reuses the long
stable head across sessions started in different folders.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from xcsh.core import Tool

_BASE = """\
You are xcsh, a coding agent working in a terminal on the user's project.

Use the tools to inspect and change files; prefer small, precise changes.
Some tools do not change anything at once: they show a preview and stage a
pending action. Nothing changes until you call `resolve` with action 'apply'
(to perform it) or 'discard' (to drop it), giving a short reason. While a
preview is pending you must resolve it before any other tool call; several
previews are resolved newest first. When the task is done, answer briefly."""

_COMPACT = """\
You are xcsh, a coding agent. Call one tool at a time; paths are relative to \
the working folder (the project root); leave `path` out to work on the whole project.
To rename a name everywhere (definition and every use), call `ast_edit` with ops \
[{"pat": "old_name", "out": "new_name"}]: the bare name, no parentheses. To rewrite code, \
use metavariables: [{"pat": "old($$$A)", "out": "new($$$A)"}]. `ast_edit` shows a preview; \
then call `resolve` with action "apply" or "discard" and a reason.
When the task is done, answer briefly in plain text."""


def build_system_prompt(
    cwd: Path, tools: Iterable[Tool], extra: str = "", *, compact: bool = False
) -> str:
    """The system prompt for a session in ``cwd`` offering ``tools``.

    Full: the rules, then each tool as ``- name: first line of its
    description``, then ``Working folder: <cwd>``. Compact: a few lines of
    rules (the tools describe themselves in the request), then the working
    folder. ``extra`` (project or user instructions) is appended when not
    empty.
    """
    if compact:
        lines = [_COMPACT]
    else:
        lines = [_BASE, "", "Tools:"]
        for tool in tools:
            summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            lines.append(f"- {tool.name}: {summary}")
    lines += ["", f"Working folder: {cwd}"]
    if extra.strip():
        lines += ["", extra.strip()]
    return "\n".join(lines)
