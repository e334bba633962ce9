"""The system prompt: who the agent is, its tools, and where it works.

The prompt has two parts (:class:`PromptParts`): the *head*, the same in every
session (the rules, and in the full profile the tool summaries), and the
*context*, what varies between sessions (the working folder, the instructions
files). A hosted provider gets them as one system prompt, the context last. A
``--base-url`` server gets the head as the system prompt and the context at the
start of the first user message: its chat template renders the tool list
after the system prompt (Qwen's does), so only there does the context come after
the tools, and a session in another folder reuses the server's cached head and
tool list (llama.cpp's prompt cache, vLLM's prefix caching).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
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
Change code only when the task asks for a change; to answer a question, search, then answer \
from the search result (asked which functions call a name: the function names it lists).
To change one line, call `edit` with the line as `old_text` and its new text as `new_text`.
To rename a name everywhere (definition and every use), call `ast_edit` with ops \
[{"pat": "old_name", "out": "new_name"}]: the bare name, no parentheses. To rewrite code, \
use metavariables: [{"pat": "old($$$A)", "out": "new($$$A)"}]. `ast_edit` shows a preview; \
then call `resolve` with action "apply" or "discard" and a reason.
When the task is done, answer briefly in plain text."""


@dataclass(frozen=True, kw_only=True)
class PromptParts:
    """The system prompt of a session, split by what varies between sessions.

    Args:
        head: the same in every session with the same tools and profile.
        context: ``Working folder: <cwd>``, then the instructions, if any.
    """

    head: str
    context: str

    @property
    def whole(self) -> str:
        """The one system prompt: the head, a blank line, the context."""
        return f"{self.head}\n\n{self.context}"


def prompt_parts(
    cwd: Path, tools: Iterable[Tool], extra: str = "", *, compact: bool = False
) -> PromptParts:
    """The two parts of the system prompt for a session in ``cwd`` offering ``tools``.

    Head, full profile: the rules, then each tool as ``- name: first line of its
    description``; compact: a few lines of rules (the tools describe themselves in
    the request). Context: ``Working folder: <cwd>``, then ``extra`` (project or user
    instructions) after a blank line when not empty.
    """
    if compact:
        lines = [_COMPACT]
    else:
        lines = [_BASE, "", "Tools:"]
        for tool in tools:
            summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
            lines.append(f"- {tool.name}: {summary}")
    context = [f"Working folder: {cwd}"]
    if extra.strip():
        context += ["", extra.strip()]
    return PromptParts(head="\n".join(lines), context="\n".join(context))


def build_system_prompt(
    cwd: Path, tools: Iterable[Tool], extra: str = "", *, compact: bool = False
) -> str:
    """The whole system prompt for a session in ``cwd`` (:attr:`PromptParts.whole`)."""
    return prompt_parts(cwd, tools, extra, compact=compact).whole
