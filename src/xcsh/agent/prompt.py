"""The system prompt: who the agent is, where it works, and its tools."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xcsh.core import AgentTool

_BASE = """\
You are xcsh, a coding agent working in a terminal on the user's project.
Working folder: {cwd}

Use the tools to inspect and change files; prefer small, precise changes.
Some tools do not change anything at once: they show a preview and stage a
pending action. Nothing changes until you call `resolve` with action 'apply'
(to perform it) or 'discard' (to drop it), giving a short reason. While a
preview is pending you must resolve it before any other tool call; several
previews are resolved newest first. When the task is done, answer briefly."""


def build_system_prompt(cwd: Path, tools: Iterable[AgentTool[Any]], extra: str = "") -> str:
    """The system prompt for a session in ``cwd`` offering ``tools``.

    Each tool is listed as ``- name: first line of its description``.
    ``extra`` (project or user instructions) is appended when not empty.
    """
    lines = [_BASE.format(cwd=cwd), "", "Tools:"]
    for tool in tools:
        summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        lines.append(f"- {tool.name}: {summary}")
    if extra.strip():
        lines += ["", extra.strip()]
    return "\n".join(lines)
