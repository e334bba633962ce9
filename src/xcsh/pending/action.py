"""The :class:`PendingAction` value (contract §1)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xcsh.core import ToolError
from xcsh.pending.check import CheckVerdict
from xcsh.pending.preview import Preview

if TYPE_CHECKING:
    from xcsh.core import ToolCallContext

DEFAULT_SOURCE_TOOL_NAME = "custom_tool"
"""The ``source_tool_name`` of a custom tool's action that names no source (contract §5).
Displays show the pushing tool's label instead (:attr:`PendingAction.source_label`)."""

ApplyCallback = Callable[[str], Any]
"""``apply(reason)``: returns (or resolves to) an AgentToolResult, a str, a result dict or None."""
RejectCallback = Callable[[str], Any]
"""``reject(reason)``: like :data:`ApplyCallback`; ``None`` keeps the default discard text."""
RebuildCallback = Callable[[], Any]
"""``rebuild()``, sync or async: the action previewed again against the files as they are
now, as ``(new_action, preview_text)``, or ``None`` when it would change nothing now.
``resolve`` calls it when ``apply`` raised :class:`StalePreviewError`."""
CheckPartsCallback = Callable[[Preview], Awaitable[CheckVerdict]]
"""``await check_parts(subset)``: the project's check run on a staged copy of the
workspace with exactly the changes of ``subset`` applied (``resolve`` with ``only``
and ``check: true``)."""
ApplyPartsCallback = Callable[[Preview, str], Any]
"""``apply_parts(subset, reason)``: applies exactly the changes of ``subset`` (a
:meth:`Preview.subset` of the action's preview), all or nothing; returns like
:data:`ApplyCallback`."""


@dataclass(frozen=True, kw_only=True)
class PushOrigin:
    """The tool call that pushed a pending action; the store stamps it on push.

    Args:
        tool_call_id: the call's id (``call_1``; ``resume_1`` for a preview
            rebuilt on resume).
        tool_name: the tool that ran (``"ast_edit"``, ``"batch_rename_preview"``).
        tool_label: its label (``"AST Edit"``, ``"Batch Rename Preview"``).
        arguments: the call's model-facing arguments (what rebuilds the preview
            on resume), or ``None``.
    """

    tool_call_id: str
    tool_name: str
    tool_label: str
    arguments: Mapping[str, Any] | None = None

    @classmethod
    def of_call(cls, ctx: ToolCallContext) -> PushOrigin:
        """The origin for a push made while the call ``ctx`` runs."""
        return cls(
            tool_call_id=ctx.tool_call_id,
            tool_name=ctx.tool_name,
            tool_label=ctx.tool_label,
            arguments=dict(ctx.arguments) if ctx.arguments is not None else None,
        )


@dataclass
class PendingAction:
    """A previewed change waiting for ``resolve`` (contract §1).

    Args:
        label: short, human-readable summary, e.g. ``"AST Edit: 3 replacements in 2 files"``;
            the resolve renderer shows it.
        source_tool_name: the tool that produced the preview (``"ast_edit"``).
        apply: ``apply(reason)``, sync or async; performs the change and returns
            an :class:`AgentToolResult` (a str or a ``{"content": [...]}`` dict is
            accepted too). Raising leaves the action pending (contract §2.7).
        reject: optional ``reject(reason)``, sync or async, for clean-up on
            discard; a returned result replaces the default discard message.
        details: opaque data of the producing tool (front ends read ``preview``).
        preview: what the action would do, typed (files, changes with ids,
            diff). The store gives it its id on push (an action pushed without
            one gets an empty preview with an id).
        apply_parts: optional ``apply_parts(subset, reason)``, sync or async:
            the action can apply a subset of its preview's changes (``resolve``
            with ``only``, ``/review``). Without it ``only`` is refused.
        rebuild: optional :data:`RebuildCallback`; lets ``resolve`` replace a
            preview whose files changed since (its apply raised
            :class:`StalePreviewError`) with one computed against them.
        journaled: its ``apply`` (and ``apply_parts``) records what it writes in
            the undo journal itself (the built-in producers do); otherwise the
            session's journal wraps it when its preview names files (see
            :mod:`xcsh.journal.watch`).
        check_parts: optional :data:`CheckPartsCallback`: the action can run the
            project's check on a subset of its changes (``resolve`` with ``only``
            and ``check: true``).
        origin: the tool call that pushed it, stamped by the store on push
            (``None`` for an action pushed outside any tool call, such as
            ``xcsh ast-edit``'s); a preview rebuilt by ``resolve`` keeps the
            origin of the one it replaces.
    """

    label: str
    source_tool_name: str
    apply: ApplyCallback
    reject: RejectCallback | None = None
    details: Any = None
    preview: Preview = field(default_factory=Preview)
    apply_parts: ApplyPartsCallback | None = None
    rebuild: RebuildCallback | None = None
    journaled: bool = False
    check_parts: CheckPartsCallback | None = None
    origin: PushOrigin | None = None

    @property
    def id(self) -> str:
        """The preview id (``p3``) given on push; ``""`` before."""
        return self.preview.id

    @property
    def source_label(self) -> str:
        """Who made the preview, as displays name it beside the label.

        ``source_tool_name``, except that the generic :data:`DEFAULT_SOURCE_TOOL_NAME`
        of a custom tool gives way to the label (else the name) of the tool
        that pushed it: ``"Batch Rename"`` rather than ``"custom_tool"``.
        """
        if self.source_tool_name == DEFAULT_SOURCE_TOOL_NAME and self.origin is not None:
            return self.origin.tool_label or self.origin.tool_name or self.source_tool_name
        return self.source_tool_name


class ApplyFailedError(ToolError):
    """An apply that failed, with the facts a front end words (the message is the model's).

    Args:
        message: for the model (names the problem and what to do next).
        stale: files refused because they changed since the preview (nothing written).
        new_content: files left holding the new content (writing failed and
            putting them back failed too).
    """

    def __init__(
        self, message: str, *, stale: Sequence[str] = (), new_content: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.stale = tuple(stale)
        self.new_content = tuple(new_content)


class StalePreviewError(ApplyFailedError):
    """An apply refused, writing nothing, because files changed since the preview.

    ``resolve`` previews such an action again when it can be rebuilt.

    Args:
        message: for the model and the user.
        files: the files that changed (relative paths).
    """

    def __init__(self, message: str, *, files: tuple[str, ...] = ()) -> None:
        super().__init__(message, stale=files)
        self.files = files


async def call_maybe_async(func: Callable[..., Any], *args: Any) -> Any:
    """Call ``func(*args)`` and await the outcome when it is awaitable."""
    outcome = func(*args)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    return outcome
