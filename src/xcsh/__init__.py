"""xcsh: a terminal coding agent whose destructive tools preview first.

A tool that would change something shows a preview and pushes a
:class:`PendingAction`; nothing changes until the hidden ``resolve`` tool is
called with ``apply`` or ``discard``. The public names below are stable.

Importing ``xcsh`` loads nothing else: each public name is imported from its
layer when first used (a function-level import, so the import-layer check
sees it), which keeps ``xcsh --help`` and ``xcsh ast-grep`` quick.
"""

from __future__ import annotations

import os as _os
import sys as _sys

# ``python -m xcsh`` puts the current folder first on sys.path, so a repository's
# own ``rich.py`` (or a ``*.dist-info`` entry point) would be imported instead of
# the real one. While ``-m`` locates this package, sys.argv[0] is "-m": drop that
# entry before anything else is imported (``python -P`` never adds it).
if (
    _sys.argv[:1] == ["-m"]
    and not _sys.flags.safe_path
    and _sys.path
    and _os.path.realpath(_sys.path[0] or ".") == _os.path.realpath(_os.getcwd())
):
    del _sys.path[0]

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports

if TYPE_CHECKING:
    from xcsh.core import (
        AgentTool,
        AgentToolResult,
        ImageContent,
        TextContent,
        ToolError,
        UsageError,
        XcshError,
    )
    from xcsh.pending import PendingAction, PendingActionStore
    from xcsh.plugins import CustomTool, CustomToolAPI, CustomToolPendingAction, load_custom_tools

__version__ = "0.1.0"

# The package root is the public facade over every layer; nothing below imports it
# for these names, so the imports wait until a name is asked for.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.core": (
            "AgentTool",
            "AgentToolResult",
            "ImageContent",
            "TextContent",
            "ToolError",
            "UsageError",
            "XcshError",
        ),
        "xcsh.pending": ("PendingAction", "PendingActionStore"),
        "xcsh.plugins": (
            "CustomTool",
            "CustomToolAPI",
            "CustomToolPendingAction",
            "load_custom_tools",
        ),
    },
)


__all__ = [
    "AgentTool",
    "AgentToolResult",
    "CustomTool",
    "CustomToolAPI",
    "CustomToolPendingAction",
    "ImageContent",
    "PendingAction",
    "PendingActionStore",
    "TextContent",
    "ToolError",
    "UsageError",
    "XcshError",
    "__version__",
    "load_custom_tools",
]
