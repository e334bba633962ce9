"""The custom-tool API: what a tool file's ``factory(api)`` receives and returns (contract §5).

A tool file defines ``factory(api: CustomToolAPI) -> CustomTool | list[CustomTool]``
(sync or async). :class:`CustomToolAPI` is what it receives: the pending-action
store, the workspace, the journal, the checker, the process supervisor, the UI.
:class:`CustomTool`, what it returns, is :mod:`xcsh.plugins.tool`; the pending
action it pushes is :mod:`xcsh.plugins.pending_action`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import posixpath
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from xcsh.checks import Checker
from xcsh.core import (
    ToolError,
    ToolUpdateCallback,
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
from xcsh.plugins.tool import TOOL_NAME_PATTERN, CustomTool
from xcsh.sandbox import ProcessSupervisor

STORE_UNAVAILABLE_MESSAGE = "Pending action store unavailable for custom tools in this runtime."
"""What :meth:`CustomToolAPI.push_pending_action` raises without a store (contract §5)."""


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
