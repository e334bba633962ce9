"""A machine without ``tar``: a check is staged by copying, and says so.

The overlay lays the staged files down with ``tar`` inside the sandbox. Where
no ``tar`` is on ``PATH`` the check must still run, on a copy, with the same
verdict, and leave the workspace as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from check_support import CHECK, snapshot

XCSH = str(Path(sys.executable).with_name("xcsh"))
BREAK = ["-p", '$S.encode("latin-1")', "-r", '$S.encode("utf-8")', "six.py"]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="staging needs Linux")


def _path_without_tar(folder: Path) -> str:
    """A folder of links to every program on ``PATH`` but ``tar``."""
    folder.mkdir()
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            target = Path(entry, name)
            link = folder / name
            if name == "tar" or link.exists() or not os.access(target, os.X_OK):
                continue
            link.symlink_to(target)
    return str(folder)


def test_without_tar_a_check_is_staged_by_copy_with_the_same_verdict(
    six_project: Path, tmp_path: Path
) -> None:
    path = _path_without_tar(tmp_path / "bin")
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", "PATH": path}
    env.pop("XCSH_CHECK_STAGING", None)
    before = snapshot(six_project)
    done = subprocess.run(
        [XCSH, "ast-edit", *BREAK, "--check", "--dry-run"],
        cwd=six_project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"check newly fails: {CHECK} (copy," in done.stdout
    assert "newly failing: test_six.py::test_b\n" in done.stdout
    assert snapshot(six_project) == before
