"""xcsh: a terminal coding agent whose destructive tools preview first.

A tool that would change something shows a preview and pushes a
:class:`PendingAction`; nothing changes until the hidden ``resolve`` tool is
called with ``apply`` or ``discard``. The public names below are stable
(SPEC §8).
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

import importlib
from typing import Any

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

__version__ = "0.1.0"

_PLUGIN_NAMES = {"CustomTool", "CustomToolAPI", "CustomToolPendingAction", "load_custom_tools"}


def __getattr__(name: str) -> Any:
    # The custom-tool layer sits above the core; import it only when asked for.
    if name in _PLUGIN_NAMES:
        return getattr(importlib.import_module("xcsh.plugins"), name)
    raise AttributeError(f"module 'xcsh' has no attribute {name!r}")


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
