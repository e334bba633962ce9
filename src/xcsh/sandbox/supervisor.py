"""Start commands whose whole process tree can be ended, optionally confined.

One home for running child processes of tools: the ``bash`` tool and
``CustomToolAPI.exec`` both start commands through a :class:`ProcessSupervisor`.
The supervisor keeps one small helper process (the *host*, ``_host.py``) that
forks a supervising process per command; that process is a child subreaper,
so every descendant of the command (double forks and ``setsid`` included)
stays its child and can be killed, and it kills them all when xcsh asks, when
xcsh closes the command's socket, or when xcsh dies (even by SIGKILL: the
kernel closes the socket). Confinement (:class:`Confinement`) is a Landlock
ruleset the host applies in the command's process just before ``exec``; for
the namespace sandbox the host itself runs inside namespaces ``bwrap`` made
(:mod:`xcsh.sandbox.namespace`).

This is the one home for "run a command in the sandbox": ``start(argv, cwd=,
env=, stdin=, stdout=, stderr=, confine=Confinement(write=..., read_only=...,
hidden=..., network=..., bwrap=...), grace=)``, then ``wait()`` / ``kill()``
(the whole process tree ends) on the returned :class:`SupervisedProcess`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from xcsh.sandbox._host import (
    Done,
    Exited,
    Failed,
    Killed,
    Landlock,
    Request,
    Started,
    decode_reply,
    encode,
)
from xcsh.sandbox.confinement import DEVICES, Confinement
from xcsh.sandbox.namespace import deny_unix_sockets_filter, namespace_argv

_HOST = Path(__file__).with_name("_host.py")


class SupervisorError(OSError):
    """The command could not be started (the message says why)."""


def _host_setup(
    confine: Confinement | None,
) -> tuple[tuple[str, ...], tuple[str, ...], Landlock | None]:
    """How the host runs a command confined by ``confine``.

    Returns:
        The host's command prefix (``bwrap``), its extra arguments (a seccomp
        filter) and the Landlock ruleset each command applies (``None``: none).
    """
    if confine is None:
        return (), (), None
    landlock = Landlock(tuple(confine.write), confine.network, tuple(confine.devices))
    if not confine.bwrap:
        return (), (), landlock
    # The host runs inside the namespaces and applies Landlock (a domain
    # forbids the mounts bwrap makes, so it comes after) in each command.
    prefix = tuple(namespace_argv(confine))
    extra = () if confine.network else ("--seccomp", deny_unix_sockets_filter().hex())
    # the network namespace, not Landlock, keeps the network out
    return prefix, extra, None if confine.abi < 1 else replace(landlock, network=True)


__all__ = [
    "DEVICES",
    "Confinement",
    "KillReport",
    "ProcessSupervisor",
    "SupervisedProcess",
    "SupervisorError",
]


@dataclass(frozen=True)
class KillReport:
    """How a kill went: ``killed`` distinct processes were signalled, ``left`` still alive."""

    killed: int
    left: int


class SupervisedProcess:
    """A running command started by :meth:`ProcessSupervisor.start`.

    Attributes:
        pid: the command's process id (also its session and group id).
        returncode: its exit code once :meth:`wait` returned (negative ``-N``:
            killed by signal ``N``), else None.
    """

    def __init__(
        self,
        pid: int,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        keep_fd: int,
        owner: ProcessSupervisor,
    ) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._writer = writer
        self._keep_fd = keep_fd
        self._owner = owner
        loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = loop.create_future()
        self._killed: asyncio.Future[KillReport] = loop.create_future()
        self._done = asyncio.Event()
        self._closed = False
        self._task = asyncio.ensure_future(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                match decode_reply(line):
                    case Exited(code) if not self._exited.done():
                        self.returncode = code
                        self._exited.set_result(code)
                    case Done():
                        self._done.set()
                    case Killed(killed, left) if not self._killed.done():
                        self._killed.set_result(KillReport(killed, left))
        except (OSError, ValueError):
            pass
        # The supervisor is gone: whatever it did not report cannot be known any more.
        if not self._exited.done():
            self._exited.set_result(-9)
            self.returncode = -9
        if not self._killed.done():
            self._killed.set_result(KillReport(0, 0))
        self._done.set()

    async def wait(self) -> int:
        """Wait until the command itself (not its background children) exits.

        Returns:
            Its exit code, negative ``-N`` when signal ``N`` killed it.
        """
        return await asyncio.shield(self._exited)

    @property
    def finished(self) -> bool:
        """True once the command and every descendant have ended."""
        return self._done.is_set()

    async def settled(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every descendant to end; True when none is left."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._done.wait(), timeout)
        return self._done.is_set()

    async def kill(self) -> KillReport:
        """End the command and every descendant (SIGTERM, SIGKILL after the grace).

        Returns:
            How many processes were signalled and how many are left (0 unless
            the kernel refused a signal).
        """
        if self._done.is_set() and not self._killed.done():
            return KillReport(0, 0)
        if not self._killed.done():
            with contextlib.suppress(OSError):
                self._writer.write(b"kill\n")
                await self._writer.drain()
        return await asyncio.shield(self._killed)

    def close(self, *, keep_background: bool = False) -> None:
        """Stop watching.

        Unless ``keep_background``, what is still running is killed now; otherwise
        it runs on until it ends or the supervisor is closed.
        """
        if self._closed:
            return
        self._closed = True
        self._task.cancel()
        self._writer.close()
        if keep_background and not self._done.is_set():
            self._owner._linger(self._keep_fd)
        else:
            os.close(self._keep_fd)


class _Host:
    """One process host, started with ``prefix`` in front of it.

    ``prefix`` is a ``bwrap`` command line for the namespace sandbox, or nothing.
    """

    def __init__(self, prefix: Sequence[str], extra: Sequence[str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [*prefix, sys.executable, "-I", str(_HOST), str(theirs.fileno()), *extra],
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                # Each request carries its command's environment; the host keeps
                # none of xcsh's (API keys included).
                env={"PATH": os.environ.get("PATH", os.defpath)},
                close_fds=True,
                # Its own session: a Ctrl-C on the terminal is xcsh's to handle, and
                # must not kill the host (or the supervisors it forks) mid-request.
                start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            raise SupervisorError(exc.errno, f"cannot start the process host: {exc}") from exc
        finally:
            theirs.close()
        self.control = ours

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        self.control.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)


class ProcessSupervisor:
    """Starts supervised commands through helper processes, each created on first use.

    Unconfined and Landlock-confined commands share one host. Commands in the
    namespace sandbox go through a host started inside it by ``bwrap`` (one per
    distinct sandbox, kept while xcsh runs): starting a command there costs a
    fork, not a new sandbox. When the sandbox's shape changes (a ``.git`` that
    appeared and must be read-only), later commands get a new one; commands
    still running in the old one are left alone.

    Thread-safe. :meth:`close` (or the end of xcsh) kills every command still
    running, background processes included.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hosts: dict[tuple[str, ...], _Host] = {}
        self._lingering: list[int] = []

    def _ensure_host(self, prefix: tuple[str, ...], extra: tuple[str, ...]) -> socket.socket:
        host = self._hosts.get(prefix + extra)
        if host is not None and host.alive:
            return host.control
        if host is not None:
            host.stop()
        host = self._hosts[prefix + extra] = _Host(prefix, extra)
        return host.control

    def _stop_host(self, prefix: tuple[str, ...], extra: tuple[str, ...]) -> None:
        host = self._hosts.pop(prefix + extra, None)
        if host is not None:
            host.stop()

    def _linger(self, fd: int) -> None:
        with self._lock:
            self._lingering.append(fd)

    def _prune(self) -> None:
        """Forget lingering commands whose supervisors have finished."""
        if not self._lingering:
            return
        readable, _, _ = select.select(self._lingering, [], [], 0)
        for fd in readable:
            try:
                while os.read(fd, 65536):
                    pass
            except BlockingIOError:
                continue
            except OSError:
                pass
            self._lingering.remove(fd)
            os.close(fd)

    async def start(
        self,
        argv: Sequence[str],
        *,
        cwd: str | Path,
        env: Mapping[str, str],
        stdin: int,
        stdout: int,
        stderr: int,
        confine: Confinement | None = None,
        grace: float = 0.0,
    ) -> SupervisedProcess:
        """Start ``argv`` in a new session under a supervisor.

        Args:
            argv: the program (looked up on ``PATH`` of ``env``) and its arguments.
            cwd: the working folder.
            env: the whole environment of the command.
            stdin: the file descriptor the command gets as 0 (the caller keeps
                and closes its own copy).
            stdout: the one it gets as 1.
            stderr: the one it gets as 2.
            confine: a Landlock ruleset to apply, or None to run unconfined.
            grace: seconds between SIGTERM and SIGKILL when the tree is killed
                (0: SIGKILL at once).

        Raises:
            SupervisorError: the host cannot be started, or the command cannot
                be started (not found, ``cwd`` missing, confinement refused by
                the kernel); the message says why.
        """
        prefix, extra, landlock = _host_setup(confine)
        request = Request(tuple(argv), str(cwd), dict(env), grace, landlock)
        mine = self._hand_over((stdin, stdout, stderr), prefix, extra)
        keep = os.dup(mine.fileno())
        os.set_blocking(keep, False)
        reader, writer = await asyncio.open_unix_connection(sock=mine)
        writer.write(encode(request))
        try:
            await writer.drain()
            line = await reader.readline()
        except BaseException as exc:
            writer.close()
            os.close(keep)
            if isinstance(exc, OSError):
                raise SupervisorError(exc.errno, f"the process host went away: {exc}") from exc
            raise
        answer = _answer(line)
        if not isinstance(answer, Started):
            writer.close()
            os.close(keep)
            raise SupervisorError(answer.errno, answer.error)
        return SupervisedProcess(answer.pid, reader, writer, keep, self)

    def _hand_over(
        self, fds: tuple[int, int, int], prefix: tuple[str, ...], extra: tuple[str, ...]
    ) -> socket.socket:
        """Send the host one end of a new socket pair and the command's ``fds``.

        The host is started with ``prefix`` and ``extra`` when needed; ``fds`` are
        the command's stdin, stdout and stderr.

        Returns:
            The other end of the pair.

        Raises:
            SupervisorError: the host cannot be reached, even after a restart.
        """
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._lock:
                self._prune()
                for attempt in (1, 2):
                    control = self._ensure_host(prefix, extra)
                    try:
                        socket.send_fds(control, [b"run"], [theirs.fileno(), *fds])
                        break
                    except OSError:
                        self._stop_host(prefix, extra)
                        if attempt == 2:
                            raise
        except OSError as exc:
            mine.close()
            raise SupervisorError(exc.errno, f"cannot reach the process host: {exc}") from exc
        finally:
            theirs.close()
        return mine

    def close(self) -> None:
        """Kill every command still running (background ones included) and stop the host."""
        with self._lock:
            for fd in self._lingering:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._lingering.clear()
            for host in self._hosts.values():
                host.stop()
            self._hosts.clear()


def _answer(line: bytes) -> Started | Failed:
    """The host's answer to a request: the command started, or why not."""
    if not line:
        return Failed(0, "the host went away")
    answer = decode_reply(line)
    return answer if isinstance(answer, Started | Failed) else Failed(0, "failed")


PR_SET_DUMPABLE = 4


def make_undumpable() -> bool:
    """Make this process non-dumpable (``PR_SET_DUMPABLE`` 0), on Linux.

    No other process of the same user (a command xcsh runs included) can then
    read its memory, environment or open files through ``/proc``, or attach a
    debugger. Programs xcsh starts are dumpable again after their ``exec``.

    Returns:
        True when the kernel accepted it (False elsewhere than Linux).
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return int(ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
