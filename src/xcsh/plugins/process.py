"""Running a subprocess for a custom tool: ``CustomToolAPI.exec`` (contract §5).

The child runs under a :class:`~xcsh.sandbox.ProcessSupervisor` (the same one
home as the ``bash`` tool's commands), so a timeout or a cancellation kills the
command *and* everything it started (``sh -c 'a | b'``, a test runner's
workers, even ``setsid`` daemons), not just the direct child. Custom tools get
SIGKILL at once (no grace period); they are never confined by the sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xcsh.core import ToolError
from xcsh.sandbox import ProcessSupervisor, SupervisorError
from xcsh.sandbox.supervisor import SupervisedProcess

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


async def _read_all(fd: int) -> bytes:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    pipe = os.fdopen(fd, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
    try:
        return await reader.read()
    finally:
        transport.close()


async def _write_all(fd: int, data: bytes) -> None:
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    try:
        writer.write(data)
        await writer.drain()
    except (BrokenPipeError, ConnectionResetError):
        pass  # the child did not read all of it: as with subprocess.communicate
    finally:
        transport.close()


async def run_command(
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: str | Path,
    timeout: float | None = None,
    cancel: asyncio.Event | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | bytes | None = None,
    supervisor: ProcessSupervisor | None = None,
) -> ExecResult:
    """Run ``command`` with ``args`` (no shell) and collect its output.

    Args:
        command: the program to run, looked up on ``PATH`` as ``execvp`` does.
            Pass ``"sh", ["-c", "..."]`` for shell syntax.
        args: its arguments.
        cwd: the working folder of the child.
        timeout: seconds before the command and all it started are killed;
            ``None`` waits for ever.
        cancel: when set, the command and all it started are killed and the
            result has ``killed=True``.
        env: extra environment variables, layered over xcsh's environment.
        stdin: text or bytes written to the child's standard input (which is
            otherwise closed).
        supervisor: the supervisor to start it with (the caller's, so its
            helper process is reused); a private one, closed at the end, when None.

    Returns:
        An :class:`ExecResult`. A non-zero exit is *not* an error; check ``code``.

    Raises:
        ToolError: the program cannot be started (not found, not executable,
            ``cwd`` missing); the message names the program and the reason.
        asyncio.CancelledError: the awaiting task was cancelled; the command
            and all it started are killed before the cancellation propagates.
    """
    own = supervisor is None
    sup = ProcessSupervisor() if supervisor is None else supervisor
    try:
        return await _run(command, args, cwd, timeout, cancel, env, stdin, sup)
    finally:
        if own:
            sup.close()


async def _run(
    command: str,
    args: Sequence[str],
    cwd: str | Path,
    timeout: float | None,
    cancel: asyncio.Event | None,
    env: Mapping[str, str] | None,
    stdin: str | bytes | None,
    supervisor: ProcessSupervisor,
) -> ExecResult:
    proc, (out_r, err_r, in_w) = await _start(
        supervisor, [command, *args], cwd, env, piped_stdin=stdin is not None
    )
    data = stdin.encode() if isinstance(stdin, str) else stdin
    out_read = asyncio.ensure_future(_read_all(out_r))
    err_read = asyncio.ensure_future(_read_all(err_r))
    feed = asyncio.ensure_future(_write_all(in_w, data)) if data is not None else None
    outputs = asyncio.ensure_future(_collect(out_read, err_read, feed))
    finished = asyncio.ensure_future(_both(proc.wait(), outputs))
    waiters: set[asyncio.Future[None] | asyncio.Future[Literal[True]]] = {finished}
    cancel_wait: asyncio.Future[Literal[True]] | None = None
    if cancel is not None:
        cancel_wait = asyncio.ensure_future(cancel.wait())
        waiters.add(cancel_wait)
    killed = timed_out = False
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if finished not in done:
            killed = True
            timed_out = not done  # nothing finished: the timeout expired
            await proc.kill()
            # Every process that could hold the pipes is dead now; the grace only
            # covers one the kernel refused to kill.
            drained, _ = await asyncio.wait({finished}, timeout=_PIPE_GRACE_SECONDS)
            if not drained:
                finished.cancel()
                return ExecResult(stdout="", stderr="", code=-9, killed=True, timed_out=timed_out)
        out, err = await outputs
    except asyncio.CancelledError:
        killer = asyncio.ensure_future(proc.kill())
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(killer)
        finished.cancel()
        raise
    finally:
        proc.close()
        if cancel_wait is not None:
            cancel_wait.cancel()
    code = proc.returncode if proc.returncode is not None else -9
    return ExecResult(
        stdout=out.decode("utf-8", errors="replace"),
        stderr=err.decode("utf-8", errors="replace"),
        code=code,
        killed=killed,
        timed_out=timed_out,
    )


async def _start(
    supervisor: ProcessSupervisor,
    argv: list[str],
    cwd: str | Path,
    env: Mapping[str, str] | None,
    *,
    piped_stdin: bool,
) -> tuple[SupervisedProcess, tuple[int, int, int]]:
    """Start ``argv`` with its output on pipes; the process and the parent's ends of them.

    The ends are stdout, stderr, and stdin's write end (``-1`` when stdin is
    ``/dev/null``).

    Raises:
        ToolError: the command cannot be started (the message names it and ``cwd``).
    """
    child_env = {**os.environ, **(env or {})}
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if piped_stdin else (os.open(os.devnull, os.O_RDONLY), -1)
    try:
        proc = await supervisor.start(
            argv,
            cwd=cwd,
            env=child_env,
            stdin=in_r,
            stdout=out_w,
            stderr=err_w,
            grace=0.0,
        )
    except BaseException as exc:
        for fd in (out_r, err_r, in_w):
            if fd >= 0:
                os.close(fd)
        if isinstance(exc, SupervisorError):
            reason = exc.strerror or str(exc)
            raise ToolError(f"Cannot run '{argv[0]}' in {cwd}: {reason}.") from exc
        raise
    finally:
        for fd in (out_w, err_w, in_r):
            os.close(fd)
    return proc, (out_r, err_r, in_w)


async def _collect(
    out: asyncio.Future[bytes], err: asyncio.Future[bytes], feed: asyncio.Future[None] | None
) -> tuple[bytes, bytes]:
    """The command's stdout and stderr, once both are read and its stdin is fed."""
    if feed is None:
        read_out, read_err = await asyncio.gather(out, err)
    else:
        read_out, read_err, _ = await asyncio.gather(out, err, feed)
    return read_out, read_err


async def _both(exit_code: Awaitable[int], outputs: asyncio.Future[tuple[bytes, bytes]]) -> None:
    await exit_code
    await outputs
