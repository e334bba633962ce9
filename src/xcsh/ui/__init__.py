"""Terminal rendering shared by every front end (SPEC §6).

It knows plain data only (labels, diffs, resolve details), never the agent,
the tools or the providers.
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
from xcsh.ui.safe import has_control, visible, visible_line

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
