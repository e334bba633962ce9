"""Fixtures for custom-tool tests: a project folder and the two tool folders."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project folder (the session's working folder)."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def project_tools(project: Path) -> Path:
    """``<project>/.xcsh/tools`` (not created)."""
    return project / ".xcsh" / "tools"


@pytest.fixture
def user_tools(xcsh_home: Path) -> Path:
    """``$XCSH_HOME/tools`` (not created)."""
    return xcsh_home / "tools"
