"""Terminal rendering shared by every front end (contract §6).

It knows plain data and the typed preview values of :mod:`xcsh.pending`
(previews, resolve outcomes), never the agent, the tools or the providers.
The style check and the safe-text helpers load at once; the renderer (rich)
and the review walk load with the first name asked of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports
from xcsh.core.safe import format_arguments, has_control, visible, visible_line
from xcsh.ui.style import TerminalStyle, detect_style

if TYPE_CHECKING:
    from xcsh.ui.render import (
        SafeConsole,
        make_console,
        render_check,
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

# rich loads with the first thing drawn, not with the style check.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.ui.render": (
            "SafeConsole",
            "make_console",
            "render_check",
            "render_diff",
            "render_preview",
            "render_resolution",
            "split_label",
        ),
        "xcsh.ui.review": (
            "REVIEW_HELP",
            "REVIEW_KEYS",
            "REVIEW_PROMPT",
            "Answer",
            "ReviewWalk",
            "parse_decision",
            "render_change",
        ),
    },
)


__all__ = [
    "REVIEW_HELP",
    "REVIEW_KEYS",
    "REVIEW_PROMPT",
    "Answer",
    "ReviewWalk",
    "SafeConsole",
    "TerminalStyle",
    "detect_style",
    "format_arguments",
    "has_control",
    "make_console",
    "parse_decision",
    "render_change",
    "render_check",
    "render_diff",
    "render_preview",
    "render_resolution",
    "split_label",
    "visible",
    "visible_line",
]
