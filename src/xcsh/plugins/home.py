"""The user-state folder, ``$XCSH_HOME`` (SPEC §5a)."""

from __future__ import annotations

import os
from pathlib import Path


def xcsh_home(home: str | Path | None = None) -> Path:
    """``home`` if given, else ``$XCSH_HOME``, else ``~/.xcsh``.

    Everything xcsh writes for the user (settings, tools, sessions, trust
    records) lives under this folder.
    """
    if home is not None:
        return Path(home)
    env = os.environ.get("XCSH_HOME")
    return Path(env) if env else Path.home() / ".xcsh"
