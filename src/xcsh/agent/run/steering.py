"""Steering the model toward ``resolve`` while previews are pending.

Everything here derives from the store's state at the moment it is asked:
the forced tool choice, the reminders actually sent, and the gate. Across
turns only three things are remembered: the count of consecutive forced
turns without progress (the cap), how this provider takes a forced tool
choice (:data:`SteeringMode`, learnt from what it does), and, with soft
steering, whether the model already ignored a reminder. A session can never
demand ``resolve`` while the store is empty.

How a forced turn is sent depends on the mode:

- ``"named"``: tool choice names ``resolve`` (the default);
- ``"required"``: tool choice ``"required"`` with ``resolve`` the only tool
  offered, for servers that ignore a named choice (llama.cpp's
  ``llama-server`` honours only ``"required"``);
- ``"auto"``: no forcing, the reminder says other calls are refused; for a
  provider that rejected a forced tool choice with HTTP 400.

Each change of mode is one-way for the session and comes with a notice for
the user, so the same rejected request is never sent twice. The gate refuses
other tools in every mode.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    Message,
    ProviderError,
    TextContent,
    ToolChoice,
    ToolSpec,
    UserMessage,
    running_tool_call,
)
from xcsh.core.wording import plural
from xcsh.pending import RESOLVE_TOOL_NAME, PendingAction, PendingActionStore

SteeringMode = Literal["named", "required", "auto"]
"""How a forced turn is sent: a named tool choice, ``"required"`` with only
``resolve`` offered, or ``"auto"`` plus the reminder."""

SteeringStyle = Literal["forced", "soft"]
"""``"forced"``: every turn with a pending preview forces ``resolve``.
``"soft"``: the first such turn only reminds (tool choice ``auto``, which keeps
the request identical for prompt caching); forcing starts when the model
ignores the reminder."""

_FORCED_CHOICE_REJECTED = re.compile(
    r"tool[ _-]?choice|forc(?:ed|es|ing)[ _-]tool|tool[ _-]use", re.IGNORECASE
)

REMINDER_TEXT = "This is a preview. Call the `resolve` tool to apply or discard these changes."
"""The hidden user-role reminder queued on each push (contract §3, exact text)."""

NO_FORCING_NOTE = (
    "Until it is resolved, other tool calls are refused: call `resolve` with action "
    "'apply' or 'discard' now."
)
"""Added as a second block to the reminder when the provider cannot force a named tool."""

DEFAULT_MAX_FORCED_TURNS = 5


def rejects_forced_choice(error: ProviderError) -> bool:
    """True when ``error`` is an HTTP 400 refusing a forced tool choice.

    Seen as "tool_choice ... is not supported" from OpenAI-compatible servers
    and "Thinking may not be enabled when tool_choice forces tool use" from
    Anthropic; the provider's own text is matched, whatever its wording of
    tool choice or forced tool use.
    """
    if error.status != 400:
        return False
    return bool(_FORCED_CHOICE_REJECTED.search(f"{error} {error.body or ''}"))


@dataclass(frozen=True, kw_only=True)
class RequestPlan:
    """How the next request steers: its tool choice and whether it offers only ``resolve``.

    ``not_chosen``: offered tools a ``"required"`` turn must not call (``resolve``, on
    the turn after it was refused because nothing was pending).
    """

    tool_choice: ToolChoice
    only_resolve: bool = False
    not_chosen: tuple[str, ...] = ()

    @property
    def forces(self) -> bool:
        """The request forces a tool (named or ``"required"``)."""
        return self.tool_choice != "auto"

    def offered(self, specs: Sequence[ToolSpec]) -> list[ToolSpec]:
        """The tools to send: all of ``specs``, or only ``resolve``."""
        if not self.only_resolve:
            return list(specs)
        return [s for s in specs if s.name == RESOLVE_TOOL_NAME]


@dataclass(frozen=True, kw_only=True)
class Push:
    """One push seen on the store: which call made it, what, and the count after it."""

    tool_call_id: str | None
    action: PendingAction
    count: int


def gate_message(top: PendingAction | None, tool_name: str) -> str:
    """The error result for a non-``resolve`` call in a turn that began with actions pending.

    Args:
        top: the action on top of the store now, or ``None`` when an earlier
            ``resolve`` of the same batch emptied it.
        tool_name: the refused call's tool.
    """
    if top is None:
        return (
            f"Not executed: '{tool_name}' was refused because this turn began with a "
            "pending preview to resolve, and calls made in such a turn wait for the next "
            f"one. Nothing is pending now: call '{tool_name}' again if you still need it."
        )
    return (
        f"Not executed: '{tool_name}' was refused because the pending preview "
        f"'{top.label}' must be resolved first. Call the `resolve` tool with action "
        "'apply' or 'discard' before any other tool."
    )


def cap_message(
    turns: int, store: PendingActionStore, *, failed: int = 0, last_error: str = ""
) -> str:
    """The run-end message when the forced-turn cap trips.

    Args:
        turns: consecutive forced turns without progress.
        store: the store (its actions stay pending).
        failed: ``resolve`` calls in those turns that failed (an apply that
            raised, invalid arguments); 0 when the model never called it.
        last_error: the first line of the last failure's text.
    """
    labels = "; ".join(a.label for a in store.snapshot()) or "none"
    previews = "preview" if store.count <= 1 else "previews"
    span = "in its last turn" if turns == 1 else f"{turns} turns in a row"
    stay = "the action stays pending" if store.count == 1 else "the actions stay pending"
    if failed:
        calls = plural(failed, "`resolve` call")
        window = "the last turn" if turns == 1 else f"the last {turns} turns"
        failed_all = "failed" if failed == 1 else "all failed"
        why = f" (last error: {last_error})" if last_error else ""
        what = f"the model's {calls} in {window} {failed_all}{why}"
        return (
            f"Stopped: {what}. Still pending (newest first): {labels}. Nothing was applied; {stay}."
        )
    return (
        f"Stopped: the model was asked to resolve the pending {previews} {span} "
        f"and did not. Still pending (newest first): {labels}. Nothing was applied; "
        f"{stay}."
    )


class Steering:
    """Per-session steering state: queued pushes and reminders, and the cap counter.

    Args:
        store: the session's store, or ``None`` (then nothing is ever forced).
        max_forced_turns: consecutive forced turns without progress before the
            run stops (contract §3 "a bounded number"); at least 1.
        supports_forced_tool_choice: from the provider; when False forced turns
            start in ``"required"`` mode.
        style: ``"forced"`` (default) or ``"soft"`` (:data:`SteeringStyle`).
        learn_tool_choice: watch whether the provider honours a named tool
            choice (``--base-url`` servers); when a forced turn comes back
            without a ``resolve`` call, switch to ``"required"`` mode.

    A reminder sent with a turn that does not force carries
    :data:`NO_FORCING_NOTE` as a second block.

    The store's push listener may run on a worker thread; it only appends to
    lists under a lock. Call :meth:`close` to unsubscribe.
    """

    def __init__(
        self,
        store: PendingActionStore | None,
        *,
        max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS,
        supports_forced_tool_choice: bool = True,
        style: SteeringStyle = "forced",
        learn_tool_choice: bool = False,
    ) -> None:
        if max_forced_turns < 1:
            raise ValueError(f"max_forced_turns must be at least 1, got {max_forced_turns}")
        self.store = store
        self.max_forced_turns = max_forced_turns
        self.mode: SteeringMode = "named" if supports_forced_tool_choice else "required"
        self.style: SteeringStyle = style
        self.learn_tool_choice = learn_tool_choice
        self._ignored = False  # soft steering: the model ignored a reminder
        self._bar_resolve = False  # the next request requires a call of another tool
        self._resolved_in_run = False  # a preview was applied or discarded in this run
        self._quote_request = False  # a resolve was refused too early: reminders quote the request
        self._last = RequestPlan(tool_choice="auto")
        self._lock = threading.Lock()
        self._pushes: list[Push] = []
        self._reminders = 0
        self._streak = 0
        self._failed = 0
        self._last_failure = ""
        self._unsubscribe = store.subscribe_push(self._on_push) if store is not None else None

    def adapt_to(self, *, supports_forced_tool_choice: bool, learn_tool_choice: bool) -> None:
        """Start afresh for another provider (``/model``): its mode is learnt again."""
        self.mode = "named" if supports_forced_tool_choice else "required"
        self.learn_tool_choice = learn_tool_choice

    def close(self) -> None:
        """Stop listening to the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _on_push(self, action: PendingAction, count: int) -> None:
        call = running_tool_call()
        with self._lock:
            self._pushes.append(
                Push(tool_call_id=call.tool_call_id if call else None, action=action, count=count)
            )
            self._reminders += 1

    def remind(self) -> None:
        """Queue one more reminder (after a forced turn in which the model called nothing)."""
        with self._lock:
            self._reminders += 1

    def take_pushes(self) -> list[Push]:
        """Pushes seen since the last call, in push order."""
        with self._lock:
            pushes, self._pushes = self._pushes, []
        return pushes

    def take_reminders(self, request: str = "") -> list[Message]:
        """The hidden reminder to append before the next request, if any.

        When the top preview was checked, a block repeats the verdict of its check.
        After a ``resolve`` of this run was refused with nothing pending, ``request``
        (the user's request, quoted; ``""``: none) is the last block: a small model that
        called ``resolve`` too early applied the preview it was asked to discard.
        Queued reminders collapse into one message, and are dropped when the
        store is empty by now (a preview pushed and resolved in one batch): a
        reminder must never ask for ``resolve`` with nothing pending (R1).
        """
        with self._lock:
            queued, self._reminders = self._reminders, 0
        if not queued or not self.forced():
            return []
        blocks = [TextContent(REMINDER_TEXT)]
        if not self._plan().forces:
            blocks.append(TextContent(NO_FORCING_NOTE))
        top = self.store.peek() if self.store is not None else None
        if top is not None and top.preview.check is not None:
            # the evidence goes with the turn that decides: the check's verdict on the top preview
            blocks.append(TextContent(f"Preview {top.id}: {top.preview.check.summary()}"))
        if self._quote_request and request:
            blocks.append(TextContent(request))
        return [UserMessage(content=list(blocks), hidden=True)]

    def forced(self) -> bool:
        """True exactly while the store has pending actions."""
        return self.store is not None and self.store.has_pending

    def tool_choice(self) -> ToolChoice:
        """The tool choice of the next request (see :meth:`next_request`)."""
        return self._plan().tool_choice

    def refused_resolve(self) -> bool:
        """Note a ``resolve`` refused because nothing was pending; True when it bars ``resolve``.

        Before any preview of this run was applied or discarded, the next request
        requires a call of another tool (``"required"``, ``resolve`` not among the
        calls allowed; unless the provider takes no forced choice): the model called
        ``resolve`` before making the preview. After one was, nothing is forced: the
        work is done and the model should answer. Returns False then.
        """
        self._bar_resolve = not self._resolved_in_run and self.mode != "auto"
        self._quote_request = self._quote_request or not self._resolved_in_run
        return not self._resolved_in_run

    @property
    def bars_resolve(self) -> bool:
        """The next request requires a call of a tool other than ``resolve``."""
        return self._bar_resolve

    def _plan(self) -> RequestPlan:
        if not self.forced() and self._bar_resolve:
            return RequestPlan(tool_choice="required", not_chosen=(RESOLVE_TOOL_NAME,))
        if not self.forced() or self.mode == "auto":
            return RequestPlan(tool_choice="auto")
        if self.style == "soft" and not self._ignored:
            return RequestPlan(tool_choice="auto")
        if self.mode == "required":
            return RequestPlan(tool_choice="required", only_resolve=True)
        return RequestPlan(tool_choice=ForcedTool(name=RESOLVE_TOOL_NAME))

    def next_request(self) -> RequestPlan:
        """Plan how the request about to be sent steers toward ``resolve``.

        The plan is remembered for :meth:`fall_back` and :meth:`check_answer`. It forces
        only while actions are pending.
        """
        self._last = self._plan()
        self._bar_resolve = False  # for one request only
        return self._last

    def fall_back(self, error: ProviderError, provider: str) -> str | None:
        """Fall back to ``"auto"`` after a failed request, when the provider refused forcing.

        Only a forced request the provider refused (:func:`rejects_forced_choice`) counts.

        Returns:
            The notice for the user when steering changed (the caller sends the
            turn again), else ``None`` (the error stands). A request that did
            not force never falls back, so the same 400 is never sent twice.
        """
        if not self._last.forces or not rejects_forced_choice(error):
            return None
        self.mode = "auto"
        self.remind()  # the turn sent again says that other calls are refused
        detail = (str(error).splitlines() or [""])[0]
        return (
            f"{provider} rejected a forced tool choice ({detail}). For the rest of this "
            "session a pending preview is asked for by reminder (tool choice auto); other "
            "tools are still refused until it is resolved."
        )

    def check_answer(self, message: AssistantMessage, provider: str) -> str | None:
        """Learn from an answer to the last request whether the steering held.

        Soft steering moves to forcing when a reminder was ignored; a server that answered
        a forced turn without calling ``resolve`` does not honour that kind of forcing, so
        the next weaker kind is used from then on.

        Returns:
            The notice for the user when the mode changed, else ``None``.
        """
        plan = self._last
        if not self.forced():  # nothing pending: no turn forced ``resolve``
            return None
        called = any(c.name == RESOLVE_TOOL_NAME for c in message.tool_calls)
        if called or message.stop_reason not in ("stop", "tool_use"):
            return None
        if not plan.forces:
            self._ignored = self.style == "soft" and self.forced()
            return None
        if not self.learn_tool_choice:
            return None
        if self.mode == "named":
            self.mode = "required"
            return (
                f"{provider}: the server answered a forced turn without calling `resolve`, "
                "so it ignores a named tool choice. From now on a turn with a pending "
                'preview offers only `resolve`, with tool choice "required".'
            )
        if self.mode == "required":
            self.mode = "auto"
            self.remind()
            return (
                f'{provider}: the server ignores tool choice "required" too. From now on a '
                "pending preview is asked for by reminder (tool choice auto); other tools "
                "are still refused until it is resolved."
            )
        return None

    def gate(self, tool_name: str, *, turn_began_pending: bool) -> str | None:
        """The refusal text for a call the gate stops, or ``None`` to run it."""
        if not turn_began_pending or tool_name == RESOLVE_TOOL_NAME:
            return None
        return gate_message(self.store.peek() if self.store else None, tool_name)

    def start_run(self) -> None:
        """Reset the forced-turn counter, so each run gets the full cap.

        With soft steering, the run starts with a reminder again.
        """
        self._ignored = False
        self._bar_resolve = False
        self._resolved_in_run = False
        self._quote_request = False
        self._streak = 0
        self._failed = 0
        self._last_failure = ""

    def end_turn(self, *, forced: bool, progressed: bool, failures: Sequence[str] = ()) -> bool:
        """Count a finished turn; True when the forced-turn cap is reached.

        Args:
            forced: the turn's request forced ``resolve``.
            progressed: at least one pending action was applied or discarded.
            failures: the texts of the turn's failed ``resolve`` calls.
        """
        self._resolved_in_run = self._resolved_in_run or progressed
        if not forced or progressed:
            self._ignored = False
            self._streak = 0
            self._failed = 0
            self._last_failure = ""
            return False
        self._streak += 1
        self._failed += len(failures)
        if failures:
            self._last_failure = (failures[-1].splitlines() or [""])[0]
        return self._streak >= self.max_forced_turns

    def cap_message(self) -> str:
        """The run-end message for the current streak (see :func:`cap_message`)."""
        assert self.store is not None  # the cap trips only while actions are pending
        return cap_message(
            self._streak, self.store, failed=self._failed, last_error=self._last_failure
        )
