"""What the check tests share: the check command, settings.toml and a tree's snapshot.

(A module of its own, not ``conftest``: test files import these by name, and
another folder's ``conftest`` may already hold that module name.)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

CHECK = f"{sys.executable} -m pytest -q test_six.py"
"""The project's check: its own test suite, run by this interpreter's pytest."""


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
