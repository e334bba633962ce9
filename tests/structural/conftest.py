"""Fixtures for the structural tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root
