"""What a confined command may do (:class:`Confinement`).

Shared by the supervisor and the namespace sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx")
"""Device files a confined command may open for writing (``> /dev/null`` etc.)."""


@dataclass(frozen=True, kw_only=True)
class Confinement:
    """What a confined command may do: read everywhere, write only under ``write``.

    With ``bwrap`` set the command runs in new user, mount, PID, IPC and UTS
    namespaces (:mod:`xcsh.sandbox.namespace`) and Landlock is applied inside
    them as a second wall; otherwise Landlock alone confines it.

    Args:
        write: absolute real paths (folders or files) the command may change.
        network: False denies the network: a network namespace of its own
            (every socket family, Unix sockets included) with ``bwrap``;
            with Landlock only, TCP bind and connect and abstract Unix sockets.
        devices: device files it may open for writing.
        read_only: paths inside ``write`` kept read-only (``bwrap`` only).
        hidden: folders replaced by an empty one (``bwrap`` only).
        bwrap: the ``bwrap`` executable, or "" for Landlock only.
        abi: the Landlock ABI to use inside the namespaces (0: none).
    """

    write: tuple[str, ...]
    network: bool = True
    devices: tuple[str, ...] = DEVICES
    read_only: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    bwrap: str = ""
    abi: int = 0
