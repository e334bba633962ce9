"""The ``bash`` tool: run a command in the workspace, bounded in time and output.

The command runs as ``bash -c`` in its own session under a supervisor
(:mod:`xcsh.sandbox.supervisor`) that keeps every descendant, ``setsid`` and
double forks included. A timeout, the call's cancel event, or cancellation of
the asyncio task ends the whole tree: SIGTERM, then SIGKILL after a grace
period. With a :class:`~xcsh.sandbox.SandboxPlan` that confines, the command
may write only in the workspace, a private temporary folder (``$TMPDIR``) and
the paths the user listed, and the result says when the sandbox refused a write.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, Field

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    TextContent,
    ToolCallContext,
    ToolError,
    text_result,
)
from xcsh.fs import xcsh_home
from xcsh.sandbox import (
    ProcessSupervisor,
    SandboxPlan,
    SupervisedProcess,
    SupervisorError,
    find_denials,
)
from xcsh.sandbox.supervisor import KillReport
from xcsh.tools.coding._paths import human_size, plural

DEFAULT_TIMEOUT = 120.0
"""Seconds a command may run when the call gives no ``timeout``."""
MAX_TIMEOUT = 3600.0
HEAD_BYTES = 8 * 1024
"""Bytes kept from the start of a long output."""
TAIL_BYTES = 24 * 1024
"""Bytes kept from the end of a long output (errors tend to be at the end)."""
LOG_HEAD_BYTES = 2 * 1024 * 1024
"""Bytes of a long output its log keeps from the start."""
LOG_TAIL_BYTES = 2 * 1024 * 1024
"""Bytes of a long output its log keeps from the end (the middle is left out)."""
LOG_KEEP = 20
"""Logs kept in the log folder; the oldest beyond this are removed when a new one starts."""
LOG_MAX_AGE = 24 * 3600.0
"""Seconds after which a log is removed when a new one starts."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
DRAIN_AFTER_EXIT = 1.0
"""Seconds to keep reading after bash exits while background processes hold the output."""
_UPDATE_INTERVAL = 0.5

DESCRIPTION = f"""\
Run a shell command with `bash -c` in the workspace folder and return its output \
(stdout and stderr interleaved) and exit code. A non-zero exit code is reported, not \
treated as a failure of the tool. Commands time out after `timeout` seconds (default \
{DEFAULT_TIMEOUT:g}); on timeout or cancellation the command and every process it started \
are killed. Long output keeps the first {HEAD_BYTES // 1024} KiB and the last \
{TAIL_BYTES // 1024} KiB, and the output is saved to a log file whose path is given (only its \
first and last {LOG_HEAD_BYTES // 1024 // 1024} MiB when it is longer). \
stdin is closed: do not run interactive programs. Use it for builds, tests, git and other \
programs; prefer `read`, `grep`, `find` and `ls` to inspect files, and `edit`/`write` to \
change them. For sweeping structural code changes, `ast_edit` is the better choice over \
sed or scripts: it previews the change before applying it."""


class BashParams(BaseModel):
    """Arguments of ``bash``."""

    command: str = Field(min_length=1, description="The command line, run with bash -c.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before the command is killed (default {DEFAULT_TIMEOUT:g}).",
    )


@dataclass(frozen=True, kw_only=True)
class _LogPolicy:
    folder: Path
    head_bytes: int
    tail_bytes: int
    keep: int
    max_age: float


class _Output:
    """Collects output: all of it while short; once long, head and tail for the
    model plus a log file that keeps the first and last part of the output."""

    def __init__(self, head_bytes: int, tail_bytes: int, policy: _LogPolicy) -> None:
        self.head_bytes = head_bytes
        self.tail_bytes = tail_bytes
        self.policy = policy
        self.buffer = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.newlines = 0
        self.spilled = False
        self.log: IO[bytes] | None = None
        self.log_path: str | None = None
        self.log_error: str | None = None
        self.log_written = 0
        self.log_tail = bytearray()
        self.log_omitted = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.newlines += chunk.count(b"\n")
        if not self.spilled:
            self.buffer += chunk
            if len(self.buffer) > self.head_bytes + self.tail_bytes:
                self._spill()
            return
        self._log_write(chunk)
        self.tail += chunk
        if len(self.tail) > self.tail_bytes:
            del self.tail[: len(self.tail) - self.tail_bytes]

    def _spill(self) -> None:
        self.spilled = True
        self._open_log()
        self._log_write(bytes(self.buffer))
        self.tail = bytearray(self.buffer[-self.tail_bytes :])
        del self.buffer[self.head_bytes :]

    def _open_log(self) -> None:
        folder = self.policy.folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            prune_logs(folder, keep=self.policy.keep - 1, max_age=self.policy.max_age)
            stamp = time.strftime("%Y%m%d-%H%M%S")
            fd, name = tempfile.mkstemp(dir=folder, prefix=f"bash-{stamp}-", suffix=".log")
        except OSError as exc:
            self.log_error = f"cannot create a log in {folder}: {exc.strerror or exc}"
            return
        self.log, self.log_path = os.fdopen(fd, "wb"), name

    def _log_write(self, chunk: bytes) -> None:
        if self.log is None:
            return
        room = self.policy.head_bytes - self.log_written
        if room > 0:
            part = chunk[:room]
            try:
                self.log.write(part)
            except OSError as exc:
                self._log_failed(exc)
                return
            self.log_written += len(part)
            chunk = chunk[room:]
        if not chunk:
            return
        self.log_tail += chunk
        excess = len(self.log_tail) - self.policy.tail_bytes
        if excess > 0:
            del self.log_tail[:excess]
            self.log_omitted += excess

    def _log_failed(self, exc: OSError) -> None:
        self.log_error = f"cannot write {self.log_path}: {exc.strerror or exc}"
        if self.log is not None:
            with contextlib.suppress(OSError):
                self.log.close()
        if self.log_path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.log_path)
        self.log, self.log_path = None, None

    def close(self) -> None:
        """Write the kept end of the output to the log and close it."""
        if self.log is None:
            return
        try:
            if self.log_omitted:
                self.log.write(
                    f"\n[... {human_size(self.log_omitted)} omitted: this log keeps the first "
                    f"{human_size(self.policy.head_bytes)} and the last "
                    f"{human_size(self.policy.tail_bytes)} of the output ...]\n".encode()
                )
            self.log.write(self.log_tail)
            self.log.close()
        except OSError as exc:
            self._log_failed(exc)

    def recent(self, size: int = 4096) -> str:
        data = self.tail if self.spilled else self.buffer
        return bytes(data[-size:]).decode("utf-8", errors="replace")

    def render(self) -> str:
        """The output for the model, with a note when the middle was left out."""
        if not self.spilled:
            return self.buffer.decode("utf-8", errors="replace")
        head = bytes(self.buffer)
        cut = head.rfind(b"\n")
        if cut >= len(head) // 2:
            head = head[: cut + 1]
        tail = bytes(self.tail)
        cut = tail.find(b"\n")
        if 0 <= cut < len(tail) // 2:
            tail = tail[cut + 1 :]
        omitted = self.total - len(head) - len(tail)
        omitted_lines = max(0, self.newlines - head.count(b"\n") - tail.count(b"\n"))
        if self.log_path is None:
            saved = f"The full output could not be saved: {self.log_error}."
        elif self.log_omitted:
            saved = (
                f"Its first {human_size(self.policy.head_bytes)} and last "
                f"{human_size(self.policy.tail_bytes)} are saved to {self.log_path}"
            )
        else:
            saved = f"Full output saved to {self.log_path}"
        return (
            head.decode("utf-8", errors="replace")
            + f"\n[... {human_size(omitted)} ({plural(omitted_lines, 'line')}) omitted ...]\n"
            + tail.decode("utf-8", errors="replace")
            + f"\n[Output truncated: {human_size(self.total)} in total. {saved}]"
        )


def default_log_dir() -> Path:
    """``$XCSH_HOME/logs/bash``: where long outputs are saved (SPEC §5a)."""
    return xcsh_home() / "logs" / "bash"


def prune_logs(folder: Path, *, keep: int = LOG_KEEP, max_age: float = LOG_MAX_AGE) -> None:
    """Remove old output logs (``bash-*.log``) from ``folder``.

    Keeps the newest ``keep`` logs (by modification time) and removes any log
    older than ``max_age`` seconds. Files that vanish or cannot be removed are
    skipped; other files in the folder are never touched.
    """
    now = time.time()
    logs: list[tuple[float, Path]] = []
    for path in folder.glob("bash-*.log"):
        with contextlib.suppress(OSError):
            logs.append((path.stat().st_mtime, path))
    logs.sort(reverse=True)
    for index, (mtime, path) in enumerate(logs):
        if index >= max(keep, 0) or now - mtime > max_age:
            with contextlib.suppress(OSError):
                path.unlink()


@dataclass(frozen=True)
class _Outcome:
    how: Literal["exited", "timeout", "cancelled"]
    returncode: int | None
    detached: bool  # background processes still held the output when bash exited
    seconds: float
    killed: KillReport | None = None


def create_bash_tool(
    cwd: str | Path,
    *,
    head_bytes: int = HEAD_BYTES,
    tail_bytes: int = TAIL_BYTES,
    kill_grace: float = KILL_GRACE,
    log_dir: str | Path | None = None,
    log_head_bytes: int = LOG_HEAD_BYTES,
    log_tail_bytes: int = LOG_TAIL_BYTES,
    keep_logs: int = LOG_KEEP,
    sandbox: SandboxPlan | None = None,
) -> AgentTool[BashParams]:
    """Build the ``bash`` tool.

    Args:
        cwd: the folder commands run in (the workspace).
        head_bytes: bytes kept from the start of a long output.
        tail_bytes: bytes kept from the end of a long output.
        kill_grace: seconds between SIGTERM and SIGKILL to the command's processes.
        log_dir: where the log of a long output is written (default
            :func:`default_log_dir`, ``$XCSH_HOME/logs/bash``, read when the
            tool is built). Nothing is written outside it (SPEC §5a). When the
            folder cannot be created the result says so and no log is kept.
        log_head_bytes: bytes a log keeps from the start of the output.
        log_tail_bytes: bytes a log keeps from the end; the middle of a longer
            output is left out and the log says how much. A log is therefore
            at most about ``log_head_bytes + log_tail_bytes``.
        keep_logs: how many logs the folder keeps: starting a log removes the
            oldest beyond this and any older than :data:`LOG_MAX_AGE`.
        sandbox: how commands are confined (:func:`xcsh.sandbox.prepare_sandbox`);
            None runs them unconfined. A plan with a ``refusal`` makes every
            call fail with that reason.

    Returns:
        A tool whose result text is the output followed by ``Exit code: N``.
        ``run`` raises :class:`ToolError` on timeout or cancellation (with the
        output so far), or when bash cannot be started. Cancelling the asyncio
        task kills the command's processes and re-raises ``CancelledError``.
    """
    root = Path(os.path.realpath(cwd))
    policy = _LogPolicy(
        folder=Path(log_dir) if log_dir is not None else default_log_dir(),
        head_bytes=log_head_bytes,
        tail_bytes=log_tail_bytes,
        keep=keep_logs,
        max_age=LOG_MAX_AGE,
    )

    plan = sandbox if sandbox is not None else SandboxPlan()
    supervisor = ProcessSupervisor()

    async def run(params: BashParams, ctx: ToolCallContext) -> AgentToolResult:
        if plan.refusal:
            raise ToolError(f"bash is refused: {plan.refusal}.")
        timeout = params.timeout if params.timeout is not None else DEFAULT_TIMEOUT
        output = _Output(head_bytes, tail_bytes, policy)
        env = {**os.environ, "PAGER": "cat", "GIT_PAGER": "cat"}
        if plan.temp_dir is not None:
            plan.temp_dir.mkdir(parents=True, exist_ok=True)
            env.update(TMPDIR=str(plan.temp_dir), TMP=str(plan.temp_dir), TEMP=str(plan.temp_dir))
        read_fd, write_fd = os.pipe()
        null_fd = os.open(os.devnull, os.O_RDONLY)
        try:
            proc = await supervisor.start(
                ["bash", "-c", params.command],
                cwd=root,
                env=env,
                stdin=null_fd,
                stdout=write_fd,
                stderr=write_fd,
                confine=plan.confinement,
                grace=kill_grace,
            )
        except BaseException as exc:
            os.close(read_fd)
            if isinstance(exc, SupervisorError):
                raise ToolError(f"Cannot start bash in {root}: {exc.strerror or exc}.") from exc
            raise
        finally:
            os.close(write_fd)
            os.close(null_fd)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        pipe = os.fdopen(read_fd, "rb", buffering=0)
        transport: asyncio.BaseTransport | None = None
        outcome: _Outcome | None = None
        # One protected region from the moment bash exists: a cancellation that lands
        # while the pipe is being connected must still kill the whole tree.
        try:
            transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe
            )
            outcome = await _supervise(proc, reader, output, timeout, ctx)
        except asyncio.CancelledError:
            killer = asyncio.ensure_future(proc.kill())
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(killer)
            raise
        finally:
            # Background processes of a command that exited on its own run on (until
            # they end, or xcsh does); anything else is killed when the socket closes.
            proc.close(keep_background=outcome is not None and outcome.how == "exited")
            if transport is not None:
                transport.close()
            else:
                pipe.close()
            output.close()
        result = _result(params.command, timeout, outcome, output)
        if plan.confinement is not None:
            denials = find_denials(output.render(), plan.confinement, root)
            note = denials.note(plan.confinement)
            if note:
                text = "".join(c.text for c in result.content if isinstance(c, TextContent))
                details = {**(result.details or {}), "sandbox_denied": list(denials.paths)}
                return AgentToolResult(content=[TextContent(f"{text}\n{note}")], details=details)
        return result

    return AgentTool(
        name="bash", label="Bash", description=DESCRIPTION, parameters=BashParams, run=run
    )


async def _pump(reader: asyncio.StreamReader, output: _Output, ctx: ToolCallContext) -> None:
    loop = asyncio.get_running_loop()
    last_update = loop.time()
    while chunk := await reader.read(65536):
        output.feed(chunk)
        if ctx.on_update is not None and loop.time() - last_update >= _UPDATE_INTERVAL:
            last_update = loop.time()
            ctx.update(text_result(output.recent(), details={"partial": True}))


async def _supervise(
    proc: SupervisedProcess,
    reader: asyncio.StreamReader,
    output: _Output,
    timeout: float,
    ctx: ToolCallContext,
) -> _Outcome:
    loop = asyncio.get_running_loop()
    started = loop.time()
    pump = asyncio.ensure_future(_pump(reader, output, ctx))
    waiter = asyncio.ensure_future(proc.wait())
    cancelled = asyncio.ensure_future(ctx.cancel.wait())
    try:
        done, _ = await asyncio.wait(
            {waiter, cancelled}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if waiter in done:
            detached = not await _finish(pump, DRAIN_AFTER_EXIT)
            return _Outcome("exited", proc.returncode, detached, loop.time() - started)
        how: Literal["timeout", "cancelled"] = "cancelled" if cancelled in done else "timeout"
        report = await proc.kill()
        await _finish(pump, DRAIN_AFTER_EXIT)
        return _Outcome(how, proc.returncode, False, loop.time() - started, report)
    finally:
        for task in (pump, waiter, cancelled):
            task.cancel()
        await asyncio.gather(pump, waiter, cancelled, return_exceptions=True)


async def _finish(pump: asyncio.Future[None], seconds: float) -> bool:
    """Let the reader reach end of output; False when it did not within ``seconds``."""
    done, _ = await asyncio.wait({pump}, timeout=seconds)
    return bool(done)


def _result(command: str, timeout: float, outcome: _Outcome, output: _Output) -> AgentToolResult:
    body = output.render().rstrip("\n") if output.total else "(no output)"
    details = {
        "command": command,
        "exit_code": outcome.returncode,
        "seconds": round(outcome.seconds, 3),
        "output_bytes": output.total,
        "full_output_path": output.log_path,
        "log_omitted_bytes": output.log_omitted,
    }
    if outcome.how == "timeout":
        raise ToolError(
            f"{body}\n\nCommand timed out after {timeout:g} s; {_killed_text(outcome.killed)} "
            "Run it with a larger timeout, or in the background with its output redirected "
            "to a file.",
            details={**details, "timed_out": True},
        )
    if outcome.how == "cancelled":
        raise ToolError(
            f"{body}\n\nCommand cancelled after {outcome.seconds:.1f} s; "
            f"{_killed_text(outcome.killed)}",
            details={**details, "cancelled": True},
        )
    code = outcome.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        status = f"Killed by {name} (exit code {code})"
    else:
        status = f"Exit code: {code}"
    notes = ""
    if outcome.detached:
        notes = (
            "\n[Background processes still hold the output open; their later output is "
            "not captured. Redirect it to a file to keep it.]"
        )
    return AgentToolResult(content=[TextContent(f"{body}{notes}\n\n{status}")], details=details)


def _killed_text(report: KillReport | None) -> str:
    """What the kill did, as the supervisor reported it."""
    if report is None or report.killed == 0:
        return "it had already ended, and nothing it started was left running."
    if report.left:
        return (
            f"{plural(report.killed, 'process', 'processes')} were signalled, but "
            f"{plural(report.left, 'process', 'processes')} could not be killed."
        )
    if report.killed == 1:
        return "it was killed (it had started no other process)."
    return f"it and every process it started were killed ({report.killed} processes)."
