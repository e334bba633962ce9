"""What a pending action does when it is resolved: its effect.

A :class:`~xcsh.pending.PendingAction` is data (label, source, preview,
details, origin) plus one :class:`PendingEffect`. The effect says what it
supports (:class:`Supports`), applies the whole preview or a subset of its
changes, cleans up on discard, previews itself again when its files changed,
and runs the project's check on a subset. ``resolve`` drives it and turns
what it returns into the typed :class:`~xcsh.pending.ResolveOutcome`.

Effects come in three kinds here and above:

- :class:`CallbackEffect`: plain callbacks, what a custom tool gives
  (``PendingAction(label=..., apply=..., reject=...)`` builds one);
- ``FileChangesEffect`` (:mod:`xcsh.journal.effects`): a typed set of file
  changes written through the undo journal, which ``ast_edit``, command
  previews and file proposals share;
- ``JournaledEffect`` (same module): any effect whose apply is recorded in
  the undo journal around it.

Subclass :class:`PendingEffect` to get its defaults (it supports nothing but
``apply``); an effect that offers more says so in :attr:`PendingEffect.supports`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeAlias, TypeVar, cast

from xcsh.core import AgentToolResult, ToolError, coerce_result
from xcsh.pending.check import CheckVerdict
from xcsh.pending.preview import Preview

if TYPE_CHECKING:
    from xcsh.pending.action import PendingAction


@dataclass(frozen=True, kw_only=True)
class Supports:
    """What an effect can do besides applying the whole preview and discarding it.

    Args:
        apply_parts: apply a subset of the preview's changes (``resolve`` with
            ``only``, the terminal's ``/review``).
        rebuild: preview itself again when its files changed since (``resolve``
            does so when the apply raises :class:`~xcsh.pending.StalePreviewError`).
        check_parts: run the project's check on a subset of its changes staged
            (``resolve`` with ``only`` and ``check: true``).
        records_itself: its apply records what it writes in the undo journal, so
            the session's journal does not wrap it.
        reject: it has clean-up to run on discard.
    """

    apply_parts: bool = False
    rebuild: bool = False
    check_parts: bool = False
    records_itself: bool = False
    reject: bool = False


@dataclass(frozen=True, kw_only=True)
class ApplyReport:
    """What an effect's apply did, typed, as ``resolve``'s outcome carries it.

    Args:
        result: what the apply says to the model and the user (its text, any
            typed details such as the files and replacements an ``ast_edit``
            wrote); ``None`` means the default ``Applied: <label>.``.
        files: the files written, relative to the workspace (``()`` when the
            effect does not know them).
        journal_entry: the undo journal's entry recording the apply (``xcsh
            undo N``), ``None`` when it was not recorded.
        warnings: what went wrong after the files landed (a folder not synced,
            the journal's end not recorded), each one sentence; the result's
            text says them too.
    """

    result: AgentToolResult | None = None
    files: tuple[str, ...] = ()
    journal_entry: int | None = None
    warnings: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The result's text (``""`` for the default)."""
        return self.result.text if self.result is not None else ""

    @property
    def is_error(self) -> bool:
        """True when the apply ran but says it failed (a custom tool's error result)."""
        return self.result is not None and self.result.is_error


@dataclass(frozen=True, kw_only=True)
class RebuiltAction:
    """A pending action previewed again against the files as they are now.

    Args:
        action: the new action (not pushed yet; ``resolve`` pushes it).
        text: what the producing tool says of its preview (the text the model
            reads after ``Not applied: the files of p3 changed ...``).
    """

    action: PendingAction
    text: str


class PendingEffect(Protocol):
    """What a pending action does when resolved.

    Every method is awaited by ``resolve`` (never from two tasks at once for one
    action). Raising from :meth:`apply` or :meth:`apply_parts` leaves the action
    pending (``Apply failed: ...``), and :class:`~xcsh.pending.StalePreviewError`
    makes ``resolve`` call :meth:`rebuild` when :attr:`supports` says so.
    Cancellation: an effect that writes files finishes its writes before it
    lets a cancellation through (see :func:`xcsh.journal.finish_in_thread`).
    """

    @property
    def supports(self) -> Supports:
        """What this effect can do besides :meth:`apply` and :meth:`reject` (default: nothing)."""
        return Supports()

    async def apply(self, reason: str) -> ApplyReport:
        """Apply the whole preview.

        Raises:
            Exception: the apply failed; the action stays pending.
        """
        ...

    async def apply_parts(self, subset: Preview, reason: str) -> ApplyReport:
        """Apply exactly the changes of ``subset`` (a :meth:`Preview.subset`), all or nothing.

        Raises:
            ToolError: the effect cannot apply a subset (the default).
        """
        raise ToolError("This pending action cannot apply a subset of its changes.")

    async def reject(self, reason: str) -> AgentToolResult | None:
        """Clean up on discard; a returned result replaces the default text (default: none)."""
        return None

    async def rebuild(self) -> RebuiltAction | None:
        """The action previewed again against the files as they are now.

        Returns:
            The new action, or ``None`` when it would change nothing now (or the
            effect cannot be rebuilt: the default).
        """
        return None

    async def check_parts(self, subset: Preview) -> CheckVerdict:
        """The project's check on exactly the changes of ``subset`` staged.

        Raises:
            ToolError: the effect cannot check a subset (the default).
        """
        raise ToolError("This pending action cannot check a subset of its changes.")


CallbackResult: TypeAlias = "AgentToolResult | str | Mapping[str, object] | None"
"""What ``apply``/``reject`` callbacks return: an AgentToolResult, a str, a result dict,
or ``None`` (the default text); anything else is refused when ``resolve`` runs it."""
ApplyCallback: TypeAlias = "Callable[[str], CallbackResult | Awaitable[CallbackResult]]"
"""``apply(reason)``, sync or async: performs the change; returns a :data:`CallbackResult`."""
RejectCallback: TypeAlias = ApplyCallback
"""``reject(reason)``: like :data:`ApplyCallback`; ``None`` keeps the default discard text."""
Rebuilt: TypeAlias = "RebuiltAction | tuple[PendingAction, str] | None"
"""What a ``rebuild`` callback returns: a :class:`RebuiltAction`, the older
``(new_action, preview_text)`` pair, or ``None`` (nothing to change now)."""
RebuildCallback: TypeAlias = "Callable[[], Rebuilt | Awaitable[Rebuilt]]"
"""``rebuild()``, sync or async: the action previewed again against the files as they are
now. ``resolve`` calls it when ``apply`` raised :class:`StalePreviewError`."""
CheckPartsCallback: TypeAlias = Callable[[Preview], Awaitable[CheckVerdict]]
"""``await check_parts(subset)``: the project's check on exactly ``subset`` staged."""
ApplyPartsCallback: TypeAlias = (
    "Callable[[Preview, str], CallbackResult | Awaitable[CallbackResult]]"
)
"""``apply_parts(subset, reason)``: applies exactly the changes of ``subset``, all or
nothing; returns like :data:`ApplyCallback`."""


@dataclass(frozen=True, kw_only=True)
class CallbackEffect(PendingEffect):
    """An effect made of plain callbacks, sync or async (a custom tool's).

    Each callback's return is checked when it runs (:func:`xcsh.core.coerce_result`):
    an ``AgentToolResult``, a str, a ``{"content": [...]}`` dict or ``None``.

    Args:
        apply: ``apply(reason)``; performs the change.
        reject: ``reject(reason)``, clean-up on discard (``None``: none).
        apply_parts: ``apply_parts(subset, reason)`` (``None``: whole only).
        rebuild: ``rebuild()`` (``None``: cannot be rebuilt).
        check_parts: ``await check_parts(subset)`` (``None``: cannot check parts).
    """

    apply_callback: ApplyCallback
    reject_callback: RejectCallback | None = None
    apply_parts_callback: ApplyPartsCallback | None = None
    rebuild_callback: RebuildCallback | None = None
    check_parts_callback: CheckPartsCallback | None = None

    @property
    def supports(self) -> Supports:
        """Whatever callbacks were given."""
        return Supports(
            apply_parts=self.apply_parts_callback is not None,
            rebuild=self.rebuild_callback is not None,
            check_parts=self.check_parts_callback is not None,
            reject=self.reject_callback is not None,
        )

    async def apply(self, reason: str) -> ApplyReport:
        """Await ``apply(reason)``.

        Raises:
            TypeError: it returned something other than a :data:`CallbackResult`.
            Exception: whatever ``apply`` raised.
        """
        done = await call_maybe_async(self.apply_callback, reason)
        return ApplyReport(result=coerce_result(done))

    async def apply_parts(self, subset: Preview, reason: str) -> ApplyReport:
        """Await ``apply_parts(subset, reason)``, or refuse without it."""
        if self.apply_parts_callback is None:
            return await super().apply_parts(subset, reason)
        done = await call_maybe_async(self.apply_parts_callback, subset, reason)
        return ApplyReport(result=coerce_result(done))

    async def reject(self, reason: str) -> AgentToolResult | None:
        """Await ``reject(reason)`` when given."""
        if self.reject_callback is None:
            return None
        return coerce_result(await call_maybe_async(self.reject_callback, reason))

    async def rebuild(self) -> RebuiltAction | None:
        """Await ``rebuild()`` when given (a ``(action, text)`` pair is taken too)."""
        if self.rebuild_callback is None:
            return None
        rebuilt: Rebuilt = await call_maybe_async(self.rebuild_callback)
        if rebuilt is None or isinstance(rebuilt, RebuiltAction):
            return rebuilt
        action, text = rebuilt
        return RebuiltAction(action=action, text=text)

    async def check_parts(self, subset: Preview) -> CheckVerdict:
        """Await ``check_parts(subset)``, or refuse without it."""
        if self.check_parts_callback is None:
            return await super().check_parts(subset)
        return await self.check_parts_callback(subset)


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


__all__ = [
    "ApplyCallback",
    "ApplyPartsCallback",
    "ApplyReport",
    "CallbackEffect",
    "CallbackResult",
    "CheckPartsCallback",
    "PendingEffect",
    "RebuildCallback",
    "Rebuilt",
    "RebuiltAction",
    "RejectCallback",
    "Supports",
    "call_maybe_async",
]
