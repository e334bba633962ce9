"""Run one command to its end under the supervisor, with a timeout and its output read.

:func:`run_to_end` is the plain "start, read, wait or kill" of a command whose
whole output matters once it ends (the project's check); tools that stream
partial output to the model keep their own loop around
:meth:`ProcessSupervisor.start`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xcsh.sandbox.supervisor import (
    Confinement,
    KillReport,
    ProcessSupervisor,
    SupervisedProcess,
)

DRAIN_SECONDS = 2.0
"""How long output is still read after the command ended (a background child may hold
the pipe open)."""


@dataclass(frozen=True, kw_only=True)
class RunOutcome:
    """How a command run by :func:`run_to_end` ended.

    Args:
        exit_code: its exit code (``-N``: killed by signal ``N``); ``None`` when
            it was ended at the timeout.
        timed_out: the timeout ended it (with every descendant).
        killed: the supervisor's report of that kill (``None`` when it exited).
        seconds: wall-clock time from start to end.
    """

    exit_code: int | None
    timed_out: bool
    killed: KillReport | None
    seconds: float


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
) -> RunOutcome:
    """Run ``argv`` (stdin ``/dev/null``, stdout and stderr on one pipe) until it ends.

    At ``timeout`` seconds, or when the calling task is cancelled, the command
    and every descendant are ended (SIGTERM, SIGKILL after ``grace``); a
    cancellation is re-raised once they are gone. Background processes left
    by a command that exited on its own are ended too: nothing it started
    outlives the run.

    Args:
        on_output: receives each chunk of output as it arrives.

    Raises:
        SupervisorError: the command could not be started (the message says why).
    """
    proc, read_fd = await _start(supervisor, argv, cwd=cwd, env=env, confine=confine, grace=grace)
    loop = asyncio.get_running_loop()
    started = loop.time()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport: asyncio.BaseTransport | None = None

    async def pump() -> None:
        while chunk := await reader.read(65536):
            on_output(chunk)

    pumping: asyncio.Future[None] | None = None
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pumping = asyncio.ensure_future(pump())
        try:
            code = await asyncio.wait_for(proc.wait(), timeout)
        except TimeoutError:
            report = await proc.kill()
            await asyncio.wait({pumping}, timeout=DRAIN_SECONDS)
            return RunOutcome(
                exit_code=None, timed_out=True, killed=report, seconds=loop.time() - started
            )
        await asyncio.wait({pumping}, timeout=DRAIN_SECONDS)
        return RunOutcome(
            exit_code=code, timed_out=False, killed=None, seconds=loop.time() - started
        )
    except asyncio.CancelledError:
        killer = asyncio.ensure_future(proc.kill())
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(killer)
        raise
    finally:
        if pumping is not None:
            pumping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pumping
        proc.close()
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
) -> tuple[SupervisedProcess, int]:
    """Start ``argv`` with stdin ``/dev/null`` and stdout and stderr on one pipe; the
    process and the pipe's read end.

    Raises:
        SupervisorError: the command could not be started.
    """
    read_fd, write_fd = os.pipe()
    null_fd = os.open(os.devnull, os.O_RDONLY)
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


__all__ = ["RunOutcome", "run_to_end"]
