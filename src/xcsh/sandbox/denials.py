"""Telling the model when the sandbox, not the file's permissions, refused something.

Landlock makes a refused write fail with EACCES ("Permission denied") or
EPERM ("Operation not permitted"), the same errors as ordinary permissions,
and the kernel does not tell an unprivileged process which rule refused it.
So xcsh reads the command's output: for each path named on a line with one of
those errors it checks whether the path is outside the writable places and
whether the user (xcsh, unconfined) could write it. Such a path was refused by
the sandbox; a line that names no path only gets a hedged note.
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
            named on a "Permission denied" / "Operation not permitted" line.
        unexplained: such a line named no path the sandbox would refuse.
        network: a refusal line looks like a network access while the
            network is off.
    """

    paths: tuple[str, ...] = ()
    unexplained: bool = False
    network: bool = False

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
        parts.append(
            "Work inside the workspace (or $TMPDIR); the user can allow more paths with "
            "sandbox_write in settings.toml."
        )
        return "[sandbox] " + " ".join(parts)


def find_denials(output: str, confinement: Confinement, cwd: Path) -> Denials:
    """Read ``output`` for refusals the sandbox caused (see the module's docstring)."""
    paths: dict[str, None] = {}
    unexplained = network = False
    for line in output.splitlines():
        if not confinement.network and _NO_NETWORK.search(line):
            network = True
            continue
        if not _DENIED.search(line):
            continue
        named = [m.group(1) for m in _PATH.finditer(line)]
        hits = [p for p in named if _refused_by_sandbox(p, confinement, cwd)]
        for path in hits:
            paths[path] = None
        if not hits:
            if not confinement.network and _NETWORK_WORDS.search(line):
                network = True
            else:
                unexplained = True
    return Denials(paths=tuple(paths), unexplained=unexplained, network=network)


def _refused_by_sandbox(text: str, confinement: Confinement, cwd: Path) -> bool:
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
