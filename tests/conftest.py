"""Shared fixtures: every test gets its own XCSH_HOME (contract §5a), and permission
tests get a way to run as an ordinary user when the suite runs as root."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

NOBODY_UID = 65534


def pytest_configure(config: pytest.Config) -> None:
    """Give the signals the tests send their default actions back.

    A suite started as a background job (as CI runners and `nohup` do) inherits
    SIGINT and SIGHUP ignored, and every `xcsh` the tests start would inherit that
    too, so Ctrl-C and hang-up tests would see signals that do nothing.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)


@pytest.fixture(autouse=True)
def xcsh_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("xcsh-home")
    monkeypatch.setenv("XCSH_HOME", str(home))
    return home


@contextlib.contextmanager
def _as_nobody() -> Iterator[None]:
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(NOBODY_UID)
    try:
        yield
    finally:
        os.seteuid(0)


@pytest.fixture
def unprivileged() -> Callable[[], contextlib.AbstractContextManager[None]]:
    """``with unprivileged(): ...`` runs the block with the effective uid of
    ``nobody`` when the suite runs as root (root ignores permission bits), and
    as the current user otherwise, so folder and file modes apply either way.
    Pair it with :func:`open_tmp_path`: pytest's own temporary folders are
    private to their owner, so ``nobody`` cannot reach into them."""
    return _as_nobody


@pytest.fixture
def open_tmp_path() -> Iterator[Path]:
    """A fresh folder (real path) that any user may enter, removed after the
    test whatever modes the test left on its contents."""
    root = Path(tempfile.mkdtemp(prefix="xcsh-test-")).resolve()
    root.chmod(0o755)
    try:
        yield root
    finally:
        for folder, _, _ in os.walk(root):
            with contextlib.suppress(OSError):
                os.chmod(folder, stat.S_IRWXU)
        shutil.rmtree(root, ignore_errors=True)
