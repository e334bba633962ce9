"""The custom-tool API: what a tool file's ``factory(api)`` receives and returns (contract §5).

A tool file defines ``factory(api: CustomToolAPI) -> CustomTool | list[CustomTool]``
(sync or async). :class:`CustomTool` mirrors the description's object literal;
:meth:`CustomTool.to_agent_tool` turns it into the core
:class:`~xcsh.core.AgentTool` the agent runs.
The pending action it pushes is :mod:`xcsh.plugins.pending_action`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import jsonschema
import pydantic

from xcsh.checks import Checker
from xcsh.core import (
    AgentTool,
    AgentToolResult,
    ParametersSpec,
    Tool,
    ToolCallContext,
    ToolError,
    ToolUpdateCallback,
    coerce_tool_result,
    describe_value_type,
)
from xcsh.core.protected import protected_reason
from xcsh.journal import Journal, file_changes_action, proposed_changes
from xcsh.pending import (
    DEFAULT_SOURCE_TOOL_NAME,
    CheckVerdict,
    PendingAction,
    PendingActionStore,
)
from xcsh.plugins.pending_action import CustomToolPendingAction, from_mapping
from xcsh.plugins.process import ExecResult, run_command
from xcsh.sandbox import ProcessSupervisor

STORE_UNAVAILABLE_MESSAGE = "Pending action store unavailable for custom tools in this runtime."
"""What :meth:`CustomToolAPI.push_pending_action` raises without a store (contract §5)."""

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Names providers accept for a tool: letters, digits, ``_`` and ``-``, 1 to 64 characters."""


@runtime_checkable
class ToolUI(Protocol):
    """The small slice of the front end a custom tool may use.

    ``notify`` must not raise and must not block. ``confirm`` may wait for the
    user; headless runs answer ``False`` at once.
    """

    @property
    def interactive(self) -> bool:
        """True when a person can answer :meth:`confirm`."""
        ...

    def notify(self, message: str, level: str = "info") -> None:
        """Show a one-line message; ``level`` is ``"info"``, ``"warning"`` or ``"error"``."""
        ...

    async def confirm(self, title: str, message: str) -> bool:
        """Ask a yes/no question; ``False`` when nobody can answer."""
        ...


class HeadlessUI:
    """The :class:`ToolUI` of runs without a person.

    Notifications go to a logger; confirmations are refused.
    """

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._logger = logger or logging.getLogger("xcsh.plugins.ui")

    @property
    def interactive(self) -> bool:
        """False: nobody is there to answer."""
        return False

    def notify(self, message: str, level: str = "info") -> None:
        """Log ``message`` at ``level`` (``"info"``, ``"warning"`` or ``"error"``)."""
        levels = {"warning": logging.WARNING, "error": logging.ERROR}
        self._logger.log(levels.get(level, logging.INFO), message)

    async def confirm(self, title: str, message: str) -> bool:
        """Refuse: without a person nothing is confirmed."""
        return False


class CustomToolAPI:
    """What ``factory(api)`` receives (contract §5). One instance per tool module.

    Args:
        cwd: the workspace folder the session works in.
        store: the session's pending-action store, or ``None`` when the runtime
            has none (then :meth:`push_pending_action` raises).
        logger: a logger named for the tool module.
        ui: the front end's :class:`ToolUI`; :class:`HeadlessUI` when omitted.
        source: where the tool module came from: ``"project"``, ``"user"`` or
            ``"entry_point"`` (informational).
        checker: the project's check, run by :meth:`apush_pending_action` on
            the files an action declares (``None``: not available).
        journal: the workspace's undo journal, which the actions of
            :meth:`file_changes` write through (``None``: unrecorded).
    """

    def __init__(
        self,
        cwd: str | Path,
        *,
        store: PendingActionStore | None,
        logger: logging.Logger | None = None,
        ui: ToolUI | None = None,
        source: str = "user",
        checker: Checker | None = None,
        journal: Journal | None = None,
    ) -> None:
        self.cwd = Path(cwd)
        self._checker = checker
        self._journal = journal
        self.logger = logger or logging.getLogger("xcsh.custom_tools")
        self.ui: ToolUI = ui if ui is not None else HeadlessUI(self.logger)
        self.source = source
        self._store = store
        self._supervisor = ProcessSupervisor()

    @property
    def has_pending_store(self) -> bool:
        """True when :meth:`push_pending_action` can succeed."""
        return self._store is not None

    def push_pending_action(
        self, action: CustomToolPendingAction | PendingAction | Mapping[str, object]
    ) -> str:
        """Stage a preview on the session's store; ``resolve`` applies or discards it.

        Args:
            action: a :class:`CustomToolPendingAction` (converted to a core
                ``PendingAction``), a core ``PendingAction``, or a dict shaped like
                the description's object literal (``label``, ``apply``, ``reject``,
                ``details``, ``source_tool_name`` or ``sourceToolName``, and
                optionally ``files``, ``diff``, ``parts``, ``apply_parts``).

        Returns:
            The preview id the store gave it (``p3``): show it in the tool's result
            so the model can name it in ``resolve``.

        Raises:
            ToolError: exactly ``Pending action store unavailable for custom tools
                in this runtime.`` when the runtime has no store (the tool call
                fails with that text); the action is malformed; or it names a
                file in ``.git``, ``.hg`` or ``.xcsh``, which no tool writes
                (:func:`xcsh.core.protected.protected_reason`).
        """
        if self._store is None:
            raise ToolError(STORE_UNAVAILABLE_MESSAGE)
        if isinstance(action, CustomToolPendingAction):
            pending = action.to_pending_action()
        elif isinstance(action, PendingAction):
            pending = action
        elif isinstance(action, Mapping):
            pending = from_mapping(action).to_pending_action()
        else:
            raise ToolError(
                "push_pending_action expects a CustomToolPendingAction, "
                f"got {describe_value_type(action)}."
            )
        for path in pending.preview.paths:
            refusal = protected_reason(posixpath.normpath(path))
            if refusal is not None:
                raise ToolError(refusal)
        return self._store.push(pending).id

    def file_changes(
        self,
        label: str,
        files: Mapping[str, bytes | str | None],
        *,
        source_tool_name: str = DEFAULT_SOURCE_TOOL_NAME,
        details: object = None,
    ) -> PendingAction:
        """A pending action that writes ``files`` when applied: push it to preview it.

        Each file becomes one change of the preview (its diff against what the
        file holds now; ``resolve``'s ``only`` picks files by path or change id);
        applying writes all of them, or the chosen ones, through the workspace's
        undo journal, all or nothing (``xcsh undo`` takes it back). A file
        changed since the preview is refused, naming it. The tool writes nothing
        itself: no ``apply`` to write.

        Args:
            label: the preview's label (``"Add license headers: 3 files"``).
            files: each path (relative to :attr:`cwd`) mapped to its new
                content (bytes, or text written as UTF-8); ``None`` deletes it.
                Files whose content does not change are left out.
            source_tool_name: the badge shown with the label.
            details: the tool's own data, carried by the action.

        Returns:
            The action, not pushed yet: ``api.push_pending_action(action)`` gives
            its preview id.

        Raises:
            ToolError: a path is outside the workspace, in ``.git``, ``.hg`` or
                ``.xcsh``, or not a regular file; a content is neither bytes nor text.
        """
        contents: dict[str, bytes | None] = {}
        for path, content in files.items():
            if isinstance(content, str):
                content = content.encode("utf-8")
            if content is not None and not isinstance(content, bytes | bytearray):
                raise ToolError(
                    f"file_changes '{label}': each path maps to bytes, text or None; "
                    f"{path!r} maps to {describe_value_type(content)}."
                )
            contents[path] = None if content is None else bytes(content)
        store = self._store if self._store is not None else PendingActionStore()
        return file_changes_action(
            store,
            self.cwd,
            proposed_changes(self.cwd, contents),
            label=label,
            source_tool_name=source_tool_name,
            journal=self._journal,
            details=details,
            check=self._checker.check if self._checker is not None else None,
        )

    async def apush_pending_action(
        self,
        action: CustomToolPendingAction | Mapping[str, object],
        *,
        check: bool = False,
    ) -> str:
        """:meth:`push_pending_action`, with the project's check run on the action first.

        An action whose ``files`` is a mapping (relative path → the new bytes, or
        text) declares what it will write: when ``check`` is true, or the
        settings say ``check_when = "always"``, those files are staged over the
        workspace and the check runs there; the verdict is the preview's
        ``check`` (front ends show it, and the forced ``resolve`` turn repeats
        it to the model). An action that does not declare its files gets the
        verdict ``not_checked``.

        Returns:
            The preview id (``p3``).

        Raises:
            ToolError: as :meth:`push_pending_action`; a declared path that is
                absolute or leads out of the workspace.
        """
        if self._store is None:
            raise ToolError(STORE_UNAVAILABLE_MESSAGE)
        given = from_mapping(action) if isinstance(action, Mapping) else action
        if not isinstance(given, CustomToolPendingAction):
            raise ToolError(
                "apush_pending_action expects a CustomToolPendingAction, "
                f"got {describe_value_type(action)}."
            )
        pending = given.to_pending_action()
        declared = given.declared_files()
        wanted = check or (self._checker is not None and self._checker.settings.wanted(False))
        verdict: CheckVerdict | None = None
        if wanted and declared is None:
            verdict = CheckVerdict(status="not_checked", command="")
        elif wanted and declared is not None and self._checker is not None:
            verdict, _ = await self._checker.review(declared, asked=True)
        if verdict is not None:
            pending = dataclasses.replace(
                pending, preview=dataclasses.replace(pending.preview, check=verdict)
            )
        return self._store.push(pending).id

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        timeout: float | None = None,
        cwd: str | Path | None = None,
        cancel: asyncio.Event | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | bytes | None = None,
    ) -> ExecResult:
        """Run a program without a shell; see :func:`xcsh.plugins.process.run_command`.

        Args:
            command: program name or path.
            args: its arguments.
            timeout: seconds before the whole process group is killed (``None``: no limit).
            cwd: working folder; relative paths are taken from :attr:`cwd`;
                default :attr:`cwd`.
            cancel: an event that kills the process group when set (pass the
                ``signal`` your ``execute`` received).
            env: extra environment variables.
            stdin: data for the child's standard input.

        Returns:
            :class:`ExecResult` with ``stdout``, ``stderr``, ``code``, ``killed``,
            ``timed_out``. A non-zero exit code is returned, not raised.

        Raises:
            ToolError: the program cannot be started (not found, not executable,
                or the working folder is missing), with exactly
                ``Cannot run '<command>' in <folder>: <reason>.``. Left uncaught
                in ``execute``, it fails the tool call with that message.
            asyncio.CancelledError: the awaiting task was cancelled; the process
                group is killed first.
        """
        where = self.cwd if cwd is None else self.cwd / cwd
        return await run_command(
            command,
            args,
            cwd=where,
            timeout=timeout,
            cancel=cancel,
            env=env,
            stdin=stdin,
            supervisor=self._supervisor,
        )


ExecuteFunction = Callable[..., object]
"""``execute(tool_call_id, params, *, signal=..., on_update=..., ctx=...)``: returns, or
resolves to, what :func:`~xcsh.core.coerce_tool_result` accepts (checked when it returns)."""

_OPTIONAL_ARGUMENTS = ("signal", "cancel", "on_update", "ctx")


@dataclass(kw_only=True)
class CustomTool:
    """A tool defined by a custom tool module, built like the description's object literal.

    Args:
        name: the name the model calls it by: letters, digits, ``_``, ``-``, at
            most 64 characters; it must not clash with a built-in or another tool.
        label: a short human-readable name (defaults to ``name``).
        description: what it does and when to use it, for the model.
        parameters: a pydantic model class, or a JSON Schema dict with
            ``"type": "object"``. Arguments are validated before ``execute`` runs.
        execute: ``execute(tool_call_id, params)``, sync or async. ``params`` is
            the validated **model instance** for a pydantic schema and the
            validated **dict** for a JSON Schema. Optional keyword parameters,
            passed only when the function declares them (or ``**kwargs``):
            ``signal`` or ``cancel`` (an :class:`asyncio.Event` set on
            cancellation), ``on_update`` (progress callback taking an
            ``AgentToolResult``), ``ctx`` (the :class:`~xcsh.core.ToolCallContext`).
            Returns an ``AgentToolResult`` (a str or ``{"content": [...]}`` dict
            is coerced); returning ``None`` fails the call, since the model
            must get a result (``None`` is accepted only from a pending
            action's ``apply``/``reject``, meaning "use the default text").
            Raise :class:`~xcsh.core.ToolError` to fail the call; any other
            exception fails it too, with its type and message.
            A sync ``execute`` runs on the event loop: use ``api.exec`` (async)
            for anything slow.
        read_only: True when the tool never changes anything outside xcsh.

    Raises:
        ValueError: a bad name, an empty description, or an invalid JSON Schema.
        TypeError: ``parameters`` or ``execute`` has the wrong type.
    """

    name: str
    label: str = ""
    description: str
    parameters: ParametersSpec
    execute: ExecuteFunction
    read_only: bool = False
    _accepts: frozenset[str] = field(init=False, repr=False, default=frozenset())

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME_PATTERN.match(self.name):
            raise ValueError(
                f"Invalid tool name {self.name!r}: use 1-64 letters, digits, '_' or '-'."
            )
        if not self.label:
            self.label = self.name
        if not isinstance(self.description, str) or not self.description.strip():
            raise ValueError(f"Tool '{self.name}' needs a non-empty description.")
        _check_parameters(self.name, self.parameters)
        if not callable(self.execute):
            raise TypeError(f"Tool '{self.name}': execute must be a function.")
        self._accepts = _optional_arguments(self.execute)

    def to_agent_tool(self) -> Tool:
        """The core tool the agent runs: validates arguments, then calls ``execute``."""
        spec = self

        async def run(params: object, ctx: ToolCallContext) -> AgentToolResult:
            kwargs: dict[str, object] = {}
            if "signal" in spec._accepts:
                kwargs["signal"] = ctx.cancel
            if "cancel" in spec._accepts:
                kwargs["cancel"] = ctx.cancel
            if "on_update" in spec._accepts:
                kwargs["on_update"] = ctx.on_update
            if "ctx" in spec._accepts:
                kwargs["ctx"] = ctx
            try:
                outcome = spec.execute(ctx.tool_call_id, params, **kwargs)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except ToolError:
                raise
            except Exception as exc:
                message = str(exc) or "(no message)"
                raise ToolError(
                    f"Tool '{spec.name}' failed: {type(exc).__name__}: {message}"
                ) from exc
            try:
                return coerce_tool_result(outcome)
            except TypeError as exc:
                raise ToolError(f"Tool '{spec.name}' returned a bad result: {exc}.") from exc

        return AgentTool(
            name=self.name,
            label=self.label,
            description=self.description,
            parameters=self.parameters,
            run=run,
            read_only=self.read_only,
        )


def _check_parameters(name: str, parameters: object) -> None:
    if isinstance(parameters, type) and issubclass(parameters, pydantic.BaseModel):
        return
    if not isinstance(parameters, Mapping):
        raise TypeError(
            f"Tool '{name}': parameters must be a pydantic model class or a JSON Schema "
            f"dict, got {describe_value_type(parameters)}."
        )
    match parameters:
        case {"type": "object"}:
            pass
        case _:
            raise ValueError(
                f'Tool \'{name}\': the JSON Schema of parameters must have "type": "object".'
            )
    try:
        jsonschema.Draft202012Validator.check_schema(dict(parameters))
    except jsonschema.SchemaError as exc:
        raise ValueError(f"Tool '{name}': invalid JSON Schema: {exc.message}.") from exc


def _optional_arguments(func: Callable[..., object]) -> frozenset[str]:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return frozenset()
    names: set[str] = set()
    for param in sig.parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            return frozenset(("signal", "on_update", "ctx"))
        if param.name in _OPTIONAL_ARGUMENTS and param.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            names.add(param.name)
    return frozenset(names)


ToolFactory = Callable[[CustomToolAPI], object]
"""``factory(api)`` returning (or resolving to) a :class:`CustomTool` or a list of them
(the loader checks what it got)."""

__all__ = [
    "DEFAULT_SOURCE_TOOL_NAME",
    "STORE_UNAVAILABLE_MESSAGE",
    "TOOL_NAME_PATTERN",
    "CustomTool",
    "CustomToolAPI",
    "CustomToolPendingAction",
    "ExecResult",
    "HeadlessUI",
    "ToolFactory",
    "ToolUI",
    "ToolUpdateCallback",
]
