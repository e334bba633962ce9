"""The terminal tests in tmux share one fixture: a private tmux server, closed after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_harness import TmuxXcsh


@pytest.fixture
def term(tmp_path: Path) -> Iterator[TmuxXcsh]:
    tmux = TmuxXcsh(tmp_path)
    try:
        yield tmux
    finally:
        tmux.close()
