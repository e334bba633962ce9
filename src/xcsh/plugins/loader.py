"""Loading custom tools: discovery, isolated import, ``factory(api)``, checks (contract §5).

Order, which decides who wins a name clash (the later tool is refused):

1. built-in names (``builtin_names``) are taken first;
2. user tools, ``$XCSH_HOME/tools/``, sorted by file name;
3. installed entry points of the group ``xcsh.tools``, sorted by name;
4. project tools, ``<cwd>/.xcsh/tools/``, sorted by file name, only when the
   folder is trusted (:mod:`xcsh.plugins.trust`) or ``trust_project`` is set.

Project tools come last so a repository can never shadow a tool the user
installed. Every problem becomes a :class:`LoadError` in the result; loading
never raises because of a tool module.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import types
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from xcsh.checks import Checker
from xcsh.core import AgentTool, UsageError, describe_value_type
from xcsh.journal import Journal
from xcsh.pending import PendingActionStore
from xcsh.plugins.api import CustomToolAPI, ToolUI
from xcsh.plugins.discovery import (
    ToolSource,
    folder_problem,
    project_tool_candidates,
    project_tools_dir,
    same_folder,
    scan_folder,
    user_tools_dir,
)
from xcsh.plugins.importer import Imported, Importer, describe, installed_inside
from xcsh.plugins.importer import entry_points as installed_entry_points
from xcsh.plugins.results import LoadedTool, LoadError, LoadResult
from xcsh.plugins.tool import TOOL_NAME_PATTERN, CustomTool
from xcsh.plugins.trust import is_trusted, trust_file, untrusted_message
from xcsh.tools.registry import BUILTIN_TOOL_NAMES

_log = logging.getLogger("xcsh.plugins")

__all__ = [
    "CustomToolSet",
    "LoadError",
    "LoadResult",
    "LoadedTool",
    "aload_custom_tools",
    "aprepare_custom_tools",
    "load_custom_tools",
    "prepare_custom_tools",
]


@dataclass(kw_only=True)
class CustomToolSet:
    """Custom tool modules imported once, ready to build tools for any number of sessions.

    :func:`aprepare_custom_tools` imports every module (and entry point) one
    time; :meth:`abuild` then calls each module's ``factory(api)`` with an
    ``api`` wired to the given store, so a server with many sessions runs each
    module's top level once and gives every session its own tool instances.

    Args:
        cwd: the workspace the tools work in.
        steps: imported modules and import errors, in load order.
    """

    cwd: Path
    steps: list[Imported | LoadError] = field(default_factory=list)

    async def abuild(
        self,
        *,
        store: PendingActionStore | None = None,
        builtin_names: Iterable[str] = BUILTIN_TOOL_NAMES,
        ui: ToolUI | None = None,
        checker: Checker | None = None,
        journal: Journal | None = None,
    ) -> LoadResult:
        """Call every factory for one session; arguments as :func:`load_custom_tools`."""
        loader = _Loader(
            cwd=self.cwd,
            store=store,
            ui=ui,
            builtin_names=builtin_names,
            checker=checker,
            journal=journal,
        )
        for step in self.steps:
            if isinstance(step, LoadError):
                loader.result.errors.append(step)
            else:
                await loader.run_factory(step)
        return loader.result

    def build(
        self,
        *,
        store: PendingActionStore | None = None,
        builtin_names: Iterable[str] = BUILTIN_TOOL_NAMES,
        ui: ToolUI | None = None,
        checker: Checker | None = None,
        journal: Journal | None = None,
    ) -> LoadResult:
        """:meth:`abuild` from sync code (inside a running loop, on a worker thread)."""
        return _run_sync(
            self.abuild(
                store=store, builtin_names=builtin_names, ui=ui, checker=checker, journal=journal
            )
        )


async def aprepare_custom_tools(
    cwd: str | Path,
    *,
    home: str | Path | None = None,
    trust_project: bool = False,
    entry_points: bool = True,
) -> CustomToolSet:
    """Discover and import the custom tool modules for ``cwd``, once.

    Discovery, order and trust as :func:`load_custom_tools`; import problems
    become :class:`LoadError` steps of the result (never raised).
    """
    importer = Importer(cwd=Path(cwd))
    user_dir = user_tools_dir(home)
    user_candidates, problem = scan_folder(user_dir, "user")
    if problem is not None:
        importer.error(str(user_dir), problem, "user")
    for candidate in user_candidates:
        importer.import_module_file(candidate)
    project = project_tool_candidates(cwd, home=home)
    project_dir = project_tools_dir(cwd)
    trusted = bool(trust_project)
    trust_problem: str | None = None
    if not trusted and project:
        try:
            trusted = is_trusted(cwd, home)
        except UsageError as exc:
            trust_problem = str(exc)
    if entry_points:
        for entry_point in installed_entry_points():
            inside = installed_inside(entry_point, Path(cwd))
            if inside is not None and not trusted:
                importer.untrusted_entry_point(entry_point, inside, Path(cwd))
                continue
            importer.import_entry_point(entry_point)
    problem = None if same_folder(project_dir, user_dir) else folder_problem(project_dir)
    if problem is not None:
        importer.error(str(project_dir), problem, "project")
    if trust_problem is not None:
        importer.error(str(trust_file(home)), trust_problem, "project")
    if project:
        if trusted:
            for candidate in project:
                importer.import_module_file(candidate)
        else:
            message = untrusted_message(Path(cwd).resolve(), project_dir, home=home)
            importer.steps.append(
                LoadError(path=str(project_dir), error=message, source="project", kind="untrusted")
            )
    return CustomToolSet(cwd=Path(cwd), steps=importer.steps)


async def aload_custom_tools(
    cwd: str | Path,
    *,
    store: PendingActionStore | None = None,
    builtin_names: Iterable[str] = BUILTIN_TOOL_NAMES,
    home: str | Path | None = None,
    trust_project: bool = False,
    entry_points: bool = True,
    ui: ToolUI | None = None,
    checker: Checker | None = None,
    journal: Journal | None = None,
) -> LoadResult:
    """Discover and load custom tools; the async form of :func:`load_custom_tools`.

    Async factories are awaited on the running event loop. Arguments and
    result as :func:`load_custom_tools`, and: ``checker``, the project's check,
    and ``journal``, the workspace's undo journal, both handed to each tool's
    :class:`~xcsh.plugins.api.CustomToolAPI`.
    """
    prepared = await aprepare_custom_tools(
        cwd, home=home, trust_project=trust_project, entry_points=entry_points
    )
    return await prepared.abuild(
        store=store, builtin_names=builtin_names, ui=ui, checker=checker, journal=journal
    )


def load_custom_tools(
    cwd: str | Path,
    *,
    store: PendingActionStore | None = None,
    builtin_names: Iterable[str] = BUILTIN_TOOL_NAMES,
    home: str | Path | None = None,
    trust_project: bool = False,
    entry_points: bool = True,
    ui: ToolUI | None = None,
) -> LoadResult:
    """Discover and load custom tools for a session working in ``cwd`` (contract §5).

    Args:
        cwd: the session's working folder; its ``.xcsh/tools/`` holds project tools.
        store: the session's pending-action store, wired to every tool's
            ``api.push_pending_action``; ``None`` (the default) when the runtime
            has none: pushing then fails the tool call with exactly
            ``Pending action store unavailable for custom tools in this runtime.``
        builtin_names: names already taken (default: every built-in tool).
        home: the user-state folder (default ``$XCSH_HOME``, else ``~/.xcsh``).
        trust_project: load project tools even if the folder is not trusted
            (``--trust-project``, or the answer of :func:`xcsh.plugins.ask_trust`).
        entry_points: also load the ``xcsh.tools`` entry points of installed packages.
        ui: the front end's :class:`~xcsh.plugins.api.ToolUI` (headless when ``None``).

    Returns:
        A :class:`LoadResult`: ``tools`` (core ``AgentTool`` objects), ``loaded``
        (with source and path) and ``errors`` (:class:`LoadError`, never raised).

    Called from inside a running event loop, async factories run on a private
    loop in a worker thread; async code should prefer :func:`aload_custom_tools`.
    """
    coro = aload_custom_tools(
        cwd,
        store=store,
        builtin_names=builtin_names,
        home=home,
        trust_project=trust_project,
        entry_points=entry_points,
        ui=ui,
    )
    return _run_sync(coro)


def prepare_custom_tools(
    cwd: str | Path,
    *,
    home: str | Path | None = None,
    trust_project: bool = False,
    entry_points: bool = True,
) -> CustomToolSet:
    """:func:`aprepare_custom_tools` from sync code."""
    return _run_sync(
        aprepare_custom_tools(
            cwd, home=home, trust_project=trust_project, entry_points=entry_points
        )
    )


_T = TypeVar("_T")


def _run_sync(coro: Coroutine[object, None, _T]) -> _T:
    """``coro`` run to its end on a loop of its own (a worker thread's when one runs here)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class _Loader:
    def __init__(
        self,
        *,
        cwd: Path,
        store: PendingActionStore | None,
        ui: ToolUI | None,
        builtin_names: Iterable[str],
        checker: Checker | None = None,
        journal: Journal | None = None,
    ) -> None:
        self.cwd = cwd
        self.store = store
        self.checker = checker
        self.journal = journal
        self.ui = ui
        self.result = LoadResult()
        self.taken: dict[str, str] = {name: "" for name in builtin_names}

    def error(self, path: str, message: str, source: ToolSource) -> None:
        _log.info("custom tool %s (%s): %s", path, source, message)
        self.result.errors.append(LoadError(path=path, error=message, source=source))

    async def run_factory(self, step: Imported) -> None:
        await self._run_factory(step.target, step.path, step.source, step.logger_name, step.file)

    async def _run_factory(
        self, target: object, path: str, source: ToolSource, logger_name: str, file: Path | None
    ) -> None:
        is_module = isinstance(target, types.ModuleType)
        factory = getattr(target, "factory", None) if is_module else target
        if factory is None:
            self.error(
                path,
                "no function named 'factory'. Define 'def factory(api): ...' returning a "
                "CustomTool or a list of them.",
                source,
            )
            return
        if not callable(factory):
            kind = describe_value_type(factory)
            self.error(path, f"'factory' is {kind}, not a function.", source)
            return
        logger = logging.getLogger(logger_name)
        api = CustomToolAPI(
            self.cwd,
            store=self.store,
            logger=logger,
            ui=self.ui,
            source=source,
            checker=self.checker,
            journal=self.journal,
        )
        try:
            outcome = factory(api)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except (Exception, SystemExit) as exc:
            self.error(path, f"factory raised {describe(exc, file)}", source)
            return
        items = list(outcome) if isinstance(outcome, list | tuple) else [outcome]
        for item in items:
            self._register(item, path, source)

    def _register(self, item: object, path: str, source: ToolSource) -> None:
        if isinstance(item, CustomTool):
            tool = item.to_agent_tool()
        elif isinstance(item, AgentTool):
            tool = item
        else:
            self.error(
                path,
                f"factory returned {describe_value_type(item)}; expected a CustomTool "
                "or a list of CustomTool.",
                source,
            )
            return
        if not isinstance(tool.name, str) or not TOOL_NAME_PATTERN.match(tool.name):
            self.error(
                path,
                f"invalid tool name {tool.name!r}: use 1-64 letters, digits, '_' or '-'.",
                source,
            )
            return
        if tool.name in self.taken:
            owner = self.taken[tool.name]
            if owner:
                message = f"tool name '{tool.name}' is already used by {owner}; rename one of them."
            else:
                message = f"tool name '{tool.name}' clashes with a built-in tool; rename it."
            self.error(path, message, source)
            return
        self.taken[tool.name] = f"the {source} tool at {path}"
        self.result.loaded.append(LoadedTool(tool=tool, source=source, path=path))
