"""A real project with a real test suite for the check tests: ``six``, from its sdist.

The sdist is fetched once per test session with pip (``pip download --no-binary``),
so the project is the package's own source and tests, not a toy; each test gets
its own copy, and its own ``XCSH_HOME`` whose settings set the check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from check_support import CHECK, set_check

SIX = "six==1.17.0"


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
