"""The user-state folder, ``$XCSH_HOME`` (contract §5a).

It lives in this low layer so that every layer that writes user state (the
``bash`` tool's logs, custom tools and trust records, sessions) finds the
same folder the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def xcsh_home(home: str | Path | None = None, *, env: Mapping[str, str] | None = None) -> Path:
    """The folder that holds all of a user's xcsh state.

    Args:
        home: an explicit folder; returned as given when not ``None``.
        env: the environment to read ``XCSH_HOME`` from (default ``os.environ``).

    Returns:
        ``home`` if given, else ``$XCSH_HOME``, else ``~/.xcsh`` (also when
        ``XCSH_HOME`` is set but empty). The folder is not created here.

    Everything xcsh writes for the user (settings, tools, sessions, trust
    records, logs) lives under this folder; nothing is written outside it or
    the workspace (contract §5a).
    """
    if home is not None:
        return Path(home)
    value = (os.environ if env is None else env).get("XCSH_HOME")
    return Path(value) if value else Path.home() / ".xcsh"


def journal_folder(home: Path, root: Path) -> Path:
    """The undo journal's folder of the workspace ``root`` (its real path).

    ``$XCSH_HOME/journal/<name>-<12 hex of the path's sha256>``; not created here.
    """
    import hashlib  # here, not at the top: OpenSSL's import costs a search a few ms

    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode()).hexdigest()[:12]
    return home / "journal" / f"{_journal_prefix(real)}{digest}"


def _journal_prefix(real: str) -> str:
    return f"{os.path.basename(real) or 'root'}-"


def interrupted_in(home: Path, root: Path) -> bool:
    """True when the journal of the workspace ``root`` holds an unfinished entry.

    That is an intent record without its outcome record: an apply running now,
    or one a crash interrupted. No lock.

    When no journal folder carries ``root``'s name (a folder xcsh never changed), one
    listing answers, without hashing the path; otherwise one more lists the entries.
    """
    prefix = _journal_prefix(os.path.realpath(root))
    try:
        if not any(name.startswith(prefix) for name in os.listdir(home / "journal")):
            return False
        names = set(os.listdir(journal_folder(home, root) / "entries"))
    except OSError:
        return False
    return any(
        n.endswith(".json") and n[:6].isdigit() and f"{n[:6]}.state" not in names for n in names
    )
