"""The :class:`PendingAction` value (contract §1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xcsh.core import AgentToolResult, JsonValue, ToolError
from xcsh.pending.effect import (
    ApplyCallback,
    ApplyPartsCallback,
    CallbackEffect,
    CheckPartsCallback,
    PendingEffect,
    RebuildCallback,
    RejectCallback,
    Supports,
)
from xcsh.pending.preview import Preview

if TYPE_CHECKING:
    from xcsh.core import ToolCallContext

DEFAULT_SOURCE_TOOL_NAME = "custom_tool"
"""The ``source_tool_name`` of a custom tool's action that names no source (contract §5).
Displays show the pushing tool's label instead (:attr:`PendingAction.source_label`)."""


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


@dataclass(frozen=True, kw_only=True, init=False)
class PendingAction:
    """A previewed change waiting for ``resolve`` (contract §1): data plus one effect.

    A frozen value: nobody assigns its fields. The store stamps its own two
    (the preview's id and ``origin``) by pushing a copy
    (``dataclasses.replace``), and a wrapper such as the undo journal's returns
    a new value with a wrapped :attr:`effect`.

    Build it with an effect (``PendingAction(label=..., source_tool_name=...,
    effect=FileChangesEffect(...))``) or, as custom tools do, with plain
    callbacks, which make a :class:`~xcsh.pending.effect.CallbackEffect`:
    ``PendingAction(label=..., source_tool_name=..., apply=..., reject=...)``
    (also ``apply_parts``, ``rebuild``, ``check_parts``).

    Args:
        label: short, human-readable summary, e.g. ``"AST Edit: 3 replacements in 2 files"``;
            the resolve renderer shows it.
        source_tool_name: the tool that produced the preview (``"ast_edit"``).
        effect: what resolving it does (:class:`~xcsh.pending.effect.PendingEffect`).
        apply: instead of ``effect``: ``apply(reason)``, sync or async; performs
            the change and returns an :class:`AgentToolResult` (a str or a
            ``{"content": [...]}`` dict is accepted too). Raising leaves the
            action pending (contract §2.7).
        reject: with ``apply``: optional ``reject(reason)``, clean-up on discard;
            a returned result replaces the default discard message.
        apply_parts: with ``apply``: optional ``apply_parts(subset, reason)``;
            applies a :meth:`Preview.subset` of the changes (``resolve`` with ``only``).
        rebuild: with ``apply``: optional ``rebuild()`` returning a
            :class:`~xcsh.pending.effect.RebuiltAction` (or ``(action, text)``).
        check_parts: with ``apply``: optional ``await check_parts(subset)``.
        details: opaque data of the producing tool (front ends read ``preview``).
        preview: what the action would do, typed (files, changes with ids,
            diff). The store gives it its id on push.
        origin: the tool call that pushed it, stamped by the store on push
            (``None`` for an action pushed outside any tool call, such as
            ``xcsh ast-edit``'s); a preview rebuilt by ``resolve`` keeps the
            origin of the one it replaces.

    Raises:
        TypeError: neither ``effect`` nor ``apply`` given, or both.
    """

    label: str
    source_tool_name: str
    effect: PendingEffect
    details: object = None
    preview: Preview = field(default_factory=Preview)
    origin: PushOrigin | None = None

    def __init__(
        self,
        *,
        label: str,
        source_tool_name: str,
        effect: PendingEffect | None = None,
        apply: ApplyCallback | None = None,
        reject: RejectCallback | None = None,
        apply_parts: ApplyPartsCallback | None = None,
        rebuild: RebuildCallback | None = None,
        check_parts: CheckPartsCallback | None = None,
        details: object = None,
        preview: Preview | None = None,
        origin: PushOrigin | None = None,
    ) -> None:
        if (effect is None) == (apply is None):
            raise TypeError("a PendingAction takes either `effect` or an `apply` callback")
        if effect is None:
            assert apply is not None
            effect = CallbackEffect(
                apply_callback=apply,
                reject_callback=reject,
                apply_parts_callback=apply_parts,
                rebuild_callback=rebuild,
                check_parts_callback=check_parts,
            )
        # a frozen value's own constructor, the only place its fields are set
        for name, value in (
            ("label", label),
            ("source_tool_name", source_tool_name),
            ("effect", effect),
            ("details", details),
            ("preview", preview if preview is not None else Preview()),
            ("origin", origin),
        ):
            object.__setattr__(self, name, value)

    @property
    def id(self) -> str:
        """The preview id (``p3``) given on push; ``""`` before."""
        return self.preview.id

    @property
    def supports(self) -> Supports:
        """What its effect can do besides applying all of it and discarding it."""
        return self.effect.supports

    @property
    def apply(self) -> ApplyCallback:
        """``apply(reason)``, as the contract names it.

        The callback the action was built with, else a coroutine function running
        the effect's apply and returning its result (``None``: the default text).
        """
        if isinstance(self.effect, CallbackEffect):
            return self.effect.apply_callback
        return self._apply_effect

    @property
    def reject(self) -> RejectCallback | None:
        """``reject(reason)``, the clean-up on discard; ``None`` when there is none."""
        if isinstance(self.effect, CallbackEffect):
            return self.effect.reject_callback
        return self.effect.reject if self.supports.reject else None

    async def _apply_effect(self, reason: str) -> AgentToolResult | None:
        return (await self.effect.apply(reason)).result

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
