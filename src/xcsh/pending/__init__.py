"""Pending actions: previews waiting for an explicit apply or discard.

A :class:`PendingAction` is data (a typed :class:`Preview`: id, files,
changes with ids, diff) plus one :class:`PendingEffect`, what resolving it
does; ``resolve`` returns a :class:`ResolveOutcome` as its details.
The exact texts of ``resolve`` are in ``docs/resolve.md``.
"""

from xcsh.pending.action import (
    DEFAULT_SOURCE_TOOL_NAME,
    ApplyFailedError,
    PendingAction,
    PushOrigin,
    StalePreviewError,
)
from xcsh.pending.check import NOT_CHECKED, STATUS_WORDS, CheckStatus, CheckVerdict
from xcsh.pending.effect import (
    ApplyReport,
    CallbackEffect,
    PendingEffect,
    RebuiltAction,
    Supports,
    call_maybe_async,
)
from xcsh.pending.outcome import ApplyFailure, ResolveOutcome, ResolveStatus
from xcsh.pending.parts import grouped, select_parts
from xcsh.pending.preview import LeftOut, Preview, PreviewChange, PreviewFile
from xcsh.pending.rebuilt import RebuiltPreview, compare_rebuilt, describe_rebuild, preview_digest
from xcsh.pending.resolve import (
    BLANK_REASON_MESSAGE,
    NOTHING_PENDING_MESSAGE,
    RESOLVE_TOOL_NAME,
    ResolveParams,
    check_request,
    create_resolve_tool,
    discard_action,
    resolve_outcome,
    resolve_top,
)
from xcsh.pending.store import PendingActionStore, PushListener

__all__ = [
    "BLANK_REASON_MESSAGE",
    "DEFAULT_SOURCE_TOOL_NAME",
    "NOTHING_PENDING_MESSAGE",
    "NOT_CHECKED",
    "RESOLVE_TOOL_NAME",
    "STATUS_WORDS",
    "ApplyFailedError",
    "ApplyFailure",
    "ApplyReport",
    "CallbackEffect",
    "CheckStatus",
    "CheckVerdict",
    "LeftOut",
    "PendingAction",
    "PendingActionStore",
    "PendingEffect",
    "Preview",
    "PreviewChange",
    "PreviewFile",
    "PushListener",
    "PushOrigin",
    "RebuiltAction",
    "RebuiltPreview",
    "ResolveOutcome",
    "ResolveParams",
    "ResolveStatus",
    "StalePreviewError",
    "Supports",
    "call_maybe_async",
    "check_request",
    "compare_rebuilt",
    "create_resolve_tool",
    "describe_rebuild",
    "discard_action",
    "grouped",
    "preview_digest",
    "resolve_outcome",
    "resolve_top",
    "select_parts",
]
