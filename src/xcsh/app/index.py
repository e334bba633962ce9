"""The warm structural index of a session or MCP server, sized by ``index_memory``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xcsh.app.settings import load_settings
from xcsh.core import UsageError

if TYPE_CHECKING:
    from xcsh.structural.warm import WarmIndex


def open_index(home: Path, settings: Mapping[str, Any] | None = None) -> WarmIndex:
    """An empty :class:`~xcsh.structural.warm.WarmIndex` keeping at most ``index_memory``
    bytes of syntax trees and answers (``home/settings.toml``; default 256 MiB).

    Raises:
        UsageError: ``index_memory`` is not a size (the message names the file and the fix).
    """
    from xcsh.structural.warm import DEFAULT_INDEX_MEMORY, WarmIndex, parse_index_memory

    values = load_settings(home) if settings is None else settings
    where = str(home / "settings.toml")
    try:
        memory = parse_index_memory(values.get("index_memory", DEFAULT_INDEX_MEMORY), where)
    except ValueError as exc:
        raise UsageError(str(exc), hint='write for instance index_memory = "256 MiB"') from None
    return WarmIndex(memory)


__all__ = ["open_index"]
