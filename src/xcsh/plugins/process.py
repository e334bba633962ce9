"""Running a subprocess for a custom tool: ``CustomToolAPI.exec`` (SPEC §5).

The child runs in its own process group (its own session on POSIX), so a
timeout or a cancellation kills the command *and* everything it started
(``sh -c 'a | b'``, a test runner's workers), not just the direct child.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xcsh.core import ToolError

_POSIX = os.name == "posix"
_PIPE_GRACE_SECONDS = 5.0


@dataclass(frozen=True, kw_only=True)
class ExecResult:
    """What a finished (or killed) command produced.

    Args:
        stdout: standard output, decoded as UTF-8 (undecodable bytes replaced).
        stderr: standard error, decoded the same way.
        code: the exit code; negative ``-N`` when the process died of signal ``N``
            (as :attr:`asyncio.subprocess.Process.returncode` reports it).
        killed: True when xcsh killed the process group (timeout or cancellation).
        timed_out: True when the kill was caused by ``timeout``.
    """

    stdout: str
    stderr: str
    code: int
    killed: bool = False
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True when the command exited with code 0 and was not killed."""
        return self.code == 0 and not self.killed


def _kill_group(proc: asyncio.subprocess.Process) -> None:
    # Kill even when the direct child has exited: the group id outlives its
    # leader while grandchildren (a background job holding the pipes) remain.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if _POSIX:
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups of this kind
            proc.kill()


def _returncode(proc: asyncio.subprocess.Process) -> int:
    return proc.returncode if proc.returncode is not None else -1


async def run_command(
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: str | Path,
    timeout: float | None = None,
    cancel: asyncio.Event | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | bytes | None = None,
) -> ExecResult:
    """Run ``command`` with ``args`` (no shell) and collect its output.

    Args:
        command: the program to run, looked up on ``PATH`` as ``execvp`` does.
            Pass ``"sh", ["-c", "..."]`` for shell syntax.
        args: its arguments.
        cwd: the working folder of the child.
        timeout: seconds before the whole process group is killed; ``None``
            waits for ever.
        cancel: when set, the whole process group is killed and the result
            has ``killed=True``.
        env: extra environment variables, layered over xcsh's environment.
        stdin: text or bytes written to the child's standard input (which is
            otherwise closed).

    Returns:
        An :class:`ExecResult`. A non-zero exit is *not* an error; check ``code``.

    Raises:
        ToolError: the program cannot be started (not found, not executable,
            ``cwd`` missing); the message names the program and the reason.
        asyncio.CancelledError: the awaiting task was cancelled; the process
            group is killed before the cancellation propagates.
    """
    child_env = None if env is None else {**os.environ, **env}
    try:
        proc = await asyncio.create_subprocess_exec(
            command,
            *args,
            cwd=str(cwd),
            env=child_env,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=_POSIX,
        )
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ToolError(f"Cannot run '{command}' in {cwd}: {reason}.") from exc

    data = stdin.encode() if isinstance(stdin, str) else stdin
    communicate = asyncio.ensure_future(proc.communicate(data))
    waiters: set[asyncio.Future[Any]] = {communicate}
    cancel_wait: asyncio.Future[Any] | None = None
    if cancel is not None:
        cancel_wait = asyncio.ensure_future(cancel.wait())
        waiters.add(cancel_wait)
    killed = timed_out = False
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if communicate not in done:
            killed = True
            timed_out = not done  # nothing finished: the timeout expired
            _kill_group(proc)
            # A process that left the group (setsid) may still hold the pipes.
            finished, _ = await asyncio.wait({communicate}, timeout=_PIPE_GRACE_SECONDS)
            if not finished:
                communicate.cancel()
                with contextlib.suppress(BaseException):
                    await proc.wait()
                # Drop our ends of the pipes now rather than at garbage collection,
                # which may come after the event loop has closed.
                transport = getattr(proc, "_transport", None)
                if transport is not None:
                    transport.close()
                return ExecResult(
                    stdout="", stderr="", code=_returncode(proc), killed=True, timed_out=timed_out
                )
        out, err = await communicate
    except asyncio.CancelledError:
        _kill_group(proc)
        communicate.cancel()
        with contextlib.suppress(BaseException):
            await proc.wait()
        raise
    finally:
        if cancel_wait is not None:
            cancel_wait.cancel()
    # The direct child is gone; grandchildren that kept its pipes open are
    # already dead too, since the kill went to the whole group.
    return ExecResult(
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        code=_returncode(proc),
        killed=killed,
        timed_out=timed_out,
    )
