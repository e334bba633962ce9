"""The process host: a small helper process that starts and supervises commands.

Run as a script (``python -I _host.py FD [--seccomp HEX]``), never imported by
xcsh: it uses the standard library only, plus ``landlockpy`` when a command is
to be confined, so it starts quickly and stays single-threaded (forking it is
safe). In the namespace sandbox ``bwrap`` starts it inside the namespaces;
``--seccomp`` then gives a seccomp program (hex) it applies to itself, and so
to every command (with the network off: no Unix sockets).

xcsh starts one host per :class:`~xcsh.sandbox.supervisor.ProcessSupervisor`
and talks to it over a ``SOCK_SEQPACKET`` control socket (file descriptor
``FD``). Each request is one message carrying four file descriptors: the
command's own stream socket, and its stdin, stdout and stderr. The host forks a
*supervisor* for the request and goes back to waiting. The supervisor:

- marks itself a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every
  descendant of the command that loses its parent (double fork, ``setsid``,
  daemons) becomes the supervisor's child instead of escaping to init;
- reads the request (one JSON line) from the command socket, forks the
  command in a new session, applies the Landlock ruleset in the child when
  asked, and execs it;
- answers ``{"pid": N}`` or ``{"error": TEXT}``, later ``{"exit": CODE}``
  (negative: killed by that signal) when the command itself ends, and
  ``{"done": true}`` once no descendant is left;
- on ``kill`` from xcsh, or end of file (xcsh closed the socket or died,
  even by SIGKILL), ends every descendant: SIGTERM, then SIGKILL after the
  grace period, repeated until none is left; answers
  ``{"killed": N, "left": 0}`` and exits.

The messages are typed values, one frozen dataclass each (:class:`Request` and
the :data:`Reply` union); :func:`encode`, :func:`decode_request` and
:func:`decode_reply` are the protocol's one adapter to and from JSON lines, and
:mod:`xcsh.sandbox.supervisor` uses the same ones on its side.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import selectors
import signal
import socket
import sys
import time
from dataclasses import asdict, dataclass
from typing import BinaryIO

PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
_MAX_FDS = 4


@dataclass(frozen=True)
class Landlock:
    """The Landlock ruleset a command applies before ``exec``.

    Attributes:
        write: paths (folders or files) the command may write; it reads everywhere.
        network: whether it may use the network (False also scopes abstract Unix sockets).
        devices: device files it may read and write.
    """

    write: tuple[str, ...]
    network: bool
    devices: tuple[str, ...]


@dataclass(frozen=True)
class Request:
    """What to run: xcsh's one request per command.

    Attributes:
        argv: the program (looked up on ``PATH`` of ``env``) and its arguments.
        cwd: the working folder.
        env: the command's whole environment.
        grace: seconds between SIGTERM and SIGKILL when the tree is killed.
        confine: the Landlock ruleset to apply, or None.
    """

    argv: tuple[str, ...]
    cwd: str
    env: dict[str, str]
    grace: float
    confine: Landlock | None


@dataclass(frozen=True)
class Started:
    """The command runs as process ``pid``."""

    pid: int


@dataclass(frozen=True)
class Failed:
    """The command could not be started: ``errno`` (0: none) and the reason."""

    errno: int
    error: str


@dataclass(frozen=True)
class Exited:
    """The command itself ended with ``exit`` (negative ``-N``: killed by signal ``N``)."""

    exit: int


@dataclass(frozen=True)
class Done:
    """No descendant of the command is left."""

    done: bool = True


@dataclass(frozen=True)
class Killed:
    """After ``kill``: ``killed`` distinct processes were signalled, ``left`` still alive."""

    killed: int
    left: int


Reply = Started | Failed | Exited | Done | Killed
"""What the supervising process tells xcsh about a command."""


def encode(message: Request | Reply) -> bytes:
    """One message as its JSON line (``Request`` and every ``Reply``)."""
    return json.dumps(asdict(message)).encode() + b"\n"


def decode_request(line: bytes) -> Request:
    """The request a JSON line carries.

    Raises:
        ValueError: the line is not JSON or not a request.
    """
    match json.loads(line):
        case {
            "argv": list(argv),
            "cwd": str(cwd),
            "env": dict(env),
            "grace": int() | float() as grace,
            "confine": confine,
        }:
            return Request(tuple(argv), cwd, env, float(grace), _landlock(confine))
    raise ValueError(f"not a request: {line[:200]!r}")


def _landlock(raw: object) -> Landlock | None:
    match raw:
        case None:
            return None
        case {"write": list(write), "network": bool(network), "devices": list(devices)}:
            return Landlock(tuple(write), network, tuple(devices))
    raise ValueError(f"not a Landlock ruleset: {raw!r}")


def decode_reply(line: bytes) -> Reply:
    """The reply a JSON line carries.

    Raises:
        ValueError: the line is not JSON or not a reply.
    """
    match json.loads(line):
        case {"pid": int(pid)}:
            return Started(pid)
        case {"errno": int(errno), "error": str(error)}:
            return Failed(errno, error)
        case {"exit": int(code)}:
            return Exited(code)
        case {"done": True}:
            return Done()
        case {"killed": int(killed), "left": int(left)}:
            return Killed(killed, left)
    raise ValueError(f"not a reply: {line[:200]!r}")


def main(argv: list[str]) -> int:
    control = socket.socket(fileno=int(argv[1]))
    libc = ctypes.CDLL(None, use_errno=True)
    # No process of the same user may read the host's (and its supervisors')
    # memory or open files through /proc.
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    if len(argv) > 3 and argv[2] == "--seccomp":
        _seccomp(libc, bytes.fromhex(argv[3]))
    # Loaded once here, not in each forked command: the import and the binding's
    # first call (it looks libc up with ldconfig) take tens of milliseconds.
    with contextlib.suppress(ImportError, OSError):
        import landlockpy

        landlockpy.abi_version()
    # Supervisors are reaped by the kernel: the host never waits for them.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is xcsh's to handle
    while True:
        try:
            msg, fds, _flags, _addr = socket.recv_fds(control, 64, _MAX_FDS)
        except OSError:
            return 0
        if not msg:
            return 0
        if len(fds) != _MAX_FDS:
            for fd in fds:
                os.close(fd)
            continue
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                control.close()
                code = _supervise(*fds)
            finally:
                os._exit(code)
        for fd in fds:
            os.close(fd)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _seccomp(libc: ctypes.CDLL, program: bytes) -> None:
    """Apply a seccomp filter (``struct sock_filter[]``) to this process and its children."""
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if (
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
        or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0
    ):
        err = ctypes.get_errno()
        raise OSError(err, f"cannot apply the seccomp filter: {os.strerror(err)}")


def _send(sock: socket.socket, reply: Reply) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(encode(reply))


def _supervise(cmd_fd: int, stdin_fd: int, stdout_fd: int, stderr_fd: int) -> int:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    sock = socket.socket(fileno=cmd_fd)
    reader = sock.makefile("rb")
    line = reader.readline()
    if not line:
        return 0
    request = decode_request(line)
    err_r, err_w = os.pipe2(os.O_CLOEXEC)
    wake_r, wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    child = os.fork()
    if child == 0:
        os.close(err_r)
        _exec_command(request, sock.fileno(), stdin_fd, stdout_fd, stderr_fd, err_w)
    os.close(err_w)
    for fd in (stdin_fd, stdout_fd, stderr_fd):
        os.close(fd)
    failure = b""
    while chunk := os.read(err_r, 65536):
        failure += chunk
    os.close(err_r)
    if failure:
        _reap_all(block=True)
        _send(sock, decode_reply(failure))
        return 0
    _send(sock, Started(child))
    return _watch(sock, reader, child, request.grace, wake_r)


def _exec_command(
    request: Request, cmd_fd: int, stdin_fd: int, stdout_fd: int, stderr_fd: int, err_w: int
) -> None:
    """In the forked child: new session, fds, confinement, exec. Never returns."""
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        os.dup2(stdin_fd, 0)
        os.dup2(stdout_fd, 1)
        os.dup2(stderr_fd, 2)
        for fd in {cmd_fd, stdin_fd, stdout_fd, stderr_fd} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request.cwd)
        if request.confine is not None:
            _restrict(request.confine)
        os.execvpe(request.argv[0], request.argv, request.env)
    except BaseException as exc:  # report anything to the supervisor, then die
        if isinstance(exc, OSError) and exc.strerror:
            report = Failed(exc.errno or 0, exc.strerror)
        else:
            report = Failed(0, repr(exc))
        try:
            os.write(err_w, encode(report))
        finally:
            os._exit(127)


def _restrict(confine: Landlock) -> None:
    """Apply the Landlock ruleset: read everywhere, write only under ``write``."""
    import landlockpy
    from landlockpy import AccessFS, AccessNet, Scope

    abi = landlockpy.abi_version()
    if abi < 1:
        raise OSError(0, "the kernel has no Landlock")
    handled_fs = landlockpy.fs_for_abi(abi)
    no_network = not confine.network
    handled_net = landlockpy.net_for_abi(abi) if no_network else AccessNet.NONE
    scoped = Scope.ABSTRACT_UNIX_SOCKET if no_network else Scope.NONE
    read = AccessFS.READ_FILE | AccessFS.READ_DIR | AccessFS.EXECUTE | AccessFS.IOCTL_DEV
    file_rights = read & ~AccessFS.READ_DIR | AccessFS.WRITE_FILE | AccessFS.TRUNCATE
    with landlockpy.Ruleset(handled_fs=handled_fs, handled_net=handled_net, scoped=scoped) as rs:
        rs.allow_path("/", read)
        for path in confine.write:
            rs.allow_path(path, handled_fs if os.path.isdir(path) else file_rights)
        for path in confine.devices:
            if os.path.exists(path):
                rs.allow_path(path, file_rights)
        rs.restrict()


def _watch(sock: socket.socket, reader: BinaryIO, child: int, grace: float, wake_r: int) -> int:
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    exited = False
    while True:
        for pid, status in _reap_all(block=False):
            if pid == child:
                exited = True
                _send(sock, Exited(os.waitstatus_to_exitcode(status)))
        if exited and not _has_children():
            _send(sock, Done())
            return 0
        for key, _ in sel.select(timeout=1.0):
            if key.fileobj is sock:
                line = reader.readline()
                # "kill" from xcsh, or end of file: xcsh closed the socket or died
                if not line or line.strip() == b"kill":
                    killed = _kill_tree(grace)
                    _send(sock, Killed(killed, len(_descendants())))
                    return 0
            else:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass


def _reap_all(*, block: bool) -> list[tuple[int, int]]:
    reaped: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.append((pid, status))


def _has_children() -> bool:
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _descendants() -> set[int]:
    """Every live descendant of this process, from ``/proc``."""
    me = os.getpid()
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields and fields[0] not in (b"Z", b"X"):
            parents[int(name)] = int(fields[1])
    found: set[int] = set()
    frontier = {me}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def _signal_all(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _kill_tree(grace: float) -> int:
    """End every descendant; returns how many distinct processes were signalled."""
    seen: set[int] = set()
    if grace > 0:
        pids = _descendants()
        seen |= pids
        _signal_all(pids, signal.SIGTERM)
        _signal_all(pids, signal.SIGCONT)  # a stopped process must run to die of SIGTERM
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            _reap_all(block=False)
            if not _descendants():
                break
            time.sleep(0.02)
    while True:
        pids = _descendants()
        seen |= pids
        if not pids:
            _reap_all(block=False)
            if not _has_children():
                return len(seen)
        _signal_all(pids, signal.SIGKILL)
        _reap_all(block=False)
        time.sleep(0.005)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
