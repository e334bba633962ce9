"""Terminal rendering shared by every front end (contract §6).

It knows plain data and the typed preview values of :mod:`xcsh.pending`
(previews, resolve outcomes), never the agent, the tools or the providers.
The style check and the safe-text helpers load at once; the renderer (rich)
and the review walk load with the first name asked of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

_RENDER_NAMES = frozenset(
    {
        "SafeConsole",
        "make_console",
        "render_check",
        "render_diff",
        "render_preview",
        "render_resolution",
        "split_label",
    }
)
_REVIEW_NAMES = frozenset(
    {
        "REVIEW_HELP",
        "REVIEW_KEYS",
        "REVIEW_PROMPT",
        "Answer",
        "ReviewWalk",
        "parse_decision",
        "render_change",
    }
)


def __getattr__(name: str) -> Any:
    # rich loads with the first thing drawn, not with the style check.
    if name in _RENDER_NAMES:
        import xcsh.ui.render as render

        return getattr(render, name)
    if name in _REVIEW_NAMES:
        import xcsh.ui.review as review

        return getattr(review, name)
    raise AttributeError(f"module 'xcsh.ui' has no attribute {name!r}")


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
