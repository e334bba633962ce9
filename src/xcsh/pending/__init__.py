"""Pending actions: previews waiting for an explicit apply or discard (SPEC §1–§2)."""

from xcsh.pending.action import PendingAction, call_maybe_async
from xcsh.pending.resolve import (
    NOTHING_PENDING_MESSAGE,
    RESOLVE_TOOL_NAME,
    ResolveParams,
    create_resolve_tool,
)
from xcsh.pending.store import PendingActionStore, PushListener

__all__ = [
    "NOTHING_PENDING_MESSAGE",
    "RESOLVE_TOOL_NAME",
    "PendingAction",
    "PendingActionStore",
    "PushListener",
    "ResolveParams",
    "call_maybe_async",
    "create_resolve_tool",
]
