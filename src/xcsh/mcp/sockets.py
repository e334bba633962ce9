"""The listening sockets of ``xcsh mcp --http``: loopback TCP, or a private Unix socket."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat

from xcsh.core import UsageError


def unix_listener(path: str) -> socket.socket:
    """A listening Unix socket at ``path`` that only this user may connect to (mode 0600).

    The mode is set before ``listen``, so there is no moment when others could connect.
    Only a stale socket (one nobody listens on any more) is replaced; any other file
    at ``path`` is left alone.

    Raises:
        UsageError: ``path`` is a file that is not a socket, a socket another server
            still listens on, or cannot be bound (its folder is missing, for one).
    """
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise UsageError(
                f"--socket {path!r} exists and is not a socket; it was left as it is.",
                hint="pick a path that does not exist yet",
            )
        if socket_in_use(path):
            raise UsageError(
                f"--socket {path!r}: another server is listening on it.",
                hint="stop that server, or pick another path",
            )
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, 0o600)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise UsageError(
            f"cannot listen on --socket {path!r}: {exc.strerror or exc}",
            hint="pick a path in an existing folder you can write",
        ) from exc
    return sock


def file_id(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of ``path`` itself, ``None`` when it is gone."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def socket_in_use(path: str) -> bool:
    """True when a server accepts connections on the Unix socket ``path``."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def bind_loopback(port: int) -> socket.socket:
    """A listening TCP socket on ``127.0.0.1:port`` (``0`` picks a free port).

    Raises:
        UsageError: the port is in use (the message says to try ``--port 0``),
            or it cannot be bound for another reason (named by the system).
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} is in use (try --port 0)") from exc
        raise UsageError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}",
            hint="pick another port, or --port 0 for a free one",
        ) from exc
    return sock
