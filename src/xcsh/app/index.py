"""The warm structural index of a session or MCP server, sized by ``index_memory``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.app.settings import Settings, load_settings

if TYPE_CHECKING:
    from xcsh.structural.scan.warm import WarmIndex


def index_memory(home: Path, settings: Settings | None = None) -> int:
    """Read the ``index_memory`` setting of ``home/settings.toml``, in bytes.

    Args:
        home: xcsh's home folder.
        settings: the file already read; it is read from ``home`` when None.

    Returns:
        The bytes the warm index may keep (256 MiB when the setting is absent).

    Raises:
        UsageError: bad settings, such as an ``index_memory`` that is not a size (the
            message names the file and the fix).
    """
    return (load_settings(home) if settings is None else settings).index_memory


def open_index(home: Path, settings: Settings | None = None) -> WarmIndex:
    """Open an empty warm structural index sized by the ``index_memory`` setting.

    The :class:`~xcsh.structural.scan.warm.WarmIndex` keeps at most :func:`index_memory`
    bytes of syntax trees and answers.

    Raises:
        UsageError: as :func:`index_memory`.
    """
    memory = index_memory(home, settings)
    from xcsh.structural.scan.warm import WarmIndex  # the engine loads with the tools

    return WarmIndex(memory)


__all__ = ["index_memory", "open_index"]
