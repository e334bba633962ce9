"""Shared fixtures: every test gets its own XCSH_HOME (SPEC §5a)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def xcsh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("xcsh-home")
    monkeypatch.setenv("XCSH_HOME", str(home))
    return home
