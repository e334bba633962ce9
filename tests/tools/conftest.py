"""Helpers for the coding-tool tests: a workspace folder and a way to call a tool by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from xcsh.core import AgentToolResult
from xcsh.tools.coding import create_coding_tools


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder (its real path, so comparisons hold)."""
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


class Tools:
    def __init__(self, root: Path, allow_outside: tuple[Path, ...] = ()) -> None:
        self.by_name = {t.name: t for t in create_coding_tools(root, allow_outside=allow_outside)}

    async def __call__(self, name: str, **params: Any) -> AgentToolResult:
        return await self.by_name[name].execute("call-1", params)


@pytest.fixture
def tools(ws: Path) -> Tools:
    return Tools(ws)
