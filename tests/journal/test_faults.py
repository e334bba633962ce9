"""Fault injection: failing writes, crashes, signals, races and a failing journal.

Each test checks what a user relies on: after any fault the tree holds either
every old file or every new one (never a mix, never a temporary file), the
message says truthfully what happened, and nothing is written outside the
workspace.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import SIGNAL_AT_WRITE
from xcsh.core import ToolError
from xcsh.fs import confined
from xcsh.journal import (
    ApplyError,
    Journal,
    UndoRefused,
    recover,
    undo,
    undoable,
)
from xcsh.journal.blobs import BlobStore
from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.base.results import EditPreview
from xcsh.structural.engine import apply_preview

N = 50


def make_tree(root: Path, n: int = N, folder: str = "pkg") -> dict[str, bytes]:
    (root / folder).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / folder / f"m{i:02}.py").write_text(f"print({i})\nprint('x{i}')\n")
    return snapshot(root)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` (hidden ones included) with its bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() or path.is_symlink():
            out[path.relative_to(root).as_posix()] = path.read_bytes() if path.is_file() else b""
    return out


def new_tree(old: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v.replace(b"print(", b"log(") for k, v in old.items()}


def preview(root: Path) -> EditPreview:
    return preview_edit(
        EditSpec(ops=(EditOp(pat="print($$$A)", out="log($$$A)"),)),
        ScopeSpec(root=root, lang="python"),
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def journal(ws: Path, xcsh_home: Path) -> Journal:
    return Journal.for_root(xcsh_home, ws)


def failing_writes(k: int, *, persistent: bool) -> Callable[[int, bytes], None]:
    """A replacement for the temporary file's data write: call k (and later ones) fail."""
    real = confined._write_all
    count = 0
    lock = threading.Lock()

    def write(fd: int, data: bytes) -> None:
        nonlocal count
        with lock:
            count += 1
            fail = count == k or (persistent and count >= k)
        if fail:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fd, data)

    return write


@pytest.mark.parametrize("persistent", [False, True], ids=["once", "persistent"])
def test_kth_write_failing_leaves_the_old_tree_for_every_k(
    ws: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch, persistent: bool
) -> None:
    old = make_tree(ws)
    edit = preview(ws)
    assert len(edit.files) == N
    for k in range(1, N + 1):
        monkeypatch.setattr(confined, "_write_all", failing_writes(k, persistent=persistent))
        with pytest.raises(ApplyError) as info:
            apply_preview(edit, journal=journal)
        assert snapshot(ws) == old, f"k={k}"
        message = str(info.value)
        assert "failed: No space left on device" in message
        assert "restored; nothing changed" in message and not info.value.new_content
        assert journal.incomplete() == [] and undoable(journal) == []
    monkeypatch.undo()
    applied = apply_preview(edit, journal=journal)  # the retry the message allows works
    assert applied.seq is not None and snapshot(ws) == new_tree(old)
    undo(journal)
    assert snapshot(ws) == old


def test_renames_failing_persistently_name_the_new_files_and_recover_finishes(
    ws: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only remount mid-apply: neither the writes nor the roll back can rename."""
    old = make_tree(ws)
    edit = preview(ws)
    real = os.rename
    count = 0
    lock = threading.Lock()

    def rename(*args: Any, **kwargs: Any) -> None:
        nonlocal count
        with lock:
            count += 1
            fail = count >= 10
        if fail:
            raise OSError(errno.EROFS, "Read-only file system")
        real(*args, **kwargs)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(ApplyError) as info:
        apply_preview(edit, journal=journal)
    monkeypatch.undo()
    now = snapshot(ws)
    holding_new = sorted(k.removeprefix("pkg/") for k, v in now.items() if k in old and v != old[k])
    assert len(holding_new) >= 9
    assert sorted(f.removeprefix("pkg/") for f in info.value.new_content) == holding_new
    assert "these files hold the new content" in str(info.value)
    assert "nothing changed" not in str(info.value) and "xcsh recover" in str(info.value)
    assert len(journal.incomplete()) == 1
    [report] = recover(journal)
    assert report.outcome == "rolled back" and len(report.restored) == len(holding_new)
    assert report.unwritten == len(edit.files) - len(holding_new) > 0
    assert report.message.endswith(
        f"). Its {report.unwritten} other files had not been written yet."
    )
    assert snapshot(ws) == old and journal.incomplete() == []


def test_journal_unwritable_before_refuses_nothing_written(
    ws: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_tree(ws, 5)
    edit = preview(ws)

    def full(self: BlobStore, contents: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(BlobStore, "put_many", full)
    with pytest.raises(ApplyError) as info:
        apply_preview(edit, journal=journal)
    assert "Cannot record this change in the undo journal" in str(info.value)
    assert "Nothing was written" in str(info.value)
    assert snapshot(ws) == old
    monkeypatch.undo()
    apply_preview(edit, journal=journal)
    assert snapshot(ws) == new_tree(old)


def test_journal_unwritable_after_is_success_with_a_warning(
    ws: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_tree(ws, 5)
    edit = preview(ws)

    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Journal, "settle", full)
    applied = apply_preview(edit, journal=journal)
    assert snapshot(ws) == new_tree(old)
    assert applied.warning is not None and "the change is applied" in applied.warning
    assert "No space left on device" in applied.warning
    monkeypatch.undo()
    [report] = recover(journal)  # the next command completes the record
    assert report.outcome == "completed"
    assert snapshot(ws) == new_tree(old)
    undo(journal)
    assert snapshot(ws) == old


def test_a_save_during_the_apply_is_refused_not_overwritten(
    ws: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = make_tree(ws, 4)
    edit = preview(ws)
    real = confined._copy_metadata
    calls = 0

    def save_then_copy(fd: int, dirfd: int, name: str, *rest: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:  # the user's editor saves this file while the apply runs
            (ws / "pkg" / name).write_text("saved by the user\n")
        real(fd, dirfd, name, *rest)

    monkeypatch.setattr(confined, "_copy_metadata", save_then_copy)
    with pytest.raises(ApplyError, match="changed while the change was being applied"):
        apply_preview(edit, journal=journal)
    now = snapshot(ws)
    saved = [k for k, v in now.items() if v == b"saved by the user\n"]
    assert len(saved) == 1
    assert {k: v for k, v in now.items() if k not in saved} == {
        k: v for k, v in old.items() if k not in saved
    }


def test_previewed_file_swapped_for_a_symlink_to_an_identical_file_is_refused(
    ws: Path, journal: Journal, tmp_path: Path
) -> None:
    make_tree(ws, 2)
    edit = preview(ws)
    (ws / "docs").mkdir()
    twin = ws / "docs" / "twin.txt"  # inside the workspace, never previewed
    twin.write_bytes((ws / "pkg/m00.py").read_bytes())
    (ws / "pkg/m00.py").unlink()
    (ws / "pkg/m00.py").symlink_to(twin)
    with pytest.raises(ApplyError, match=r"changed since the preview: pkg/m00\.py"):
        apply_preview(edit, journal=journal)
    assert twin.read_text() == "print(0)\nprint('x0')\n"


def swapper(ws: Path, outside: Path, stop: threading.Event) -> threading.Thread:
    """A thread that keeps swapping ``ws/pkg`` for a symlink to ``outside/pkg`` and back."""

    def run() -> None:
        while not stop.is_set():
            try:
                os.rename(ws / "pkg", ws / "pkg-real")
                os.symlink(outside / "pkg", ws / "pkg")
                os.unlink(ws / "pkg")
                os.rename(ws / "pkg-real", ws / "pkg")
            except OSError:
                pass

    return threading.Thread(target=run, daemon=True)


def test_folder_swapped_for_a_symlink_during_applies_writes_nothing_outside(
    ws: Path, journal: Journal, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, 10)  # the same content: only confinement can tell them apart
    outside_before = snapshot(outside)
    for _ in range(15):
        old = make_tree(ws, 10)
        edit = preview(ws)
        stop = threading.Event()
        thread = swapper(ws, outside, stop)
        thread.start()
        try:
            apply_preview(edit, journal=journal)
        except ToolError:  # refused: outside the workspace, or a folder on the way is a link
            pass
        finally:
            stop.set()
            thread.join()
        if not (ws / "pkg").is_dir() or (ws / "pkg").is_symlink():
            (ws / "pkg").unlink(missing_ok=True)
            os.rename(ws / "pkg-real", ws / "pkg")
        recover(journal)
        assert snapshot(outside) == outside_before
        now = snapshot(ws)
        assert now in (old, new_tree(old))  # all or nothing, no temporary names
        for path in (ws / "pkg").iterdir():
            path.unlink()


def _swap_folder_at_settle(
    monkeypatch: pytest.MonkeyPatch, ws: Path, outside: Path, *, back_after: float | None
) -> None:
    """When the apply syncs its folders (just before it drops the kept old names), swap
    ``ws/pkg`` for a symlink to ``outside/pkg``; swap it back after ``back_after`` seconds
    (``None``: leave it swapped)."""
    real = confined.RootDir.sync_folder
    done: list[bool] = []

    def sync_then_swap(self: confined.RootDir, rel_folder: str) -> None:
        real(self, rel_folder)
        if done:
            return
        done.append(True)
        os.rename(ws / "pkg", ws / "pkg-real")
        os.symlink(outside / "pkg", ws / "pkg")
        if back_after is not None:

            def back() -> None:
                os.unlink(ws / "pkg")
                os.rename(ws / "pkg-real", ws / "pkg")

            threading.Timer(back_after, back).start()

    monkeypatch.setattr(confined.RootDir, "sync_folder", sync_then_swap)


def test_folder_briefly_a_symlink_as_the_apply_ends_leaves_no_kept_old_names(
    ws: Path, journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, 3)
    outside_before = snapshot(outside)
    old = make_tree(ws, 3)
    edit = preview(ws)
    _swap_folder_at_settle(monkeypatch, ws, outside, back_after=0.004)
    applied = apply_preview(edit, journal=journal)
    assert applied.warning is None
    assert snapshot(outside) == outside_before
    assert snapshot(ws) == new_tree(old)  # no .<name>.xcsh-<seq>.orig left behind


def test_folder_kept_as_a_symlink_as_the_apply_ends_names_the_old_copies_left(
    ws: Path, journal: Journal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    make_tree(outside, 2)
    outside_before = snapshot(outside)
    old = make_tree(ws, 2)
    edit = preview(ws)
    _swap_folder_at_settle(monkeypatch, ws, outside, back_after=None)
    applied = apply_preview(edit, journal=journal)
    assert snapshot(outside) == outside_before
    (ws / "pkg").unlink()
    os.rename(ws / "pkg-real", ws / "pkg")
    now = snapshot(ws)
    kept = sorted(k for k in now if k.endswith(".orig"))
    assert len(kept) == 2
    assert applied.warning is not None
    assert "the change is applied, but the old copies" in applied.warning
    assert all(name in applied.warning for name in kept)
    assert {k: v for k, v in now.items() if k not in kept} == new_tree(old)


async def test_write_tool_racing_a_symlink_swap_writes_nothing_outside(
    ws: Path, journal: Journal, tmp_path: Path
) -> None:
    from xcsh.tools.coding import create_write_tool

    outside = tmp_path / "outside"
    make_tree(outside, 1)
    outside_before = snapshot(outside)
    make_tree(ws, 1)
    tool = create_write_tool(ws, journal=journal)
    stop = threading.Event()
    thread = swapper(ws, outside, stop)
    thread.start()
    try:
        for i in range(30):
            with contextlib.suppress(Exception):  # refused: outside, or changed meanwhile
                await tool.execute(f"w{i}", {"path": "pkg/m00.py", "content": f"v{i}\n"})
    finally:
        stop.set()
        thread.join()
    assert snapshot(outside) == outside_before


def test_undo_through_a_symlinked_folder_or_file_is_refused(
    ws: Path, journal: Journal, tmp_path: Path
) -> None:
    old = make_tree(ws, 2)
    apply_preview(preview(ws), journal=journal)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.rename(ws / "pkg", outside / "pkg")  # the applied files now live outside...
    (ws / "pkg").symlink_to(outside / "pkg")  # ...reached through a link
    with pytest.raises(UndoRefused):
        undo(journal)
    assert snapshot(outside) == {
        f"pkg/{k.removeprefix('pkg/')}": v for k, v in new_tree(old).items()
    }
    (ws / "pkg").unlink()
    os.rename(outside / "pkg", ws / "pkg")
    target = outside / "m00.py"
    target.write_bytes((ws / "pkg/m00.py").read_bytes())
    (ws / "pkg/m00.py").unlink()
    (ws / "pkg/m00.py").symlink_to(target)
    with pytest.raises(UndoRefused, match=r"pkg/m00\.py"):
        undo(journal)
    assert target.read_bytes() == new_tree(old)["pkg/m00.py"]


CRASH_SCRIPT = (
    SIGNAL_AT_WRITE
    + """
import os, sys
from pathlib import Path
from xcsh.core import ToolError
from xcsh.journal import Journal
from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.engine import apply_preview

root, home, sig, k = Path.cwd(), Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
journal = Journal.for_root(home, root)
edit = preview_edit(
    EditSpec(ops=(EditOp(pat="print($$$A)", out="log($$$A)"),)), ScopeSpec(root=root, lang="python")
)
_signal_at_write(sig, k)
if k == 0:  # die at the commit point: every file written, no outcome record yet
    real_settle = Journal.settle
    def settle(self, *a, **kw):
        os.kill(os.getpid(), sig)
        return real_settle(self, *a, **kw)
    Journal.settle = settle
apply_preview(edit, journal=journal)
print("finished")
"""
)


def crash(ws: Path, home: Path, sig: int, k: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT, str(home), str(sig), str(k)],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signal_during_the_commit_window_is_held_until_the_end(
    ws: Path, journal: Journal, xcsh_home: Path, sig: int
) -> None:
    old = make_tree(ws, 20)
    run = crash(ws, xcsh_home, sig, 7)
    assert run.returncode == -sig, run.stderr  # then the process ends by that signal
    assert "finished" not in run.stdout
    assert snapshot(ws) == new_tree(old)  # ...after the apply completed
    assert [s.state for s in journal.summaries()] == ["committed"]


@pytest.mark.parametrize("k", [0, 1, 13], ids=["at-commit", "first-write", "mid-apply"])
def test_sigkill_then_any_command_recovers_the_tree(
    ws: Path, journal: Journal, xcsh_home: Path, k: int
) -> None:
    old = make_tree(ws, 20)
    run = crash(ws, xcsh_home, signal.SIGKILL, k)
    assert run.returncode == -signal.SIGKILL
    assert len(journal.incomplete()) == 1
    if k != 13:  # in-process here; the mid-apply case runs a real command below
        [report] = recover(journal)
        assert report.outcome == ("completed" if k == 0 else "rolled back")
        assert journal.incomplete() == []
        assert snapshot(ws) == (new_tree(old) if k == 0 else old)
        return
    listed = subprocess.run(
        [sys.executable, "-m", "xcsh", "undo", "--list"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert "Recovered an interrupted apply" in listed.stderr
    assert snapshot(ws) == old and "rolled back" in listed.stdout
    assert journal.incomplete() == []


def test_a_json_preview_settles_an_interrupted_apply_before_reading_the_files(
    ws: Path, journal: Journal, xcsh_home: Path
) -> None:
    # `ast-edit --json` applies nothing and skips the journal when nothing awaits settling;
    # an interrupted apply is still settled first, so the preview reads the restored files
    old = make_tree(ws, 60)
    run = crash(ws, xcsh_home, signal.SIGKILL, 45)
    assert run.returncode == -signal.SIGKILL
    assert snapshot(ws) != old
    args = ["ast-edit", "-p", "print($$$A)", "-r", "show($$$A)", "-l", "python", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "xcsh", *args],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert done.returncode == 0, done.stderr
    assert "Recovered an interrupted apply" in done.stderr
    assert snapshot(ws) == old and journal.incomplete() == []
    replaced = {json.loads(line)["file"] for line in done.stdout.splitlines()}
    assert replaced == {name for name, data in old.items() if b"print(" in data}


def test_dry_run_and_searches_leave_an_interrupted_apply_for_recover(
    ws: Path, journal: Journal, xcsh_home: Path
) -> None:
    old = make_tree(ws, 60)
    run = crash(ws, xcsh_home, signal.SIGKILL, 45)
    assert run.returncode == -signal.SIGKILL
    half = snapshot(ws)
    assert half != old
    env = {**os.environ, "XCSH_HOME": str(xcsh_home)}

    def xcsh(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "xcsh", *args],
            cwd=ws,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )

    for args in (
        ("ast-edit", "-p", "print($A)", "-r", "show($A)", "--dry-run"),
        ("ast-grep", "-p", "log($A)"),
    ):
        done = xcsh(*args)
        assert "was interrupted" in done.stderr and "run `xcsh recover`" in done.stderr, args
        assert "Recovered" not in done.stderr
        assert snapshot(ws) == half, args  # nothing settled, nothing written
        assert len(journal.incomplete()) == 1
    recovered = xcsh("recover")
    assert recovered.returncode == 0, recovered.stderr
    assert snapshot(ws) == old
    said = recovered.stdout + recovered.stderr
    assert " more)" in said and said.count("pkg/m") == 20, said  # the file list is capped


def test_recover_all_finds_the_workspace_from_its_journal(
    ws: Path, journal: Journal, xcsh_home: Path, tmp_path: Path
) -> None:
    old = make_tree(ws, 60)
    run = crash(ws, xcsh_home, signal.SIGKILL, 45)
    assert run.returncode == -signal.SIGKILL and snapshot(ws) != old
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    recovered = subprocess.run(
        [sys.executable, "-m", "xcsh", "recover", "--all"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XCSH_HOME": str(xcsh_home)},
    )
    assert recovered.returncode == 0, recovered.stderr
    assert snapshot(ws) == old
    assert recovered.stdout.startswith(f"{journal.root}: "), recovered.stdout
