"""The warm structural index of a session or MCP server, sized by ``index_memory``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.app.settings import Settings, load_settings

if TYPE_CHECKING:
    from xcsh.structural.warm import WarmIndex


def index_memory(home: Path, settings: Settings | None = None) -> int:
    """``index_memory`` of ``home/settings.toml`` in bytes (default 256 MiB; ``settings``:
    the file already read).

    Raises:
        UsageError: bad settings, such as an ``index_memory`` that is not a size (the
            message names the file and the fix).
    """
    return (load_settings(home) if settings is None else settings).index_memory


def open_index(home: Path, settings: Settings | None = None) -> WarmIndex:
    """An empty :class:`~xcsh.structural.warm.WarmIndex` keeping at most
    :func:`index_memory` bytes of syntax trees and answers.

    Raises:
        UsageError: as :func:`index_memory`.
    """
    memory = index_memory(home, settings)
    from xcsh.structural.warm import WarmIndex  # the engine loads with the tools

    return WarmIndex(memory)


__all__ = ["index_memory", "open_index"]
