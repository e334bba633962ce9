"""How an :class:`~xcsh.agent.session.AgentSession` is set up: one value a front end composes.

:class:`SessionConfig` holds everything besides the session's provider, tools, folder
and store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xcsh.agent.policy.approval import ApprovalHook
from xcsh.agent.record.persistence import SessionRecorder
from xcsh.agent.run.profile import Profile
from xcsh.agent.run.steering import DEFAULT_MAX_FORCED_TURNS, SteeringMode, SteeringStyle
from xcsh.agent.session.tool_source import ToolSource
from xcsh.core import Message


@dataclass(frozen=True, kw_only=True)
class SessionConfig:
    """A session's prompt, history, recording and steering choices.

    Args:
        system_prompt: overrides the default built from the folder and the tools.
        instructions: project and user instructions (``AGENTS.md``) added to
            the default system prompt.
        messages: history to continue from (a resumed session).
        approval: asked before each model ``apply`` (``--approve ask``, the TUI).
        recorder: where the session is saved; ``None`` keeps it in memory.
        session_id: the id shown to the user (default: the recorder's file name).
        max_forced_turns: consecutive forced turns without progress before a
            run stops with ``RunEnd(reason="forced_cap")`` (contract §3).
        thinking: ask for extended reasoning where the provider supports it.
        max_tokens: output cap per request.
        rebuildable_tools: tools whose pending actions a resumed session
            rebuilds by re-running the tool with the recorded arguments.
        steering: ``"forced"`` (default) or ``"soft"``: remind first, force
            only when the model ignores the reminder.
        context_window: the model's context window in tokens (default: the
            known window of the provider's model, else 128,000); older turns
            are compacted into a summary before a request would pass 80% of
            it (:mod:`xcsh.agent.run.compaction`).
        steering_mode: how the provider takes a forced tool choice, when a
            resumed session already learnt it (:class:`SavedSession.steering`).
        requires_checks: ``apply_requires_checks``: the model's apply of a preview whose
            check newly fails or timed out needs the person
            (see :func:`~xcsh.agent.approval.approval_resolve_tool`).
        profile: ``"full"`` or ``"compact"`` (:mod:`xcsh.agent.run.profile`): a
            short system prompt and trimmed tool schemas for small models.
        tool_source: tools that join from outside and may change between turns
            (the MCP servers'): :class:`~xcsh.agent.session.tool_source.ToolSource`.
    """

    system_prompt: str | None = None
    instructions: str = ""
    messages: Sequence[Message] = ()
    approval: ApprovalHook | None = None
    recorder: SessionRecorder | None = None
    session_id: str | None = None
    max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS
    thinking: bool = False
    max_tokens: int | None = None
    rebuildable_tools: frozenset[str] = frozenset({"ast_edit"})
    steering: SteeringStyle = "forced"
    context_window: int | None = None
    steering_mode: SteeringMode | None = None
    requires_checks: bool = False
    profile: Profile = "full"
    tool_source: ToolSource | None = None


__all__ = ["SessionConfig"]
