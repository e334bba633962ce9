"""A workspace and the changes made to it behind a warm session's back.

Each change is Python source run in its own process with the workspace as the
working folder: by the test, or by the session's own ``bash`` tool. After
each one, a warm search must answer exactly what a cold search answers.

The files are made old (mtimes 60 s back) and a test waits
:data:`SETTLE_SECONDS` before its first search, so that the index trusts
their fingerprints: a change must then be seen through them, not through a
re-read of a file too recently changed to be trusted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

PATTERN = "g($A)"
SETTLE_SECONDS = 2.2
"""More than the index's window for files changed too recently to trust."""

FILES = {
    ".gitignore": "build/\n",
    "pkg/a.py": "def f(x):\n    return g(x)\n",
    "pkg/b.py": "y = g(1)\n",
    "pkg/c.py": "z = h(2)\n",
    "pkg/d.py": "def k():\n    return g(k) + g(2)\n",
    "build/gen.py": "w = g(3)\n",
}

_RESTORE_MTIME = """
import os
def keep_times(path, text):
    info = os.stat(path)
    with open(path, "w") as handle:
        handle.write(text)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
"""

CHANGES: list[tuple[str, str]] = [
    (
        "same size, same mtime",
        _RESTORE_MTIME + "keep_times('pkg/b.py', 'y = h(1)\\n')",
    ),
    (
        "renamed over a file, same size and mtime",
        "import os\n"
        "info = os.stat('pkg/c.py')\n"
        "open('pkg/c.tmp', 'w').write('z = g(2)\\n')\n"
        "os.utime('pkg/c.tmp', ns=(info.st_atime_ns, info.st_mtime_ns))\n"
        "os.replace('pkg/c.tmp', 'pkg/c.py')",
    ),
    (
        "new file in an ignored folder",
        "open('build/new.py', 'w').write('n = g(5)\\n')",
    ),
    (
        ".gitignore edited (same size, same mtime): the folder is no longer ignored",
        _RESTORE_MTIME + "keep_times('.gitignore', 'buil_/\\n')",
    ),
    (
        "new folder with a new file",
        "import os\nos.makedirs('lib/deep', exist_ok=True)\n"
        "open('lib/deep/e.py', 'w').write('e = g(g(6))\\n')",
    ),
    (
        ".gitignore edited: a folder ignored again",
        "open('.gitignore', 'w').write('lib/\\n')",
    ),
    ("deleted file", "import os\nos.remove('pkg/a.py')"),
]


def make_workspace(root: Path) -> Path:
    """Write :data:`FILES` under ``root``, each with an mtime 60 seconds old."""
    old = time.time_ns() - 60 * 1_000_000_000
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, ns=(old, old))
    return root


def run_change(source: str, root: Path) -> None:
    """Run one change's source in its own process, with ``root`` as the working folder."""
    subprocess.run([sys.executable, "-c", source], cwd=root, check=True, timeout=60)
