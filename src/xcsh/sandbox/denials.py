"""Telling the model when the sandbox, not the file's permissions, refused something.

Landlock makes a refused write fail with EACCES ("Permission denied") or
EPERM ("Operation not permitted"), the same errors as ordinary permissions,
and the kernel does not tell an unprivileged process which rule refused it.
So xcsh reads the command's output: for each path named on a line with one of
those errors it checks whether the path is outside the writable places and
whether the user (xcsh, unconfined) could write it. Such a path was refused by
the sandbox; a line that names no path only gets a hedged note.

The only reads the sandbox refuses are those of other processes' entries in
``/proc`` (``/proc/1/environ``, ``/proc/1/root``: Landlock keeps a command from
inspecting a process outside its domain); a refusal there is the sandbox's, a
read unless the line says it was a write (``cannot touch``, ``Read-only file
system``...).
A refusal elsewhere that the line says was a read is not the sandbox's.
Reading the output never fails the command: a path the unconfined process
cannot inspect either is left unexplained.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from xcsh.sandbox.supervisor import Confinement

_DENIED = re.compile(
    r"Permission denied|Operation not permitted|Read-only file system"
    r"|EACCES|EPERM|EROFS|Errno 1\]|Errno 13\]|Errno 30\]"
)
# What the line says was attempted, in the words of coreutils, bash and Python.
_WRITE = re.compile(
    r"Read-only file system|EROFS|Errno 30\]|for writing|cannot (?:touch|create|remove|"
    r"make|move|overwrite|link|unlink|change|set|write)|failed to (?:create|remove|change|"
    r"set|write)|changing (?:permissions|ownership)|setting (?:times|permissions)",
    re.IGNORECASE,
)
_READ = re.compile(
    r"for reading|cannot (?:open|read|access|stat)|failed to (?:open|read|access)"
    r"|^(?:cat|head|tail|less|more|grep|od|xxd|wc|sort|cut|diff|cmp|strings):",
    re.IGNORECASE,
)
_OTHER_PROCESS = re.compile(r"/proc/[0-9]+(?:/|$)")
_PATH = re.compile(r"""(?:^|[\s'"‘`(:=])((?:/|\./|\.\./|~/|\.git\b|\.xcsh\b)[^\s'"’`):,]*)""")
# In a network namespace of its own a command meets no refusal, only an empty network.
_NO_NETWORK = re.compile(
    r"Connection refused|Network is unreachable|Could not resolve|name resolution|"
    r"Name or service not known",
    re.IGNORECASE,
)
_NETWORK_WORDS = re.compile(r"connect|socket|network|Connection|curl|wget|http", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class Denials:
    """What the output says the sandbox refused.

    Args:
        paths: paths outside the writable places that the user could write,
            named on a "Permission denied" / "Operation not permitted" line
            (the writes refused).
        read: other processes' entries in ``/proc`` named on such a line that
            does not say it was a write (the reads refused); one that says so is
            among ``paths``.
        unexplained: such a line named no path the sandbox would refuse.
        network: a refusal line looks like a network access while the
            network is off.
    """

    paths: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    unexplained: bool = False
    network: bool = False

    @property
    def refused(self) -> tuple[str, ...]:
        """Every path the sandbox refused: the writes, then the reads."""
        return (*self.paths, *self.read)

    def note(self, confinement: Confinement) -> str:
        """The text appended to the tool result ("" when there is nothing to say)."""
        places = ", ".join(confinement.write)
        parts: list[str] = []
        if self.paths:
            kept = ", ".join(confinement.read_only)
            parts.append(
                "The sandbox denied writing "
                + ", ".join(self.paths)
                + f": commands may write only in {places}"
                + (f" (not in {kept}, kept read-only)." if kept else ".")
            )
        if self.read:
            parts.append(
                "The sandbox denied reading "
                + ", ".join(self.read)
                + ": a command may not look into processes outside its own (their "
                "environment, memory, open files or root folder)."
            )
        if self.network:
            parts.append("The sandbox denies network access (sandbox_network = false).")
        if self.unexplained and not parts:
            parts.append(
                'A "permission denied" above may come from the sandbox: commands may '
                f"write only in {places}"
                + ("" if confinement.network else " and may not use the network")
                + "."
            )
        if not parts:
            return ""
        if self.read and not (self.paths or self.network):  # reads only: no place is missing
            return "[sandbox] " + " ".join(parts)
        parts.append(
            "Work inside the workspace (or $TMPDIR); the user can allow more paths with "
            "sandbox_write in settings.toml."
        )
        return "[sandbox] " + " ".join(parts)


def find_denials(output: str, confinement: Confinement, cwd: Path) -> Denials:
    """Read ``output`` for refusals the sandbox caused (see the module's docstring)."""
    written: dict[str, None] = {}
    read: dict[str, None] = {}
    unexplained = network = False
    for line in output.splitlines():
        if not confinement.network and _NO_NETWORK.search(line):
            network = True
            continue
        if not _DENIED.search(line):
            continue
        writes = bool(_WRITE.search(line))
        reads = not writes and bool(_READ.search(line.strip()))
        hits = 0
        for path in (m.group(1) for m in _PATH.finditer(line)):
            if _OTHER_PROCESS.match(path):  # reached through a process it may not inspect
                (written if writes else read)[path] = None
            elif not reads and _refused_by_sandbox(path, confinement, cwd):
                written[path] = None
            else:
                continue
            hits += 1
        if not hits:
            if not confinement.network and _NETWORK_WORDS.search(line):
                network = True
            else:
                unexplained = True
    return Denials(paths=tuple(written), read=tuple(read), unexplained=unexplained, network=network)


def _refused_by_sandbox(text: str, confinement: Confinement, cwd: Path) -> bool:
    """Whether a write to ``text`` (a path as the output names it) was the sandbox's refusal.

    False when the path cannot be inspected from here either (``/proc/1/root``, a
    name holding a NUL): nothing then says the sandbox refused it.
    """
    try:
        return _outside_and_writable(text, confinement, cwd)
    except (OSError, ValueError):
        return False


def _outside_and_writable(text: str, confinement: Confinement, cwd: Path) -> bool:
    """Whether ``text`` is outside the writable places (or read-only) yet writable by the user.

    Raises:
        OSError: the path cannot be inspected (a permission, a loop).
        ValueError: the path holds a NUL.
    """
    path = Path(os.path.expanduser(text.rstrip(".;")))
    if not path.is_absolute():
        path = cwd / path
    real = Path(os.path.realpath(path))
    for root in confinement.read_only:
        if real == Path(root) or real.is_relative_to(root):
            return os.access(real if real.exists() else real.parent, os.W_OK)
    for root in (*confinement.write, *confinement.devices):
        if real == Path(root) or real.is_relative_to(root):
            return False
    # The user could write it: then only the sandbox stood in the way.
    probe = real
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)
