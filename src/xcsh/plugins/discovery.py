"""Where custom tool modules are found (contract §5, §5a).

Two folders, each scanned one level deep:

- the user folder ``$XCSH_HOME/tools/`` (source ``"user"``);
- the project folder ``<cwd>/.xcsh/tools/`` (source ``"project"``, needs trust).

In each, a tool module is a top-level ``*.py`` file or a package (a folder
with ``__init__.py``). Names starting with ``_`` or ``.`` are skipped, so
helpers such as ``_common.py`` and ``__pycache__`` are never loaded as tools.
A missing folder is normal; a path that exists but cannot be listed (a file,
no permission) is reported by the loader as a load error, never skipped silently.
Installed distributions add tools through the entry-point group ``xcsh.tools``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcsh.fs import xcsh_home

ToolSource = Literal["project", "user", "entry_point"]
ENTRY_POINT_GROUP = "xcsh.tools"


@dataclass(frozen=True, kw_only=True)
class ToolCandidate:
    """A module that may define ``factory``.

    Args:
        path: the ``*.py`` file, or the package folder.
        source: ``"project"`` or ``"user"``.
        is_package: True for a package folder.
    """

    path: Path
    source: ToolSource
    is_package: bool = False

    @property
    def entry_file(self) -> Path:
        """The file executed on import (``__init__.py`` for a package)."""
        return self.path / "__init__.py" if self.is_package else self.path


def project_tools_dir(cwd: str | Path) -> Path:
    """``<cwd>/.xcsh/tools``."""
    return Path(cwd) / ".xcsh" / "tools"


def user_tools_dir(home: str | Path | None = None) -> Path:
    """``$XCSH_HOME/tools``."""
    return xcsh_home(home) / "tools"


def candidates_in(folder: Path, source: ToolSource) -> list[ToolCandidate]:
    """Tool modules directly inside ``folder``, sorted by name.

    ``[]`` if it does not exist or cannot be listed (:func:`folder_problem` says why).
    """
    return scan_folder(folder, source)[0]


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold tools although something is there, or ``None``.

    ``None`` when it is a listable folder, or nothing exists at that path.
    """
    return scan_folder(folder, "user")[1]


def scan_folder(folder: Path, source: ToolSource) -> tuple[list[ToolCandidate], str | None]:
    """The tool modules in ``folder``, and a message when it exists but cannot be listed.

    The message (for a file, or a folder without permission) says how to fix it.
    A missing folder is no problem: ``([], None)``.
    """
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except FileNotFoundError:
        return [], None
    except NotADirectoryError:
        if not folder.exists():  # a parent is a file: nothing is at this path
            return [], None
        return [], (
            f"{folder} is a file, not a folder, so no tools load from it. Custom tools "
            "are .py files or packages inside a folder of that name: move the file aside."
        )
    except OSError as exc:
        return [], f"cannot list {folder}: {exc.strerror or exc}. No tools load from it."
    found: list[ToolCandidate] = []
    for entry in entries:
        if entry.name.startswith(("_", ".")):
            continue
        path = Path(entry.path)
        if entry.is_file() and entry.name.endswith(".py"):
            found.append(ToolCandidate(path=path, source=source))
        elif entry.is_dir() and (path / "__init__.py").is_file():
            found.append(ToolCandidate(path=path, source=source, is_package=True))
    return found, None


def same_folder(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` are the same folder once symlinks are resolved."""
    return os.path.realpath(a) == os.path.realpath(b)


def project_tool_candidates(
    cwd: str | Path, *, home: str | Path | None = None
) -> list[ToolCandidate]:
    """The project's tool modules.

    ``[]`` when the project folder *is* the user folder (working in the parent of
    ``$XCSH_HOME``), whose tools load as user tools.
    """
    folder = project_tools_dir(cwd)
    if same_folder(folder, user_tools_dir(home)):
        return []
    return candidates_in(folder, "project")
