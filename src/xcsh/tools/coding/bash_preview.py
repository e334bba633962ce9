"""Any command as a preview: run it on a staged overlay of the workspace, read what it changed.

:func:`preview_command` runs a command line with the workspace mounted as the
lower layer of an overlay (:func:`~xcsh.sandbox.overlay.overlay_command`) whose
upper layer is a folder of ours (``$XCSH_HOME/tmp/preview-XXXXXXXX``): the
command sees the workspace and writes as usual, but every write lands in the
upper layer. Once it ended, the upper layer says exactly what it would create,
change (content, mode, symlink target) or delete (a whiteout, or a folder made
opaque); each such file becomes a :class:`~xcsh.journal.Change` against what the
workspace holds now, ready for :func:`~xcsh.journal.file_changes_action`. The
workspace is never written. Where no overlay can be mounted, the workspace is
copied (``.git`` left out) and the copy compared with it afterwards. The staged
tree is removed in a thread of its own once the changes are read.

Ignored paths (the workspace's ignore rules) and ``.git``, ``.hg``, ``.xcsh`` are
not proposed; they are counted. A folder renamed by ``rename(2)`` fails in the
overlay with "Invalid cross-device link" (overlayfs without ``redirect_dir``);
``mv`` copies instead.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.checks.stage import copy_tree, remove_scratch
from xcsh.fs.confined import RootDir
from xcsh.journal import Change
from xcsh.journal.commands import Tree
from xcsh.journal.commands.shadow import Shadow
from xcsh.journal.sides import now_or_none
from xcsh.sandbox import ProcessSupervisor
from xcsh.sandbox.overlay import OverlaySupport, overlay_command, probe_overlay
from xcsh.sandbox.run import RunOutcome, run_to_end

_OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")


@dataclass(frozen=True, kw_only=True)
class CommandPreview:
    """What a command would change, and how it ran on the staged tree.

    Args:
        outcome: how the command ended there.
        changes: each file it would create, change or delete (against the workspace now).
        ignored: ignored (or protected) paths it touched, not proposed.
        staging: ``"overlay"`` or ``"copy"``.
    """

    outcome: RunOutcome
    changes: tuple[Change, ...]
    ignored: int
    staging: str


@dataclass(frozen=True, kw_only=True)
class _Side:
    data: bytes | None
    link: bool = False
    mode: int | None = None


async def preview_command(
    command: str,
    *,
    root: Path,
    home: Path,
    supervisor: ProcessSupervisor,
    env: Mapping[str, str],
    timeout: float,
    on_output: Callable[[bytes], None],
    network: bool = True,
    overlay: OverlaySupport | None = None,
) -> CommandPreview:
    """Run ``command`` (``bash -c``) on a staged tree of ``root``; what it would change.

    Args:
        command: the command line.
        root: the workspace (a real path).
        home: ``$XCSH_HOME`` (the staged tree lives in its ``tmp``).
        supervisor: runs the command (timeout, every process it started ended).
        env: its environment.
        timeout: seconds before it is ended.
        on_output: receives its output as it comes.
        network: whether it may use the network.
        overlay: the overlay support (probed when ``None``); unavailable: a copy.

    Raises:
        SupervisorError: the command could not be started.
    """
    scratch = home / "tmp" / f"preview-{secrets.token_hex(4)}"
    scratch.mkdir(parents=True, mode=0o700)
    try:
        support = overlay if overlay is not None else probe_overlay(scratch / "probe")
        temp = scratch / "tmp"
        temp.mkdir()
        run_env = {**env, "TMPDIR": str(temp), "TMP": str(temp), "TEMP": str(temp)}
        upper, work = scratch / "upper", scratch / "work"
        tree = Tree(root, Shadow(scratch / "unused"), 0, upper=upper)
        if support.available and support.bwrap is not None:
            upper.mkdir()
            work.mkdir()
            argv = overlay_command(
                ["bash", "-c", command],
                bwrap=support.bwrap,
                lower=root,
                writable=[str(temp)],
                network=network,
                upper=(upper, work),
            )
            outcome = await run_to_end(
                supervisor, argv, cwd=root, env=run_env, timeout=timeout, on_output=on_output
            )
            found, ignored = _from_upper(root, upper, tree)
            staging = "overlay"
        else:
            copy = scratch / "tree"
            copy_tree(root, copy)
            outcome = await run_to_end(
                supervisor,
                ["bash", "-c", command],
                cwd=copy,
                env=run_env,
                timeout=timeout,
                on_output=on_output,
            )
            found, ignored = _from_copy(root, copy, tree)
            staging = "copy"
        return CommandPreview(
            outcome=outcome, changes=_changes(root, found), ignored=ignored, staging=staging
        )
    finally:
        # Unlinking the staged files costs milliseconds each on a busy disk: it is done
        # beside the rest of the preview (the process waits for it before it exits).
        threading.Thread(
            target=remove_scratch, args=(scratch,), name="xcsh-preview-cleanup"
        ).start()


def _from_upper(root: Path, upper: Path, tree: Tree) -> tuple[dict[str, _Side | None], int]:
    """Each path the upper layer changes: its new side (``None``: deleted); and ignored count."""
    found: dict[str, _Side | None] = {}
    ignored: set[str] = set()
    for folder, dirs, files in os.walk(upper):
        rel_folder = os.path.relpath(folder, upper)
        rel_folder = "" if rel_folder == "." else rel_folder
        for name in list(dirs):
            rel = f"{rel_folder}/{name}" if rel_folder else name
            path = Path(folder) / name
            if tree.skipped(rel, True):
                ignored.add(rel)
                dirs.remove(name)
                continue
            if _opaque(path) or not (root / rel).is_dir():
                for lower in _lower_files(root / rel, rel, tree):
                    found.setdefault(lower, None)
        for name in files:
            rel = f"{rel_folder}/{name}" if rel_folder else name
            if tree.skipped(rel, False):
                ignored.add(rel)
                continue
            info = os.lstat(Path(folder) / name)
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
                if (root / rel).is_dir() and not (root / rel).is_symlink():
                    for lower in _lower_files(root / rel, rel, tree):
                        found[lower] = None
                else:
                    found[rel] = None
                continue
            found[rel] = _side_of(Path(folder) / name, info)
    return found, len(ignored)


def _from_copy(root: Path, copy: Path, tree: Tree) -> tuple[dict[str, _Side | None], int]:
    """Each path where ``copy`` differs from ``root`` (recorded paths only)."""
    found: dict[str, _Side | None] = {}
    theirs = set(_lower_files(copy, "", tree))
    ours = set(_lower_files(root, "", tree))
    for rel in sorted(theirs | ours):
        if rel not in theirs:
            found[rel] = None
            continue
        info = os.lstat(copy / rel)
        found[rel] = _side_of(copy / rel, info)
    return found, 0


def _lower_files(folder: Path, rel: str, tree: Tree) -> list[str]:
    """The recorded files (and symlinks) below ``folder`` (``rel`` from the workspace)."""
    out: list[str] = []
    if not folder.is_dir() or folder.is_symlink():
        return out
    for entry in os.scandir(folder):
        sub = f"{rel}/{entry.name}" if rel else entry.name
        is_dir = entry.is_dir(follow_symlinks=False)
        if tree.skipped(sub, is_dir):
            continue
        if is_dir:
            out.extend(_lower_files(Path(entry.path), sub, tree))
        elif entry.is_file(follow_symlinks=False) or entry.is_symlink():
            out.append(sub)
    return out


def _side_of(path: Path, info: os.stat_result) -> _Side | None:
    if stat.S_ISLNK(info.st_mode):
        return _Side(data=os.fsencode(os.readlink(path)), link=True)
    if stat.S_ISREG(info.st_mode):
        return _Side(data=path.read_bytes(), mode=stat.S_IMODE(info.st_mode))
    return None


def _opaque(path: Path) -> bool:
    for name in _OPAQUE:
        with contextlib.suppress(OSError):
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
    return False


def _changes(root: Path, found: Mapping[str, _Side | None]) -> tuple[Change, ...]:
    """Each found path as a change against what the workspace holds now (unchanged left out)."""
    out: list[Change] = []
    with RootDir(root) as rd:
        for rel in sorted(found):
            new = found[rel]
            now = now_or_none(rd, rel)
            if now is None:
                continue  # a folder, or out of reach: nothing a file change can say
            change = Change(
                path=rel,
                shown=rel,
                before=now.data,
                after=None if new is None else new.data,
                ident=now.ident,
                link_before=now.side.link,
                link_after=new is not None and new.link,
                before_mode=now.side.mode,
                after_mode=None if new is None or new.link else new.mode,
                mode=None if new is None or new.link else new.mode,
            )
            if change.differs or (change.before is None) != (change.after is None):
                out.append(change)
    return tuple(out)


__all__ = ["CommandPreview", "preview_command"]
