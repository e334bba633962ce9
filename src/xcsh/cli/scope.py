"""Where a command works: the workspace its paths belong to, and what an empty scope means."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from xcsh.core import UsageError
from xcsh.fs.walk import repository_top


def empty_scope_message(lang: str | None, paths: list[str]) -> str:
    """Why nothing was searched: PATH, ``--globs`` and ``-l`` leave no file in scope.

    Both commands exit :data:`EXIT_BAD_INPUT` with it, with or without ``-l``
    (without ``-l`` the engine says the same in its own words).
    """
    where = ", ".join(f"'{path}'" for path in paths) or "'.'"
    return (
        f"No {lang} file to search in {where}. Check PATH and --globs "
        "(a glob starting with ! leaves files out)."
    )


def workspace_for(paths: Sequence[str], cwd: str | None = None) -> tuple[str, list[str]]:
    """The workspace of one run and the PATHs to give the engine.

    A person running ``xcsh ast-grep``/``ast-edit`` decides what may be read, as
    with the ``ast-grep`` CLI: PATHs inside the current folder are searched with
    the current folder as the workspace; PATHs outside it make their
    repository (the nearest folder above holding ``.git``), or else their own
    folder, the workspace. A glob or a missing PATH stays relative to the
    current folder (the engine then says what is wrong). Confinement to the
    workspace still holds for what a model asks through the tools.

    Returns:
        ``(root, paths)``: the workspace folder, and each PATH as given when it
        is inside the current folder, else as an absolute path.

    Raises:
        UsageError: PATHs outside the current folder lie in different workspaces, or
            one of them (not a glob) does not exist.
    """
    here = os.path.realpath(cwd if cwd is not None else os.getcwd())
    roots: dict[str, list[str]] = {}
    given: list[str] = []
    for path in paths:
        real = os.path.realpath(os.path.expanduser(path))
        inside = real == here or real.startswith(here + os.sep)
        if not inside and not os.path.lexists(real) and not set("*?[") & set(path):
            raise UsageError(
                f"Path '{path}' does not exist.",
                hint="give an existing file, folder or a glob such as 'src/**/*.py'",
            )
        if inside or not os.path.exists(real):
            roots.setdefault(here, []).append(path)
            given.append(path)
            continue
        folder = Path(real if os.path.isdir(real) else os.path.dirname(real))
        root = str(repository_top(folder) or folder)
        roots.setdefault(root, []).append(path)
        given.append(real)
    if len(roots) > 1:
        listed = "; ".join(f"{root} ({', '.join(ps)})" for root, ps in roots.items())
        raise UsageError(
            f"the PATHs lie in different workspaces: {listed}",
            hint="run the command once per workspace",
        )
    return (next(iter(roots)) if roots else here), given
