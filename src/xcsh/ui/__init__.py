"""Terminal rendering shared by every front end (SPEC §6).

It knows plain data only (labels, diffs, resolve details), never the agent,
the tools or the providers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xcsh.ui.safe import has_control, visible, visible_line
from xcsh.ui.style import TerminalStyle, detect_style

if TYPE_CHECKING:
    from xcsh.ui.render import (
        SafeConsole,
        make_console,
        render_diff,
        render_preview,
        render_resolution,
        split_label,
    )

_RENDER_NAMES = frozenset(
    {
        "SafeConsole",
        "make_console",
        "render_diff",
        "render_preview",
        "render_resolution",
        "split_label",
    }
)


def __getattr__(name: str) -> Any:
    # rich loads with the first thing drawn, not with the style check.
    if name in _RENDER_NAMES:
        import xcsh.ui.render as render

        return getattr(render, name)
    raise AttributeError(f"module 'xcsh.ui' has no attribute {name!r}")


__all__ = [
    "SafeConsole",
    "TerminalStyle",
    "detect_style",
    "has_control",
    "make_console",
    "render_diff",
    "render_preview",
    "render_resolution",
    "split_label",
    "visible",
    "visible_line",
]
