"""Terminal rendering shared by every front end (SPEC §6).

It knows plain data only (labels, diffs, resolve details), never the agent,
the tools or the providers.
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

__all__ = [
    "TerminalStyle",
    "detect_style",
    "make_console",
    "render_diff",
    "render_preview",
    "render_resolution",
    "split_label",
]
