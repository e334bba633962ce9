"""Inside the namespace sandbox: apply Landlock (and seccomp), run the command, report its exit.

Run as a script by ``bwrap``::

    python -I -S _confine.py ABI SECCOMP STATUS_FD [w PATH | d PATH]... -- ARGV...

never imported by xcsh: ``os``, ``sys`` and ``ctypes`` only, so that it starts
in a few milliseconds (importing a Landlock binding, or even ``json``, would
cost more than the rest of the sandbox). ``ABI`` is the Landlock ABI to use (0:
none), ``SECCOMP`` a hex-encoded seccomp program or ``-``, ``w PATH`` a path
the command may change, ``d PATH`` a device file it may write.

It makes itself a child subreaper, starts ``ARGV``, writes the command's exit
code (negative: killed by that signal) as one line to ``STATUS_FD`` when the
command exits, and then waits for every process left behind (background
processes) before it exits itself: the sandbox lives as long as they do.
"""

from __future__ import annotations

import ctypes
import os
import sys

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on every architecture
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_PR_SET_CHILD_SUBREAPER = 36

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _handled(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: execute .. make_sym
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def restrict(
    libc: ctypes.CDLL, abi: int, seccomp: str, write: list[str], devices: list[str]
) -> None:
    """Apply the seccomp program and the Landlock ruleset to this process."""
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    program = bytes.fromhex(seccomp)
    if program:
        buf = ctypes.create_string_buffer(program)
        prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
        _check(
            libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0), "seccomp"
        )
    if abi < 1:
        return
    handled = _handled(abi)
    attr = ctypes.c_uint64(handled)
    ruleset = _check(libc.syscall(_CREATE_RULESET, ctypes.byref(attr), 8, 0), "landlock ruleset")
    read = (READ_FILE | READ_DIR | EXECUTE | IOCTL_DEV) & handled
    file_rights = (READ_FILE | EXECUTE | IOCTL_DEV | WRITE_FILE | TRUNCATE) & handled

    def allow(path: str, rights: int) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            rule = _PathBeneath(rights, fd)
            _check(
                libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0), path
            )
        finally:
            os.close(fd)

    allow("/", read)
    for path in write:
        allow(path, handled if os.path.isdir(path) else file_rights)
    for path in devices:
        allow(path, file_rights)
    _check(libc.syscall(_RESTRICT_SELF, ruleset, 0), "landlock restrict")
    os.close(ruleset)


def main(argv: list[str]) -> int:
    abi, seccomp, status_fd = int(argv[1]), argv[2].strip("-"), int(argv[3])
    write: list[str] = []
    devices: list[str] = []
    i = 4
    while argv[i] != "--":
        (write if argv[i] == "w" else devices).append(argv[i + 1])
        i += 2
    command = argv[i + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)  # before Landlock may refuse it
    try:
        restrict(libc, abi, seccomp, write, devices)
    except OSError as exc:
        print(f"xcsh sandbox: cannot confine the command: {exc.strerror}", file=sys.stderr)
        return 126
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.set_inheritable(status_fd, False)
    child = os.fork()
    if child == 0:
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            print(f"xcsh sandbox: cannot run {command[0]}: {exc.strerror}", file=sys.stderr)
        os._exit(127)
    # Let go of the output: only the command and what it started hold it now.
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    code = 1
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            try:
                os.write(status_fd, f"{code}\n".encode())
            finally:
                os.close(status_fd)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
