"""Paths no tool of xcsh's writes: what other programs run without asking.

A file inside ``.git`` (hooks, ``core.fsmonitor`` in ``.git/config``, a
``.git`` file pointing git at another folder) is run by git on the user's
next ``git status``; ``.hg/hgrc`` holds Mercurial's hooks; ``.xcsh`` holds
the project's own tools, settings and check command, which xcsh runs once
the user trusts the folder. None of them shows in ``git diff``, so a change
there would never be reviewed. :func:`protected_reason` is the one check:
the journal refuses such a change whatever proposed it (``write``, ``edit``,
an ``ast_edit`` preview, a custom tool's files, a command's preview), and
the bash sandbox keeps the same folders read-only. Standard library only, so
every layer may use it.
"""

from __future__ import annotations

PROTECTED_NAMES = (".git", ".hg", ".xcsh")
"""Folder names (at any depth; ``.git`` also as a file) whose contents no tool writes."""

_WHY = {
    ".git": "git runs what it holds (hooks, core.fsmonitor in .git/config) on your next git "
    "command without asking",
    ".hg": "Mercurial runs the hooks in .hg/hgrc on your next hg command without asking",
    ".xcsh": "it holds the project's xcsh tools and settings, which run with your trust",
}


def protected_part(path: str) -> str | None:
    """The protected name among the parts of ``path`` (``/`` separators), or ``None``."""
    for part in path.split("/"):
        if part in _WHY:
            return part
    return None


def protected_reason(path: str, shown: str | None = None) -> str | None:
    """Why no tool may write ``path``, as a refusal for the model and the user; else ``None``.

    Args:
        path: relative to the workspace (or an allowed folder), ``/`` separators,
            the file's real location.
        shown: how the message names the file (default ``path``).

    Returns:
        ``"Refused to write .git/config: it is inside .git, and git runs ... Nothing was
        written; ..."``, or ``None`` when ``path`` is not protected.
    """
    part = protected_part(path)
    if part is None:
        return None
    where = part if path.rstrip("/").rsplit("/", 1)[-1] == part else f"inside {part}"
    return (
        f"Refused to write {shown or path}: it is {where}, and {_WHY[part]}. "
        "xcsh's tools never write there. Nothing was written; if the user wants this "
        "change, they make it themselves."
    )
