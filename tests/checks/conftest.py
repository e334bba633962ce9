"""A real project with a real test suite for the check tests: ``six``, from its sdist.

The sdist is fetched once per test session with pip (``pip download --no-binary``),
so the project is the package's own source and tests, not a toy; each test gets
its own copy, and its own ``XCSH_HOME`` whose settings set the check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

SIX = "six==1.17.0"
CHECK = f"{sys.executable} -m pytest -q test_six.py"
"""The project's check: its own test suite, run by this interpreter's pytest."""


@pytest.fixture(scope="session")
def six_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The unpacked sdist of six (six.py, test_six.py, setup.cfg, ...)."""
    folder = tmp_path_factory.mktemp("six-sdist")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--no-binary",
            ":all:",
            "--disable-pip-version-check",
            "-q",
            "-d",
            str(folder),
            SIX,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"pip could not fetch the {SIX} sdist:\n{done.stderr}"
    [archive] = folder.glob("six-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    [unpacked] = [p for p in folder.iterdir() if p.is_dir()]
    return unpacked


@pytest.fixture
def six_project(six_source: Path, tmp_path: Path, xcsh_home: Path) -> Path:
    """A fresh copy of six's source and tests, with the check set in settings.toml."""
    project = tmp_path / "six"
    shutil.copytree(six_source, project)
    set_check(xcsh_home, CHECK)
    return project


def set_check(home: Path, command: str, **more: object) -> None:
    """Write settings.toml with ``check = command`` and the other keys given."""
    lines = [f"check = {json.dumps(command)}"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in more.items()]
    (home / "settings.toml").write_text("\n".join(lines) + "\n")


def snapshot(folder: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under ``folder``: its bytes (None for folders) and modification time."""
    out: dict[str, tuple[bytes | None, int]] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root, name)
            rel = path.relative_to(folder).as_posix()
            data = None if path.is_dir() else path.read_bytes()
            out[rel] = (data, path.lstat().st_mtime_ns)
    return out
