"""The :class:`PendingAction` value (SPEC §1)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ApplyCallback = Callable[[str], Any]
"""``apply(reason)``: returns (or resolves to) an AgentToolResult, a str, a result dict or None."""
RejectCallback = Callable[[str], Any]
"""``reject(reason)``: like :data:`ApplyCallback`; ``None`` keeps the default discard text."""


@dataclass
class PendingAction:
    """A previewed change waiting for ``resolve`` (SPEC §1).

    Args:
        label: short, human-readable summary, e.g. ``"AST Edit: 3 replacements in 2 files"``;
            the resolve renderer shows it.
        source_tool_name: the tool that produced the preview (``"ast_edit"``).
        apply: ``apply(reason)``, sync or async; performs the change and returns
            an :class:`AgentToolResult` (a str or a ``{"content": [...]}`` dict is
            accepted too). Raising leaves the action pending (SPEC §2.7).
        reject: optional ``reject(reason)``, sync or async, for clean-up on
            discard; a returned result replaces the default discard message.
        details: opaque data for front ends (a diff, the files touched).
        journaled: its ``apply`` records what it writes in the undo journal itself
            (the built-in producers do); otherwise the session's journal wraps
            it when ``details`` names the files (see :mod:`xcsh.journal.watch`).
    """

    label: str
    source_tool_name: str
    apply: ApplyCallback
    reject: RejectCallback | None = None
    details: Any = None
    journaled: bool = False


async def call_maybe_async(func: Callable[..., Any], *args: Any) -> Any:
    """Call ``func(*args)`` and await the outcome when it is awaitable."""
    outcome = func(*args)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome
