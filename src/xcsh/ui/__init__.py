"""Terminal rendering shared by every front end (SPEC §6).

It knows plain data and the typed preview values of :mod:`xcsh.pending`
(previews, resolve outcomes), never the agent, the tools or the providers.
"""

from xcsh.ui.render import (
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

__all__ = [
    "REVIEW_HELP",
    "REVIEW_KEYS",
    "REVIEW_PROMPT",
    "Answer",
    "ReviewWalk",
    "TerminalStyle",
    "detect_style",
    "make_console",
    "parse_decision",
    "render_change",
    "render_diff",
    "render_preview",
    "render_resolution",
    "split_label",
]
