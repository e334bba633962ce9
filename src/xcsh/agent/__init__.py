"""The agent: the loop, its events, steering toward ``resolve``, sessions and their files.

Front ends use :class:`AgentSession` and the events in :mod:`xcsh.agent.run.events`;
they never call the loop or a provider directly.
"""

from xcsh.agent.policy.settings import ApprovalKeys, parse_tool_policy
from xcsh.agent.policy.tools import (
    ToolApprovalHook,
    ToolPolicy,
    ToolQuestion,
    enforce_policy,
)
from xcsh.agent.record.persistence import (
    SCHEMA_VERSION,
    PendingRecord,
    SavedSession,
    SessionRecorder,
    latest_session_for,
    load_session,
    new_session_id,
    session_path,
    sessions_dir,
)
from xcsh.agent.run.events import (
    EVENT_TYPES,
    AgentError,
    AgentEvent,
    Notice,
    NoticeKind,
    PendingPushed,
    Resolved,
    RunEnd,
    RunEndReason,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
    ToolProgress,
    ToolResult,
    TurnEnd,
    TurnStart,
    event_to_dict,
)
from xcsh.agent.run.history import CANCELLED_TEXT, repair_tool_pairs
from xcsh.agent.run.instructions import (
    INSTRUCTIONS_FILE,
    InstructionFile,
    Instructions,
    load_instructions,
)
from xcsh.agent.run.profile import (
    PROFILE_SETTINGS,
    Profile,
    choose_profile,
    compact_schema_warning,
)
from xcsh.agent.run.prompt import build_system_prompt
from xcsh.agent.run.settings import RunSettings
from xcsh.agent.run.steering import (
    DEFAULT_MAX_FORCED_TURNS,
    REMINDER_TEXT,
    Steering,
    SteeringMode,
    SteeringStyle,
)
from xcsh.agent.session.agent_session import (
    DECLINED_TEXT,
    AgentSession,
    Approval,
    ApprovalHook,
    EventListener,
    ResumeReport,
    approval_resolve_tool,
)
from xcsh.agent.session.config import SessionConfig
from xcsh.agent.session.pending import SessionPending
from xcsh.agent.session.tool_source import ToolSource, ToolsUpdate
from xcsh.pending import RebuiltPreview, preview_digest

__all__ = [
    "CANCELLED_TEXT",
    "DECLINED_TEXT",
    "DEFAULT_MAX_FORCED_TURNS",
    "EVENT_TYPES",
    "INSTRUCTIONS_FILE",
    "PROFILE_SETTINGS",
    "REMINDER_TEXT",
    "SCHEMA_VERSION",
    "AgentError",
    "AgentEvent",
    "AgentSession",
    "Approval",
    "ApprovalHook",
    "ApprovalKeys",
    "EventListener",
    "InstructionFile",
    "Instructions",
    "Notice",
    "NoticeKind",
    "PendingPushed",
    "PendingRecord",
    "Profile",
    "RebuiltPreview",
    "Resolved",
    "ResumeReport",
    "RunEnd",
    "RunEndReason",
    "RunSettings",
    "SavedSession",
    "SessionConfig",
    "SessionPending",
    "SessionRecorder",
    "Steering",
    "SteeringMode",
    "SteeringStyle",
    "TextDelta",
    "ThinkingDelta",
    "ToolApprovalHook",
    "ToolCallStart",
    "ToolPolicy",
    "ToolProgress",
    "ToolQuestion",
    "ToolResult",
    "ToolSource",
    "ToolsUpdate",
    "TurnEnd",
    "TurnStart",
    "approval_resolve_tool",
    "build_system_prompt",
    "choose_profile",
    "compact_schema_warning",
    "enforce_policy",
    "event_to_dict",
    "latest_session_for",
    "load_instructions",
    "load_session",
    "new_session_id",
    "parse_tool_policy",
    "preview_digest",
    "repair_tool_pairs",
    "session_path",
    "sessions_dir",
]
