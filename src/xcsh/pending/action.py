"""The :class:`PendingAction` value (contract §1)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ParamSpec, TypeAlias, TypeVar, cast

from xcsh.core import AgentToolResult, JsonValue, ToolError, coerce_result
from xcsh.pending.check import CheckVerdict
from xcsh.pending.preview import Preview

if TYPE_CHECKING:
    from xcsh.core import ToolCallContext

DEFAULT_SOURCE_TOOL_NAME = "custom_tool"
"""The ``source_tool_name`` of a custom tool's action that names no source (contract §5).
Displays show the pushing tool's label instead (:attr:`PendingAction.source_label`)."""

CallbackResult: TypeAlias = "AgentToolResult | str | Mapping[str, object] | None"
"""What ``apply``/``reject`` return: an AgentToolResult, a str, a result dict, or ``None``
(the default text); anything else is refused when ``resolve`` runs it."""
ApplyCallback: TypeAlias = "Callable[[str], CallbackResult | Awaitable[CallbackResult]]"
"""``apply(reason)``, sync or async: performs the change; returns a :data:`CallbackResult`."""
RejectCallback: TypeAlias = ApplyCallback
"""``reject(reason)``: like :data:`ApplyCallback`; ``None`` keeps the default discard text."""
Rebuilt: TypeAlias = "tuple[PendingAction, str] | None"
"""A rebuilt preview as ``(new_action, preview_text)``, or ``None``: nothing to change now."""
RebuildCallback: TypeAlias = "Callable[[], Rebuilt | Awaitable[Rebuilt]]"
"""``rebuild()``, sync or async: the action previewed again against the files as they are
now. ``resolve`` calls it when ``apply`` raised :class:`StalePreviewError`."""
CheckPartsCallback: TypeAlias = Callable[[Preview], Awaitable[CheckVerdict]]
"""``await check_parts(subset)``: the project's check run on a staged copy of the
workspace with exactly the changes of ``subset`` applied (``resolve`` with ``only``
and ``check: true``)."""
ApplyPartsCallback: TypeAlias = (
    "Callable[[Preview, str], CallbackResult | Awaitable[CallbackResult]]"
)
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
    arguments: Mapping[str, JsonValue] | None = None

    @classmethod
    def of_call(cls, ctx: ToolCallContext) -> PushOrigin:
        """The origin for a push made while the call ``ctx`` runs."""
        return cls(
            tool_call_id=ctx.tool_call_id,
            tool_name=ctx.tool_name,
            tool_label=ctx.tool_label,
            arguments=dict(ctx.arguments) if ctx.arguments is not None else None,
        )


@dataclass(frozen=True, kw_only=True)
class PendingAction:
    """A previewed change waiting for ``resolve`` (contract §1): a frozen value.

    What it does is five calls, each awaited whatever its callback is:
    :meth:`run_apply`, :meth:`run_apply_parts`, :meth:`run_reject`,
    :meth:`run_rebuild` and :meth:`run_check_parts`. No one changes it, with
    one exception inside this package: on push the store stamps the two
    fields it owns, the preview's id and ``origin``, once (:func:`stamp`). A
    wrapper such as the undo journal's returns a new action
    (``dataclasses.replace``).

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
    details: object = None
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

    async def run_apply(self, reason: str) -> AgentToolResult | None:
        """Await ``apply(reason)``; ``None`` means the default text.

        Raises:
            TypeError: it returned something other than a :data:`CallbackResult`.
            Exception: whatever ``apply`` raised (``resolve`` keeps the action pending).
        """
        return coerce_result(await call_maybe_async(self.apply, reason))

    async def run_apply_parts(self, subset: Preview, reason: str) -> AgentToolResult | None:
        """Await ``apply_parts(subset, reason)``; like :meth:`run_apply`.

        Raises:
            ToolError: the action cannot apply a subset (no ``apply_parts``).
        """
        if self.apply_parts is None:
            raise ToolError(f"'{self.label}' cannot apply a subset of its changes.")
        return coerce_result(await call_maybe_async(self.apply_parts, subset, reason))

    async def run_reject(self, reason: str) -> AgentToolResult | None:
        """Await ``reject(reason)`` when the action has one; ``None``: the default text."""
        if self.reject is None:
            return None
        return coerce_result(await call_maybe_async(self.reject, reason))

    async def run_rebuild(self) -> Rebuilt:
        """Await ``rebuild()``; ``None`` when the action cannot be rebuilt or changes nothing."""
        if self.rebuild is None:
            return None
        rebuilt: Rebuilt = await call_maybe_async(self.rebuild)
        return rebuilt

    @property
    def can_check_parts(self) -> bool:
        """True when the project's check can run on a subset of its changes."""
        return self.check_parts is not None

    async def run_check_parts(self, subset: Preview) -> CheckVerdict:
        """Await ``check_parts(subset)``: the check's verdict on exactly ``subset`` staged.

        Raises:
            ToolError: the action cannot check a subset (no ``check_parts``).
        """
        if self.check_parts is None:
            raise ToolError(f"'{self.label}' cannot check a subset of its changes.")
        return await self.check_parts(subset)


def stamp(
    action: PendingAction, *, preview: Preview | None = None, origin: PushOrigin | None = None
) -> None:
    """Fill the fields the store owns (its preview with an id, its origin) on push.

    Only :class:`~xcsh.pending.PendingActionStore` calls it, before the action
    is on a stack, so that the value pushed stays the value on the stack
    (``store.peek() is action``).
    """
    if preview is not None:
        object.__setattr__(action, "preview", preview)
    if origin is not None:
        object.__setattr__(action, "origin", origin)


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


_T = TypeVar("_T")
_A = ParamSpec("_A")


async def call_maybe_async(
    func: Callable[_A, _T | Awaitable[_T]], *args: _A.args, **kwargs: _A.kwargs
) -> _T:
    """Call ``func(*args)`` and await the outcome when it is awaitable."""
    outcome = func(*args, **kwargs)
    if inspect.isawaitable(outcome):
        return cast(_T, await outcome)
    return outcome
