"""The real-use layer: the installed ``xcsh`` on a real-size tree, as a user runs it.

One copy of the standard library (the tree ``make demo`` makes: well over
1,000 files and 10 MB) is made per test session. Scenarios search and edit
one of its packages chosen so that the scan runs on the process pool (at
least ``PARALLEL_MIN_FILES`` files and ``PARALLEL_MIN_BYTES`` bytes), while
the working folder is the whole tree; an edited package is copied back from
the standard library after each scenario.

``XCSH_E2E_REPEAT`` (default 5) is how many times each scenario runs (runs
of ``xcsh -p``, MCP servers or clients, searches in one terminal session);
``XCSH_E2E_CALLS`` (default 1) the searches per MCP client; ``XCSH_E2E_ROUNDS``
(default 1) repeats ``-p`` runs and terminal sessions as a whole.
``make stress-e2e`` runs each front end 20 times 20.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from e2e_run import Tree
from stdlib_copy import copy_stdlib

from xcsh.structural.engine import PARALLEL_MIN_BYTES, PARALLEL_MIN_FILES


def _package_sizes(root: Path) -> list[tuple[int, int, str]]:
    sizes = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        files = list(folder.rglob("*.py"))
        sizes.append((sum(f.stat().st_size for f in files), len(files), folder.name))
    return sizes


@pytest.fixture(scope="session")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    root = tmp_path_factory.mktemp("e2e") / "stdlib"
    copied = copy_stdlib(root)
    assert copied.files >= 1000 and copied.bytes >= 10 * 1024 * 1024, copied
    # The smallest package that still runs on the pool, and holds the reproduction's calls.
    for size, count, name in sorted(_package_sizes(root)):
        pooled = count >= PARALLEL_MIN_FILES and size >= PARALLEL_MIN_BYTES
        if pooled and "isinstance(" in Tree(root, name, count).scope_text():
            return Tree(root=root, scope=name, files=count)
    raise AssertionError("no standard-library package is large enough for the scan pool")
