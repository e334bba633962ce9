"""Terminal rendering shared by every front end (SPEC §6).

It knows plain data and the typed preview values of :mod:`xcsh.pending`
(previews, resolve outcomes), never the agent, the tools or the providers.
"""

from xcsh.ui.render import (
    SafeConsole,
    TerminalStyle,
    detect_style,
    make_console,
    render_diff,
    render_preview,
    render_resolution,
    split_label,
)
from xcsh.ui.review import (
    REVIEW_HELP,
    REVIEW_KEYS,
    REVIEW_PROMPT,
    Answer,
    ReviewWalk,
    parse_decision,
    render_change,
)
from xcsh.ui.safe import has_control, visible, visible_line

__all__ = [
    "REVIEW_HELP",
    "REVIEW_KEYS",
    "REVIEW_PROMPT",
    "Answer",
    "ReviewWalk",
    "SafeConsole",
    "TerminalStyle",
    "detect_style",
    "has_control",
    "make_console",
    "parse_decision",
    "render_change",
    "render_diff",
    "render_preview",
    "render_resolution",
    "split_label",
    "visible",
    "visible_line",
]
