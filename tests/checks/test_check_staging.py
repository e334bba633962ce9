"""The staged tree a check runs in: what it sees, and what is left after it.

Over an overlay and over a copy alike, a staged file lands where writing it in
the workspace would put it (through a symlinked folder, over a symlinked
file, keeping an executable's mode), the workspace keeps its bytes and
modification times, and nothing is left after the check; a staged path that
leads out of the workspace is refused before anything runs.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
from check_support import snapshot

from xcsh.checks import staged_tree
from xcsh.core import ToolError
from xcsh.sandbox import ProcessSupervisor
from xcsh.sandbox.overlay import OverlaySupport, probe_overlay
from xcsh.sandbox.run import run_to_end

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="staging needs Linux")

SEES = (
    "cat pkg/mod.py alias.py new/deep/x.py; "
    "test -L alias.py && echo alias-is-a-link; "
    "test -x run.sh && echo run-is-executable; "
    "cat real.py; echo tmp > $TMPDIR/t && echo tmp-written; "
    "echo out > pkg/out.txt && echo wrote-in-tree; "
    "echo stdin has $(wc -c) bytes"  # the archive of an overlay is not the check's
)
STAGED = {
    "link/mod.py": b"staged mod\n",  # through the symlinked folder: pkg/mod.py
    "alias.py": b"staged alias\n",  # replaces the symlink to real.py
    "run.sh": b"#!/bin/sh\necho staged\n",
    "new/deep/x.py": b"staged new\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "mod.py").write_text("original mod\n")
    (ws / "real.py").write_text("original real\n")
    (ws / "alias.py").symlink_to("real.py")
    (ws / "link").symlink_to("pkg")
    (ws / "run.sh").write_text("#!/bin/sh\necho original\n")
    (ws / "run.sh").chmod(0o755)
    return Path(os.path.realpath(ws))


async def _run_staged(
    workspace: Path, home: Path, support: OverlaySupport | None, command: str
) -> tuple[str, Path]:
    supervisor = ProcessSupervisor()
    out: list[bytes] = []
    try:
        with staged_tree(
            workspace, STAGED, scratch_parent=home / "tmp", overlay=support, network=False
        ) as staged:
            await run_to_end(
                supervisor,
                staged.argv(command),
                cwd=staged.root,
                env={**os.environ, "TMPDIR": str(staged.temp)},
                timeout=60,
                on_output=out.append,
                confine=staged.confine,
                stdin=staged.stdin,
            )
            temp = staged.temp
    finally:
        supervisor.close()
    return b"".join(out).decode(), temp


@pytest.mark.parametrize("staging", ["overlay", "copy"])
def test_the_check_sees_staged_files_where_writing_them_would_put_them(
    workspace: Path, xcsh_home: Path, staging: str
) -> None:
    support = probe_overlay(xcsh_home / "tmp" / "probe") if staging == "overlay" else None
    if support is not None and not support.available:
        pytest.skip(f"no overlay here: {support.reason}")
    before = snapshot(workspace)
    seen, temp = asyncio.run(_run_staged(workspace, xcsh_home, support, SEES))
    assert seen.splitlines() == [
        "staged mod",
        "staged alias",
        "staged new",
        "run-is-executable",
        "original real",
        "tmp-written",
        "wrote-in-tree",
        "stdin has 0 bytes",
    ]
    assert snapshot(workspace) == before
    assert list((xcsh_home / "tmp").glob("check-*")) == []
    if staging == "overlay":  # TMPDIR was the namespace's own: nothing reached the folder
        assert temp.is_dir() and list(temp.iterdir()) == []


@pytest.mark.parametrize("staging", ["overlay", "copy"])
def test_a_staged_path_through_a_symlink_out_of_the_workspace_is_refused(
    workspace: Path, tmp_path: Path, xcsh_home: Path, staging: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "escape").symlink_to(outside)
    support = probe_overlay(xcsh_home / "tmp" / "probe") if staging == "overlay" else None
    staging_it = staged_tree(
        workspace,
        {"escape/x.py": b"x"},
        scratch_parent=xcsh_home / "tmp",
        overlay=support,
        network=False,
    )
    with pytest.raises(ToolError) as refused, staging_it:
        pass
    assert "'escape/x.py': its folder leads out of the workspace" in str(refused.value)
    assert list(outside.iterdir()) == []
    assert list((xcsh_home / "tmp").glob("check-*")) == []
