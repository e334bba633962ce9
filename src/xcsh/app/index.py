"""The warm structural index of a session or MCP server, sized by ``index_memory``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcsh.app.settings import load_settings
from xcsh.core import UsageError
from xcsh.structural.warm_cache import DEFAULT_INDEX_MEMORY, parse_index_memory

if TYPE_CHECKING:
    from xcsh.structural.warm import WarmIndex


def index_memory(home: Path, settings: Mapping[str, Any] | None = None) -> int:
    """``index_memory`` of ``home/settings.toml`` in bytes (default 256 MiB).

    Raises:
        UsageError: it is not a size (the message names the file and the fix).
    """
    values = load_settings(home) if settings is None else settings
    where = str(home / "settings.toml")
    try:
        return parse_index_memory(values.get("index_memory", DEFAULT_INDEX_MEMORY), where)
    except ValueError as exc:
        raise UsageError(str(exc), hint='write for instance index_memory = "256 MiB"') from None


def open_index(home: Path, settings: Mapping[str, Any] | None = None) -> WarmIndex:
    """An empty :class:`~xcsh.structural.warm.WarmIndex` keeping at most
    :func:`index_memory` bytes of syntax trees and answers.

    Raises:
        UsageError: as :func:`index_memory`.
    """
    memory = index_memory(home, settings)
    from xcsh.structural.warm import WarmIndex  # the engine loads with the tools

    return WarmIndex(memory)


__all__ = ["index_memory", "open_index"]
