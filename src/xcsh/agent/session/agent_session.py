"""The agent session: history, tools, store, steering, events, persistence.

A front end drives the agent only through :class:`AgentSession`::

    session = AgentSession(provider=provider, tools=tools, cwd=cwd, store=store,
                           config=SessionConfig(recorder=recorder))
    unsubscribe = session.subscribe(on_event)      # every AgentEvent, in order
    end = await session.prompt("rename foo to bar")  # one run; returns its RunEnd
    session.cancel()                                # from a key handler, mid-run
    await session.pending.resolve_top("apply", "looks right")  # /apply, /discard between runs

Events are delivered synchronously on the event loop, in order; a listener
must not block or raise (an exception is logged and swallowed). The session
keeps the history and runs; the rest lives beside it: the approval wrapper of
``resolve`` (:mod:`xcsh.agent.policy.approval`), the pending actions between runs
(:mod:`xcsh.agent.session.pending`: ``/apply``, resume, what a session's end
discards), rebuilding a resumed session's pending actions
(:mod:`xcsh.agent.record.resume`) and writing the session file
(:mod:`xcsh.agent.record.recording`).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Literal

from xcsh.agent.policy.approval import (
    DECLINED_TEXT,
    SKIPPED_ALL_REASON,
    Approval,
    ApprovalHook,
    approval_resolve_tool,
    session_tools,
)
from xcsh.agent.record.recording import SessionLog
from xcsh.agent.record.resume import ResumeReport
from xcsh.agent.run import loop
from xcsh.agent.run.compaction import compact_history
from xcsh.agent.run.events import AgentError, AgentEvent, Notice, RunEnd
from xcsh.agent.run.history import repair_tool_pairs
from xcsh.agent.run.profile import Profile
from xcsh.agent.run.prompt import build_system_prompt
from xcsh.agent.run.steering import Steering
from xcsh.agent.session.config import SessionConfig
from xcsh.agent.session.pending import SessionPending
from xcsh.core import (
    Message,
    TextContent,
    Tool,
    UsageError,
    UserMessage,
)
from xcsh.pending import PendingActionStore
from xcsh.providers import Provider
from xcsh.providers.windows import DEFAULT_CONTEXT_WINDOW, context_window_of

log = logging.getLogger(__name__)

EventListener = Callable[[AgentEvent], None]


class AgentSession:
    """One conversation with a model, its tools and its pending-action store.

    Args:
        provider: the model (any :class:`~xcsh.providers.Provider`).
        tools: the tools to offer, in order; a tool named ``resolve`` is
            replaced by the session's own (bound to ``store``).
        cwd: the working folder (for the system prompt and resume).
        store: the pending-action store the tools push onto; ``None`` for a
            session without previews (then no ``resolve`` and no steering).
        config: the prompt, history, recording and steering choices
            (:class:`~xcsh.agent.session_config.SessionConfig`).

    Attributes:
        pending: the pending actions between runs (``/apply``, resume, what a
            session's end discards): :class:`~xcsh.agent.session_pending.SessionPending`.

    Raises:
        ValueError: two tools share a name, or ``max_forced_turns < 1``.
    """

    def __init__(
        self,
        *,
        provider: Provider,
        tools: Iterable[Tool],
        cwd: Path,
        store: PendingActionStore | None,
        config: SessionConfig | None = None,
    ) -> None:
        config = config or SessionConfig()
        recorder = config.recorder
        self.provider = provider
        self.cwd = cwd
        self.store = store
        self.recorder = recorder
        self.id = config.session_id or (recorder.path.stem if recorder else secrets.token_hex(4))
        self.thinking = config.thinking
        self.max_tokens = config.max_tokens
        self._window_given = config.context_window is not None
        self.context_window = (
            config.context_window or context_window_of(provider.model) or DEFAULT_CONTEXT_WINDOW
        )
        self._base_tools = list(tools)
        self._source = config.tool_source
        self._config = config
        self._tools = self._offered(self._source.tools() if self._source else ())
        self.profile: Profile = config.profile
        self.system_prompt = self._prompt()
        self._steering = Steering(
            store,
            max_forced_turns=config.max_forced_turns,
            supports_forced_tool_choice=getattr(provider, "supports_forced_tool_choice", True),
            style=config.steering,
            learn_tool_choice=getattr(provider, "compatible_server", False),
        )
        if config.steering_mode is not None:
            self._steering.mode = config.steering_mode
        self._messages: list[Message] = list(config.messages)
        self._listeners: list[EventListener] = []
        self._log = SessionLog(recorder, store, self._steering_state)
        self._task: asyncio.Task[RunEnd] | None = None
        self._cancel = asyncio.Event()
        self.pending = SessionPending(
            store=store,
            tools=self._tools,
            rebuildable=config.rebuildable_tools,
            steering=self._steering,
            log=self._log,
            emit=self._emit,
            append=self._append,
            running=lambda: self.running,
        )

    # -- reading -------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """A copy of the history, oldest first (hidden reminders included)."""
        return list(self._messages)

    @property
    def tools(self) -> dict[str, Tool]:
        """The tools offered, by name, in order (``resolve`` last when there is a store)."""
        return dict(self._tools)

    @property
    def running(self) -> bool:
        """True while a run is in progress."""
        return self._task is not None

    def subscribe(self, listener: EventListener) -> Callable[[], None]:
        """Call ``listener(event)`` for every :data:`~xcsh.agent.events.AgentEvent`.

        Returns:
            A function that unsubscribes; calling it twice is harmless.
        """
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _offered(self, joined: Iterable[Tool]) -> dict[str, Tool]:
        """The session's own tools, then those of its source that take no name already taken."""
        names = {t.name for t in self._base_tools}
        extra = [t for t in joined if t.name not in names]
        config = self._config
        return session_tools(
            [*self._base_tools, *extra],
            self.store,
            config.approval,
            requires_checks=config.requires_checks,
        )

    def _prompt(self) -> str:
        config = self._config
        return config.system_prompt or build_system_prompt(
            self.cwd, self._tools.values(), config.instructions, compact=config.profile == "compact"
        )

    async def _refresh_tools(self) -> loop.Refreshed | None:
        """Before a request: the tool source's changes, each of its notices emitted once."""
        if self._source is None:
            return None
        update = await self._source.refresh()
        if update is None:
            return None
        for notice in update.notices:
            self._emit(Notice(kind="mcp", message=notice))
        self._tools = self._offered(update.tools)
        self.pending.tools = self._tools
        self.system_prompt = self._prompt()
        return loop.Refreshed(tools=self._tools, system_prompt=self.system_prompt)

    # -- running -------------------------------------------------------------

    async def prompt(self, text: str, *, last: bool = False, notes: Sequence[str] = ()) -> RunEnd:
        """Add ``text`` as the user's message and run until the model stops.

        With ``last`` (``xcsh -p``: the run is the whole session), however the
        run ends, :meth:`SessionPending.end` runs before ``RunEnd``, which then names
        what it discarded and counts only what stays pending. ``notes`` (what the
        user did meanwhile, ``/undo``) go just before it as one hidden message: the
        model reads them, while the message stays what the user typed (``xcsh
        rewind --list`` shows it).

        Returns:
            The run's :class:`RunEnd` (also emitted as the last event).

        Raises:
            UsageError: a run is already in progress.
            asyncio.CancelledError: the *caller's* task was cancelled (Ctrl-C under
                ``asyncio.run``); the history is consistent and RunEnd was emitted.
                A :meth:`cancel` returns ``RunEnd(reason="cancelled")`` instead.
        """
        if self._task is not None:
            raise UsageError(
                "a run is already in progress", hint="wait for its RunEnd event or call cancel()"
            )
        self._cancel = asyncio.Event()
        # A resumed or interrupted history: every tool call gets exactly one result
        # before anything is sent (the loop never rewrites the history it is given).
        self._messages, _ = repair_tool_pairs(self._messages)
        start = len(self._messages)
        if notes:
            self._append(UserMessage(content=[TextContent("\n".join(notes))], hidden=True))
        self._append(UserMessage(content=[TextContent(text)]))
        ctx = loop.LoopContext(
            provider=self.provider,
            tools=self._tools,
            steering=self._steering,
            system_prompt=self.system_prompt,
            history=lambda: self._messages,
            append=self._append,
            emit=self._emit,
            cancel=self._cancel,
            thinking=self.thinking,
            max_tokens=self.max_tokens,
            before_request=self._compact_if_due,
            compact=self.profile == "compact",
            refresh=self._refresh_tools,
        )
        self._task = asyncio.create_task(loop.run(ctx))
        try:
            end = await self._task
        except asyncio.CancelledError:
            self._task = None
            end = await self.pending.ending(self._run_end("cancelled", start, "Cancelled."), last)
            self._emit(end)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return end
        except Exception as exc:
            self._task = None
            self._emit(AgentError(message=f"{type(exc).__name__}: {exc}", kind="internal"))
            self._emit(await self.pending.ending(self._run_end("error", start, str(exc)), last))
            raise
        finally:
            self._task = None
        end = await self.pending.ending(end, last)
        self._emit(end)
        return end

    async def compact(self) -> bool:
        """Compact the history now (``/compact``): all but the newest turn become a summary.

        Pending previews keep their tool call and result. Emits a
        :class:`~xcsh.agent.events.Notice` either way.

        Returns:
            True when the history was compacted; False when there was nothing
            older to summarise or the summary request failed.

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot compact while the model is running", hint="wait for it")
        return await self._compact(on_demand=True) > 0

    def rewind_history(self, history: Sequence[Message]) -> None:
        """Continue from ``history`` (a rewind: the conversation before a user message).

        The session file is not written here: the rewind records itself
        (:func:`xcsh.agent.rewind.rewind`).

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot rewind while the model is running", hint="wait for it")
        self._messages = list(history)

    async def _compact_if_due(self) -> int:
        return await self._compact(on_demand=False)

    async def _compact(self, *, on_demand: bool) -> int:
        """Replace older turns by a summary; returns how many messages went away."""
        pending = self.store.snapshot() if self.store else []
        outcome = await compact_history(
            self.provider,
            system=self.system_prompt,
            messages=self._messages,
            tools=[loop.tool_spec(t) for t in self._tools.values()],
            pending_calls={a.origin.tool_call_id for a in pending if a.origin is not None},
            window=self.context_window,
            on_demand=on_demand,
            cancel=self._cancel,
        )
        before = len(self._messages)
        if outcome.history is not None:
            self._messages = list(outcome.history)
            self._log.compaction(outcome.summary, outcome.history)
        if outcome.notice:
            self._emit(Notice(kind="compaction", message=outcome.notice))
        return before - len(self._messages)

    def set_provider(self, provider: Provider) -> None:
        """Use ``provider`` (another model, or another API) from the next request on.

        The history stays; steering starts afresh for the new provider (how it
        takes a forced tool choice is learnt again); the context window
        becomes the new model's unless one was given. Emits a ``Notice`` and
        records the switch in the session file.

        Raises:
            UsageError: a run is in progress.
        """
        if self._task is not None:
            raise UsageError("cannot switch models while the model is running")
        self.provider = provider
        self._steering.adapt_to(
            supports_forced_tool_choice=getattr(provider, "supports_forced_tool_choice", True),
            learn_tool_choice=getattr(provider, "compatible_server", False),
        )
        if not self._window_given:
            self.context_window = context_window_of(provider.model) or DEFAULT_CONTEXT_WINDOW
        self._log.model(provider.name, provider.model)
        self._emit(Notice(kind="model", message=f"Now using {provider.name}: {provider.model}."))

    def cancel(self) -> None:
        """Cancel the current run, if any (call it on the event loop's thread).

        Tool calls in flight are cancelled and get a cancelled result; the run
        ends with ``RunEnd(reason="cancelled")``. Pending actions stay pending.
        """
        self._cancel.set()
        if self._task is not None:
            self._task.cancel()

    def close(self) -> None:
        """Stop listening to the store and close the session file (the session is done)."""
        self._steering.close()
        if self.recorder is not None:
            self.recorder.close()

    # -- internals -----------------------------------------------------------

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        self._log.message(message)

    def _emit(self, event: AgentEvent) -> None:
        self._log.event(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("an event listener raised on %s", type(event).__name__)

    def _steering_state(self) -> dict[str, str]:
        return {
            "provider": self.provider.name,
            "model": self.provider.model,
            "mode": self._steering.mode,
        }

    def _run_end(self, reason: Literal["cancelled", "error"], start: int, message: str) -> RunEnd:
        return RunEnd(
            reason=reason,
            final_text=loop.final_text(self._messages, start),
            message=message,
            pending=self.store.count if self.store else 0,
        )


__all__ = [
    "DECLINED_TEXT",
    "SKIPPED_ALL_REASON",
    "AgentSession",
    "Approval",
    "ApprovalHook",
    "EventListener",
    "ResumeReport",
    "SessionConfig",
    "approval_resolve_tool",
]
