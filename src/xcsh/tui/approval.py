"""Asking a person before an apply (``--approve ask``) and reviewing part by part.

Both the interactive terminal and ``xcsh -p`` on a terminal ask through
:func:`ask_approval`, which only accepts clear answers (see
:func:`xcsh.ui.parse_decision`) and asks again otherwise; ``[r]eview`` walks
the preview change by change with :func:`review_changes`, as ``/review`` does.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from rich.console import RenderableType

from xcsh.ui.review import (
    REVIEW_HELP,
    REVIEW_PROMPT,
    ReviewWalk,
    parse_decision,
    render_change,
)

if TYPE_CHECKING:
    from xcsh.agent import AgentSession, Approval
    from xcsh.pending import PendingAction, PreviewChange

NO_REASON = "the user said no"
UNCLEAR_ANSWER = (
    "Please answer a to apply, d to discard (you may add why: d keep print), "
    "or r to review it change by change."
)
UNCLEAR_ANSWER_NO_REVIEW = (
    "Please answer a to apply or d to discard (you may add why: d keep print); "
    "this preview cannot be reviewed change by change."
)

UNCLEAR_YES_NO = "Please answer y to allow it, or n to refuse (you may add why: n not now)."

Read = Callable[[str], Awaitable[str]]
"""``await read(prompt)``: one line typed by the person (raises on Ctrl-C / end of input)."""
Show = Callable[[RenderableType], None]
"""``show(renderable)``: prints a rich renderable or a string for the person."""


def question(action: PendingAction, reason: str, only: Sequence[str] | None = None) -> str:
    """``Apply p3 AST Edit: ...? (model's reason: ...) [a]pply / [d]iscard / [r]eview: ``.

    With ``only`` (the change ids the model chose) the name is followed by
    ``, only the model's choice: 2 of 5 changes (c1, c2 in a.py)``.
    """
    choices = "[a]pply / [d]iscard" + (" / [r]eview" if reviewable(action) else "")
    from xcsh.pending import grouped
    from xcsh.ui import visible_line

    label = visible_line(action.label)
    name = f"{action.id} {label}" if action.id else label
    if only is not None:
        chosen = chosen_changes(action, only)
        total = len(action.preview.changes)
        name += (
            f", only the model's choice: {len(chosen)} of {total} changes "
            f"({visible_line(grouped(chosen))})"
        )
    return f"Apply {name}? (model's reason: {visible_line(reason)}) {choices}: "


def chosen_changes(action: PendingAction, only: Sequence[str] | None) -> list[PreviewChange]:
    """The changes of ``action``'s preview whose ids are in ``only`` (all when ``None``)."""
    if only is None:
        return list(action.preview.changes)
    keep = set(only)
    return [c for c in action.preview.changes if c.id in keep]


def reviewable(action: PendingAction) -> bool:
    """True when the action can be applied in part (so ``[r]eview`` makes sense)."""
    return action.supports.apply_parts and action.preview.has_parts


async def review_changes(changes: Sequence[PreviewChange], read: Read, show: Show) -> list[str]:
    """Walk ``changes`` one by one (``git add -p`` keys); returns the ids kept, in order.

    Raises:
        whatever ``read`` raises (Ctrl-C, end of input): the caller applies nothing.
    """
    walk = ReviewWalk(changes)
    while (change := walk.current) is not None:
        show(render_change(change, walk.position, len(walk.changes)))
        while not walk.answer(await read(REVIEW_PROMPT)):
            show(REVIEW_HELP)
    return walk.kept


async def ask_plain(prompt: str, read: Read, show: Show) -> Approval:
    """Ask a yes/no question (a tool call an approval rule covers) until the answer is clear.

    ``y``/``yes``/``a``/``apply`` approve; ``n``/``no``/``d``/``discard`` decline, the
    rest of the line being the reason (:data:`NO_REASON` when none).
    """
    from xcsh.agent import Approval

    while True:
        answer = parse_decision(await read(prompt), review=False)
        if answer is not None:
            break
        show(UNCLEAR_YES_NO)
    if answer.decision == "apply":
        return Approval(approved=True)
    return Approval(approved=False, reason=answer.reason or NO_REASON)


async def ask_approval(
    action: PendingAction,
    reason: str,
    read: Read,
    show: Show,
    only: Sequence[str] | None = None,
) -> Approval:
    """Ask until the answer is clear: apply, discard (with an optional why), or review.

    Args:
        action: the action the model asked to apply.
        reason: the model's reason.
        read: reads a line the person types.
        show: prints for the person.
        only: the change ids the model chose with ``only`` (``None``: all);
            the question names them, an apply applies them and a review
            walks them alone.

    Returns:
        ``Approval(approved=True)`` for apply; ``approved=False`` with the
        person's reason (or :data:`NO_REASON`) for discard; for review,
        ``approved=True`` with ``only`` the change ids kept.
    """
    from xcsh.agent import Approval

    can_review = reviewable(action)
    while True:
        answer = parse_decision(await read(question(action, reason, only)), review=can_review)
        if answer is None:
            show(UNCLEAR_ANSWER if can_review else UNCLEAR_ANSWER_NO_REVIEW)
            continue
        if answer.decision == "apply":
            return Approval(approved=True)
        if answer.decision == "discard":
            return Approval(approved=False, reason=answer.reason or NO_REASON)
        kept = await review_changes(chosen_changes(action, only), read, show)
        return Approval(approved=True, only=tuple(kept))


REVIEW_CANCELLED = "Review cancelled: nothing applied; the preview is still pending."
NOTHING_KEPT = "No change kept: nothing applied; the preview is still pending (/discard drops it)."


async def review_top(session: AgentSession, reason: str, read: Read, show: Show) -> None:
    """``/review``: walk the top preview change by change, then apply the kept ones at once.

    Keys as in ``git add -p`` (``y n a d q``); Ctrl-C cancels the review and
    applies nothing. The kept changes go through the session's ``resolve``
    with ``only`` (one apply, all or nothing), so the model is told exactly
    which landed; keeping none applies nothing and leaves the preview pending.

    Raises:
        UsageError: from :meth:`AgentSession.resolve_top` (a run is in progress).
    """
    from rich.text import Text

    top = session.store.peek() if session.store is not None else None
    if top is None:
        show(Text("No pending previews.", style="dim"))
        return
    if not reviewable(top):
        show(
            Text(
                f"{top.id} ({top.label}) cannot be reviewed change by change; "
                "use /apply or /discard.",
                style="yellow",
            )
        )
        return
    show(
        Text(
            f"Reviewing {top.id} {top.label}: {len(top.preview.changes)} changes. y apply, "
            "n skip, a apply the rest of the file, d skip the rest of the file, q quit.",
            style="bold",
        )
    )
    try:
        kept = await review_changes(top.preview.changes, read, show)
    except (KeyboardInterrupt, EOFError):
        show(Text(REVIEW_CANCELLED, style="yellow"))
        return
    if not kept:
        show(Text(NOTHING_KEPT, style="yellow"))
        return
    result = await session.pending.resolve_top("apply", reason, only=kept)
    if result.outcome is None:  # refused (no Resolved event shows it)
        show(Text("\n".join(getattr(b, "text", "") for b in result.content), style="yellow"))
