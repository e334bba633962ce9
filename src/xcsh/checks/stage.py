"""A staged view of the workspace with a preview's files laid over it.

Two ways, the first that works:

- **overlay**: the workspace is mounted at its own path in an unprivileged
  user and mount namespace (:mod:`xcsh.sandbox.overlay`) as the lower layer
  of an overlay whose upper layer is the namespace's private tmpfs. The
  changed files reach the namespace as one tar archive in memory (a memfd,
  the first process's standard input); ``tar`` lays them down in the
  overlay, then the check replaces the shell that ran it. Whatever the check
  writes lands in that tmpfs and is gone when it ends; its temporary folder
  is a tmpfs of the namespace too. The rest of the file system is read-only
  to the check, except the ``sandbox_write`` paths. Nothing is written
  outside the namespace.
- **copy**: the workspace copied into a temporary folder (reflinked where
  the file system can, hard links never, so a check cannot write through to
  the user's files; ``.git`` and special files left out), the changed files
  written over it, and the check confined there by Landlock like ``bash``.
  The check then runs at another path than the workspace's.

Either way :func:`~xcsh.checks.placing.place_files` first decides where each
file lands (through symlinked folders, over a symlinked file, refusing a
path that leads out of the workspace). A copy lives in
``$XCSH_HOME/tmp/check-XXXXXXXX``; everything is removed when the check ends.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from xcsh.checks.placing import checked_relpath, place_files, tar_archive, write_files
from xcsh.core import ToolError
from xcsh.sandbox import Confinement
from xcsh.sandbox.overlay import OverlaySupport, overlay_command

Staging = Literal["overlay", "copy"]

_FICLONE = 0x40049409
"""The Linux ioctl that shares a file's blocks (btrfs, XFS, bcachefs)."""
OVERLAY_TEMP = "overlay-tmp"
"""The empty folder (in ``$XCSH_HOME/tmp``) each overlay's check gets a private tmpfs on."""
_UNTAR = (
    'tar -x -m -f - -C "$1" || { echo "xcsh: tar could not lay the staged files down" >&2; '
    'exit 125; }; c=$2; cd "$1" && shift 2 && { [ $# -eq 0 ] || rm -f -- "$@"; } && '
    'exec sh -c "$c" </dev/null'
)
"""Run in the namespace: the archive on standard input laid down in the workspace ($1), the
deleted files ($3...) removed, then the check ($2)."""
_DELETE = 'c=$2; cd "$1" && shift 2 && { [ $# -eq 0 ] || rm -f -- "$@"; } && exec sh -c "$c"'
"""Run in the namespace when no file is laid down: the deleted files removed, the check."""


@dataclass(frozen=True, kw_only=True)
class StagedTree:
    """Where and how a check runs over the staged tree.

    Args:
        kind: ``"overlay"`` or ``"copy"``.
        root: the folder the check starts in (the workspace's own path for an
            overlay, the copy for a copy).
        temp: the check's temporary folder (``TMPDIR``).
        argv_prefix: what the check's ``sh -c`` is wrapped in (``bwrap ...``) or ``()``.
        confine: the Landlock ruleset for a copy (``None``: not confined).
        stdin: a file descriptor to start the command with as its standard
            input (the staged files' archive, which the check itself does not
            see), else ``None`` (``/dev/null``).
        deleted: files (relative, real places) removed in the overlay before the check.
    """

    kind: Staging
    root: Path
    temp: Path
    argv_prefix: tuple[str, ...] = ()
    confine: Confinement | None = None
    stdin: int | None = None
    deleted: tuple[str, ...] = ()

    def argv(self, command: str) -> list[str]:
        """The command line that runs ``command`` with ``sh -c`` in the staged tree.

        In an overlay whose files are laid down (or removed) first, a small script
        does that, then runs ``command``.
        """
        if self.stdin is None and not self.deleted:
            return [*self.argv_prefix, "sh", "-c", command]
        script = _UNTAR if self.stdin is not None else _DELETE
        return [
            *self.argv_prefix,
            "sh",
            "-c",
            script,
            "xcsh-stage",
            str(self.root),
            command,
            *self.deleted,
        ]


@dataclass
class _Survey:
    """What :func:`copy_tree` copies: folders, regular files and symlinks (relative paths)."""

    folders: list[str] = field(default_factory=list)
    files: list[tuple[str, os.stat_result]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    size: int = 0


def _survey(src: Path) -> _Survey:
    found = _Survey()
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(os.path.join(src, rel)) as entries:
            for entry in entries:
                path = os.path.join(rel, entry.name)
                if entry.is_symlink():
                    found.links.append((path, os.readlink(entry.path)))
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git":
                        found.folders.append(path)
                        pending.append(path)
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found.files.append((path, st))
                    found.size += st.st_size
    return found


def _copy_surveyed(src: Path, dst: Path, survey: _Survey) -> None:
    dst.mkdir()
    for rel in survey.folders:
        (dst / rel).mkdir()
    reflink = True  # until the file system says it cannot
    for rel, st in survey.files:
        fin = os.open(os.path.join(src, rel), os.O_RDONLY | os.O_CLOEXEC)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            fout = os.open(os.path.join(dst, rel), flags, 0o600)
            try:
                if reflink:
                    try:
                        fcntl.ioctl(fout, _FICLONE, fin)
                    except OSError:
                        reflink = False
                while not reflink and os.sendfile(fout, fin, None, 1 << 30):
                    pass  # in the kernel: no copy through Python
                os.fchmod(fout, stat.S_IMODE(st.st_mode))
                os.utime(fout, ns=(st.st_atime_ns, st.st_mtime_ns))
            finally:
                os.close(fout)
        finally:
            os.close(fin)
    for rel, target in survey.links:
        os.symlink(target, dst / rel)


def copy_tree(src: Path, dst: Path) -> int:
    """Copy the tree ``src`` into the new folder ``dst``, leaving out ``.git``.

    Folders, regular files (reflinked where possible) and symlinks (as symlinks) are
    copied; special files are left out.

    Returns:
        The number of files copied.
    """
    survey = _survey(src)
    _copy_surveyed(src, dst, survey)
    return len(survey.files)


@contextlib.contextmanager
def staged_tree(
    workspace: Path,
    files: Mapping[str, bytes | None],
    *,
    scratch_parent: Path,
    overlay: OverlaySupport | None,
    network: bool,
    writable: Sequence[str] = (),
    confine: bool = True,
    modes: Mapping[str, int] | None = None,
) -> Iterator[StagedTree]:
    """Stage ``files`` (relative path → new bytes) over ``workspace``; remove it all after.

    Args:
        workspace: the workspace folder (a real path).
        files: the previewed new content of each changed file (``None``: deleted).
        scratch_parent: ``$XCSH_HOME/tmp``: where a copy and its temporary
            folder are made.
        overlay: the overlay support (:func:`~xcsh.sandbox.overlay.probe_overlay`);
            ``None`` or unavailable: copy.
        network: whether the check may use the network.
        writable: other folders the check may write (``sandbox_write``).
        confine: confine a copy's check with Landlock (the bash sandbox is on).
        modes: new permission bits of some of ``files`` (a previewed ``chmod``); the
            others keep the workspace's.

    Raises:
        ToolError: a path in ``files`` is absolute, has ``..`` or leads out
            of the workspace, or the files could not be written (nothing is run).
    """
    for rel in files:
        checked_relpath(rel)
    written = {rel: data for rel, data in files.items() if data is not None}
    deleted = tuple(rel for rel, data in files.items() if data is None)
    held = _Held(scratch_parent)
    try:
        try:
            if overlay is not None and overlay.available and overlay.bwrap is not None:
                staged = _overlay(workspace, written, held, overlay.bwrap, network, writable, modes)
                staged = dataclasses.replace(staged, deleted=deleted)
            else:
                staged = _copy(workspace, written, held, network, writable, confine, modes)
                for rel in deleted:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(staged.root / rel)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise ToolError(f"Cannot stage the change: {exc.strerror or exc}{where}.") from exc
        yield staged
    finally:
        held.remove()


class _Held:
    """What one staged tree made, removed together.

    That is the scratch folder (``check-XXXXXXXX`` in ``parent``, made on first use) and
    the archive's memfd.
    """

    def __init__(self, parent: Path) -> None:
        self.parent = parent
        self.scratch: Path | None = None
        self.fds: list[int] = []

    def folder(self) -> Path:
        if self.scratch is None:
            self.parent.mkdir(parents=True, exist_ok=True)
            self.scratch = self.parent / f"check-{secrets.token_hex(4)}"
            self.scratch.mkdir(mode=0o700)
        return self.scratch

    def in_memory(self, data: bytes) -> int:
        """A file descriptor reading ``data`` from its start: a memfd, nothing on disk."""
        fd = os.memfd_create("xcsh-staged", os.MFD_CLOEXEC)
        self.fds.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def remove(self) -> None:
        for fd in self.fds:
            os.close(fd)
        if self.scratch is not None:
            remove_scratch(self.scratch)


def _overlay(
    workspace: Path,
    files: Mapping[str, bytes],
    held: _Held,
    bwrap: Path,
    network: bool,
    writable: Sequence[str],
    modes: Mapping[str, int] | None,
) -> StagedTree:
    # The check's temporary folder is a tmpfs of its own namespace, mounted over
    # an empty folder kept for that: in memory, private, gone with the namespace.
    temp = held.parent / OVERLAY_TEMP
    temp.mkdir(mode=0o700, parents=True, exist_ok=True)
    archive = held.in_memory(tar_archive(place_files(files, workspace, modes))) if files else None
    prefix = overlay_command(
        [], bwrap=bwrap, lower=workspace, private=[temp], writable=writable, network=network
    )
    return StagedTree(
        kind="overlay", root=workspace, temp=temp, argv_prefix=tuple(prefix), stdin=archive
    )


def _copy(
    workspace: Path,
    files: Mapping[str, bytes],
    held: _Held,
    network: bool,
    writable: Sequence[str],
    confine: bool,
    modes: Mapping[str, int] | None,
) -> StagedTree:
    temp = held.folder() / "tmp"
    temp.mkdir()
    tree = held.folder() / "tree"
    copy_tree(workspace, tree)
    write_files(place_files(files, tree, modes), tree)
    rules = (
        Confinement(write=(str(tree), str(temp), *writable), network=network) if confine else None
    )
    return StagedTree(kind="copy", root=tree, temp=temp, confine=rules)


def remove_scratch(scratch: Path) -> None:
    """Remove a scratch folder, making read-only folders a command left writable first."""

    def fix(func: object, path: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)

    shutil.rmtree(scratch, onerror=fix)


__all__ = [
    "StagedTree",
    "Staging",
    "checked_relpath",
    "copy_tree",
    "remove_scratch",
    "staged_tree",
]
