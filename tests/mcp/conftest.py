"""Fixtures for the ``xcsh mcp`` tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_helpers import APP, NOTE_TOOL


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    tools = folder / ".xcsh" / "tools"
    tools.mkdir(parents=True)
    (tools / "notes.py").write_text(NOTE_TOOL)
    (folder / "app.py").write_text(APP)
    return folder
