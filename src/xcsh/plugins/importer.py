"""Importing custom tool modules and entry points, once per process (the loader's first half).

Each module file is imported under a unique private name (no ``sys.path``
changes, no bytecode written or read: a ``.pyc`` in ``__pycache__`` is never
used, only the source), so one broken file never affects another and
the same file loaded for two workspaces gives two modules. Problems become
:class:`~xcsh.plugins.results.LoadError` values, never exceptions.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import itertools
import logging
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from xcsh.plugins.discovery import ENTRY_POINT_GROUP, ToolCandidate, ToolSource
from xcsh.plugins.results import LoadError
from xcsh.plugins.trust import how_to_trust

_log = logging.getLogger("xcsh.plugins")
_module_counter = itertools.count(1)
_NO_BYTECODE = Path("/nonexistent/xcsh-no-bytecode")
"""The bytecode folder while project tools are imported: none exists, none is written."""


@dataclass(frozen=True, kw_only=True)
class Imported:
    """A tool module or entry point imported once; its factory still to call."""

    target: object
    path: str
    source: ToolSource
    logger_name: str
    file: Path | None


def entry_points() -> list[importlib.metadata.EntryPoint]:
    """The installed entry points of xcsh's tool group, sorted by name and value."""
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: (ep.name, ep.value))


def installed_inside(entry_point: importlib.metadata.EntryPoint, folder: Path) -> Path | None:
    """Where ``entry_point``'s distribution lives when that is inside ``folder`` (else ``None``).

    A ``*.dist-info`` folder committed to a repository is found whenever the
    repository is on ``sys.path``; such an entry point is project code and
    needs the folder's trust like ``.xcsh/tools``.
    """
    dist = entry_point.dist
    if dist is None:
        return None
    try:
        where = Path(str(dist.locate_file(""))).resolve()
        root = folder.resolve()
    except (OSError, NotImplementedError):
        return None
    return where if where == root or root in where.parents else None


class Importer:
    """Imports custom tool modules and entry points, recording each outcome in ``steps``.

    Attributes:
        cwd: the workspace folder the tools are loaded for.
        steps: what each import gave, in order: an :class:`Imported` or a :class:`LoadError`.
    """

    def __init__(self, *, cwd: Path) -> None:
        self.cwd = cwd
        self.steps: list[Imported | LoadError] = []

    def error(self, path: str, message: str, source: ToolSource) -> None:
        """Record (and log) that the tool at ``path`` from ``source`` failed with ``message``."""
        _log.info("custom tool %s (%s): %s", path, source, message)
        self.steps.append(LoadError(path=path, error=message, source=source))

    def import_module_file(self, candidate: ToolCandidate) -> None:
        """Import the tool module ``candidate`` under a fresh module name and record the outcome.

        Nothing is raised: a module that fails to import is recorded as a :class:`LoadError`.
        """
        path = str(candidate.path)
        stem = re.sub(r"\W", "_", candidate.path.stem)
        module_name = f"_xcsh_tool_{candidate.source}_{next(_module_counter)}_{stem}"
        spec = importlib.util.spec_from_file_location(
            module_name,
            candidate.entry_file,
            submodule_search_locations=[path] if candidate.is_package else None,
        )
        if spec is None or spec.loader is None:
            self.error(path, "cannot be imported as a Python module.", candidate.source)
            return
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        keep_bytecode, keep_prefix = sys.dont_write_bytecode, sys.pycache_prefix
        sys.dont_write_bytecode = True  # never leave __pycache__ in the user's folders
        # ... and never read it: compiled code there may not match the source the
        # user trusted. With a prefix, Python looks for bytecode only under it.
        sys.pycache_prefix = str(_NO_BYTECODE)
        try:
            spec.loader.exec_module(module)
        except SyntaxError as exc:
            sys.modules.pop(module_name, None)
            where = f"{exc.filename or path}, line {exc.lineno}"
            self.error(path, f"SyntaxError: {exc.msg} ({where})", candidate.source)
            return
        except (Exception, SystemExit) as exc:
            sys.modules.pop(module_name, None)
            message = f"import failed: {describe(exc, candidate.path)}"
            self.error(path, message, candidate.source)
            return
        finally:
            sys.dont_write_bytecode, sys.pycache_prefix = keep_bytecode, keep_prefix
        logger_name = f"xcsh.custom_tools.{candidate.source}.{stem}"
        self.steps.append(
            Imported(
                target=module,
                path=path,
                source=candidate.source,
                logger_name=logger_name,
                file=candidate.path,
            )
        )

    def import_entry_point(self, entry_point: importlib.metadata.EntryPoint) -> None:
        """Load ``entry_point`` and record the outcome.

        Nothing is raised: an entry point that fails to load is recorded as a :class:`LoadError`.
        """
        path = entry_point_path(entry_point)
        try:
            target = entry_point.load()
        except (Exception, SystemExit) as exc:
            self.error(path, f"import failed: {describe(exc, None)}", "entry_point")
            return
        logger_name = f"xcsh.custom_tools.entry_point.{entry_point.name}"
        self.steps.append(
            Imported(
                target=target, path=path, source="entry_point", logger_name=logger_name, file=None
            )
        )

    def untrusted_entry_point(
        self, entry_point: importlib.metadata.EntryPoint, where: Path, folder: Path
    ) -> None:
        """Record that ``entry_point`` was not loaded: it is installed inside ``folder``.

        ``where`` is where its distribution is installed; the message recorded says
        how to trust the project folder.
        """
        message = (
            f"not loaded: it is installed inside the project folder ({where}), so it is code "
            f"from the repository. {how_to_trust(folder.resolve())}"
        )
        self.steps.append(
            LoadError(
                path=entry_point_path(entry_point),
                error=message,
                source="entry_point",
                kind="untrusted",
            )
        )


def entry_point_path(entry_point: importlib.metadata.EntryPoint) -> str:
    """How messages name ``entry_point``: its value, its name and its distribution."""
    dist = entry_point.dist.name if entry_point.dist is not None else "unknown distribution"
    return f"{entry_point.value} (entry point {entry_point.name} of {dist})"


def describe(exc: BaseException, file: Path | None) -> str:
    """``Type: message``, plus the innermost line of the tool's own code when known."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if file is None:
        return text
    root = str(file)
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == root or frame.filename.startswith(root.rstrip("/") + "/")
    ]
    if frames:
        text += f" (at {frames[-1].filename}, line {frames[-1].lineno})"
    return text
