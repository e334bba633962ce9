"""Loading custom tools: discovery, isolated import, ``factory(api)``, checks (SPEC §5).

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
import importlib.metadata
import importlib.util
import inspect
import itertools
import logging
import re
import sys
import traceback
import types
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from xcsh.core import AgentTool, UsageError, describe_value_type
from xcsh.pending import PendingActionStore
from xcsh.plugins.api import TOOL_NAME_PATTERN, CustomTool, CustomToolAPI, ToolUI
from xcsh.plugins.discovery import (
    ENTRY_POINT_GROUP,
    ToolCandidate,
    ToolSource,
    folder_problem,
    project_tool_candidates,
    project_tools_dir,
    same_folder,
    scan_folder,
    user_tools_dir,
)
from xcsh.plugins.trust import is_trusted, trust_file, untrusted_message
from xcsh.tools.registry import BUILTIN_TOOL_NAMES

_log = logging.getLogger("xcsh.plugins")
_module_counter = itertools.count(1)


@dataclass(frozen=True, kw_only=True)
class LoadError:
    """A tool module (or entry point) that did not yield tools.

    Args:
        path: the file or package folder; for an entry point,
            ``"<module:attr> (entry point <name> of <distribution>)"``.
        error: what went wrong and, where it helps, how to fix it.
        source: ``"project"``, ``"user"`` or ``"entry_point"``.
        kind: ``"error"`` for a broken module, ``"untrusted"`` for the notice that
            a project's tools were skipped because the folder is not trusted.
    """

    path: str
    error: str
    source: ToolSource
    kind: Literal["error", "untrusted"] = "error"

    def to_dict(self) -> dict[str, str]:
        """``{path, error, source, kind}`` for JSON output."""
        return {"path": self.path, "error": self.error, "source": self.source, "kind": self.kind}


@dataclass(frozen=True, kw_only=True)
class LoadedTool:
    """A tool that loaded, with where it came from.

    Args:
        tool: the core tool; ``await tool.execute(tool_call_id, params)`` runs it.
        source: ``"project"``, ``"user"`` or ``"entry_point"``.
        path: the module file or package folder (entry points: as in :class:`LoadError`).
    """

    tool: AgentTool[Any]
    source: ToolSource
    path: str


@dataclass(kw_only=True)
class LoadResult:
    """What :func:`load_custom_tools` found.

    Args:
        loaded: the tools with their origin, in load order.
        errors: every problem, in the order met; shown to the user.

    The result is also awaitable (it resolves to itself), so
    ``await load_custom_tools(...)`` works as with an async loader.
    """

    loaded: list[LoadedTool] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)

    @property
    def tools(self) -> list[AgentTool[Any]]:
        """The loaded tools, ready to hand to a session."""
        return [entry.tool for entry in self.loaded]

    @property
    def failures(self) -> list[LoadError]:
        """The errors that are real failures (not the untrusted-folder notice)."""
        return [error for error in self.errors if error.kind == "error"]

    @property
    def untrusted(self) -> bool:
        """True when project tools were skipped because the folder is not trusted."""
        return any(error.kind == "untrusted" for error in self.errors)

    def __await__(self) -> Generator[Any, None, LoadResult]:
        return self
        yield  # pragma: no cover - makes this a generator


async def aload_custom_tools(
    cwd: str | Path,
    *,
    store: PendingActionStore | None = None,
    builtin_names: Iterable[str] = BUILTIN_TOOL_NAMES,
    home: str | Path | None = None,
    trust_project: bool = False,
    entry_points: bool = True,
    ui: ToolUI | None = None,
) -> LoadResult:
    """Discover and load custom tools; the async form of :func:`load_custom_tools`.

    Async factories are awaited on the running event loop. Arguments and
    result as :func:`load_custom_tools`.
    """
    loader = _Loader(cwd=Path(cwd), store=store, ui=ui, builtin_names=builtin_names)
    user_dir = user_tools_dir(home)
    user_candidates, problem = scan_folder(user_dir, "user")
    if problem is not None:
        loader.error(str(user_dir), problem, "user")
    for candidate in user_candidates:
        await loader.load_module_file(candidate)
    if entry_points:
        for entry_point in _entry_points():
            await loader.load_entry_point(entry_point)
    project = project_tool_candidates(cwd, home=home)
    project_dir = project_tools_dir(cwd)
    problem = None if same_folder(project_dir, user_dir) else folder_problem(project_dir)
    if problem is not None:
        loader.error(str(project_dir), problem, "project")
    if project:
        try:
            trusted = trust_project or is_trusted(cwd, home)
        except UsageError as exc:
            loader.error(str(trust_file(home)), str(exc), "project")
            trusted = False
        if trusted:
            for candidate in project:
                await loader.load_module_file(candidate)
        else:
            message = untrusted_message(Path(cwd).resolve(), project_dir)
            loader.result.errors.append(
                LoadError(path=str(project_dir), error=message, source="project", kind="untrusted")
            )
    return loader.result


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
    """Discover and load custom tools for a session working in ``cwd`` (SPEC §5).

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
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted(found, key=lambda ep: (ep.name, ep.value))


class _Loader:
    def __init__(
        self,
        *,
        cwd: Path,
        store: PendingActionStore | None,
        ui: ToolUI | None,
        builtin_names: Iterable[str],
    ) -> None:
        self.cwd = cwd
        self.store = store
        self.ui = ui
        self.result = LoadResult()
        self.taken: dict[str, str] = {name: "" for name in builtin_names}

    def error(self, path: str, message: str, source: ToolSource) -> None:
        _log.info("custom tool %s (%s): %s", path, source, message)
        self.result.errors.append(LoadError(path=path, error=message, source=source))

    async def load_module_file(self, candidate: ToolCandidate) -> None:
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
        keep_bytecode = sys.dont_write_bytecode
        sys.dont_write_bytecode = True  # never leave __pycache__ in the user's folders
        try:
            spec.loader.exec_module(module)
        except SyntaxError as exc:
            sys.modules.pop(module_name, None)
            where = f"{exc.filename or path}, line {exc.lineno}"
            self.error(path, f"SyntaxError: {exc.msg} ({where})", candidate.source)
            return
        except (Exception, SystemExit) as exc:
            sys.modules.pop(module_name, None)
            message = f"import failed: {_describe(exc, candidate.path)}"
            self.error(path, message, candidate.source)
            return
        finally:
            sys.dont_write_bytecode = keep_bytecode
        logger_name = f"xcsh.custom_tools.{candidate.source}.{stem}"
        await self._run_factory(module, path, candidate.source, logger_name, candidate.path)

    async def load_entry_point(self, entry_point: importlib.metadata.EntryPoint) -> None:
        dist = entry_point.dist.name if entry_point.dist is not None else "unknown distribution"
        path = f"{entry_point.value} (entry point {entry_point.name} of {dist})"
        try:
            target = entry_point.load()
        except (Exception, SystemExit) as exc:
            self.error(path, f"import failed: {_describe(exc, None)}", "entry_point")
            return
        logger_name = f"xcsh.custom_tools.entry_point.{entry_point.name}"
        await self._run_factory(target, path, "entry_point", logger_name, None)

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
        api = CustomToolAPI(self.cwd, store=self.store, logger=logger, ui=self.ui, source=source)
        try:
            outcome = factory(api)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except (Exception, SystemExit) as exc:
            self.error(path, f"factory raised {_describe(exc, file)}", source)
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


def _describe(exc: BaseException, file: Path | None) -> str:
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
