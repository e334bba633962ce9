"""Run one command to its end under the supervisor: timeout, cancel, output read as it comes.

:func:`run_to_end` is the one home for "start a command, hand its output on as
it arrives, and end it (with every process it started) at a timeout, on a
cancel event or when the calling task is cancelled": the ``bash`` tool and
the project's check both run commands through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcsh.sandbox.supervisor import Confinement, KillReport, ProcessSupervisor, SupervisedProcess

DRAIN_SECONDS = 2.0
"""How long output is still read after the command ended (a background child may hold
the pipe open)."""

Ending = Literal["exited", "timeout", "cancelled"]
_SETTLE = 0.05
"""Seconds to wait, once a command exited, for word that nothing it started is left."""


@dataclass(frozen=True, kw_only=True)
class RunOutcome:
    """How a command run by :func:`run_to_end` ended.

    Args:
        how: ``"exited"`` (on its own), ``"timeout"`` or ``"cancelled"`` (the
            cancel event; both end it with every descendant).
        exit_code: its exit code (``-N``: killed by signal ``N``); ``None`` when
            it was ended at the timeout or on the cancel event.
        killed: the supervisor's report of that kill (``None`` when it exited).
        seconds: wall-clock time from start to end.
        detached: it exited, but background processes still held its output
            open after the drain time (their later output is not read).
        background: it exited, leaving processes it started running.
    """

    how: Ending
    exit_code: int | None
    killed: KillReport | None
    seconds: float
    detached: bool = False
    background: bool = False

    @property
    def timed_out(self) -> bool:
        """The timeout ended it."""
        return self.how == "timeout"


async def run_to_end(
    supervisor: ProcessSupervisor,
    argv: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    timeout: float,
    on_output: Callable[[bytes], None],
    confine: Confinement | None = None,
    grace: float = 2.0,
    cancel: asyncio.Event | None = None,
    keep_background: bool = False,
    drain: float = DRAIN_SECONDS,
    stdin: int | None = None,
) -> RunOutcome:
    """Run ``argv`` (stdout and stderr on one pipe) until it ends.

    At ``timeout`` seconds, when ``cancel`` is set, or when the calling task is
    cancelled, the command and every descendant are ended (SIGTERM, SIGKILL
    after ``grace``); a task cancellation is re-raised once they are gone.

    Args:
        supervisor: starts the command and ends it with its descendants.
        argv: the program and its arguments.
        cwd: the folder the command runs in.
        env: the command's whole environment.
        timeout: seconds after which the command is ended.
        on_output: receives each chunk of output as it arrives.
        confine: what the command may do; ``None``: unconfined.
        grace: seconds between SIGTERM and SIGKILL when the command is ended.
        cancel: when set, the command is ended; ``None``: only ``timeout`` and task
            cancellation end it.
        keep_background: background processes left by a command that exited on
            its own run on (until they end or the supervisor is closed);
            otherwise they are ended too and nothing it started outlives the run.
        drain: seconds output is still read after the command ended.
        stdin: a file descriptor the command gets as its standard input (the
            caller keeps and closes it); ``None``: ``/dev/null``.

    Raises:
        SupervisorError: the command could not be started (the message says why).
    """
    proc, read_fd = await _start(
        supervisor, argv, cwd=cwd, env=env, confine=confine, grace=grace, stdin=stdin
    )
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport: asyncio.BaseTransport | None = None
    outcome: RunOutcome | None = None
    # One protected region from the moment the command exists: a cancellation that
    # lands while the pipe is being connected must still end the whole tree.
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        outcome = await _watch(proc, reader, on_output, timeout, cancel, drain)
        return outcome
    except asyncio.CancelledError:
        killer = asyncio.ensure_future(proc.kill())
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(killer)
        raise
    finally:
        exited = outcome is not None and outcome.how == "exited"
        proc.close(keep_background=keep_background and exited)
        if transport is not None:
            transport.close()
        else:
            pipe.close()


async def _start(
    supervisor: ProcessSupervisor,
    argv: Sequence[str],
    *,
    cwd: str | Path,
    env: Mapping[str, str],
    confine: Confinement | None,
    grace: float,
    stdin: int | None,
) -> tuple[SupervisedProcess, int]:
    """Start ``argv`` with stdout and stderr on one new pipe; the process and the read end.

    The caller owns the read end. ``stdin`` is duplicated (``None``: ``/dev/null``);
    every other descriptor made here is closed, also when the start fails.

    Raises:
        SupervisorError: the command could not be started.
    """
    read_fd, write_fd = os.pipe()
    null_fd = os.open(os.devnull, os.O_RDONLY) if stdin is None else os.dup(stdin)
    try:
        proc = await supervisor.start(
            argv,
            cwd=cwd,
            env=env,
            stdin=null_fd,
            stdout=write_fd,
            stderr=write_fd,
            confine=confine,
            grace=grace,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
        os.close(null_fd)
    return proc, read_fd


async def _watch(
    proc: SupervisedProcess,
    reader: asyncio.StreamReader,
    on_output: Callable[[bytes], None],
    timeout: float,
    cancel: asyncio.Event | None,
    drain: float,
) -> RunOutcome:
    loop = asyncio.get_running_loop()
    started = loop.time()

    async def pump() -> None:
        while chunk := await reader.read(65536):
            on_output(chunk)

    pumping = asyncio.ensure_future(pump())
    waiter = asyncio.ensure_future(proc.wait())
    cancelled = asyncio.ensure_future(cancel.wait() if cancel is not None else loop.create_future())
    try:
        done, _ = await asyncio.wait(
            {waiter, cancelled}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if waiter in done:
            drained, _ = await asyncio.wait({pumping}, timeout=drain)
            return RunOutcome(
                how="exited",
                exit_code=waiter.result(),
                killed=None,
                seconds=loop.time() - started,
                detached=not drained,
                background=not await proc.settled(_SETTLE),
            )
        how: Ending = "cancelled" if cancelled in done else "timeout"
        report = await proc.kill()
        await asyncio.wait({pumping}, timeout=drain)
        return RunOutcome(how=how, exit_code=None, killed=report, seconds=loop.time() - started)
    finally:
        for task in (pumping, waiter, cancelled):
            task.cancel()
        await asyncio.gather(pumping, waiter, cancelled, return_exceptions=True)


__all__ = ["DRAIN_SECONDS", "Ending", "RunOutcome", "run_to_end"]
