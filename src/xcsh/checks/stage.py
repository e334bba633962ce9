"""A staged view of the workspace with a preview's files laid over it.

Two ways, the first that works:

- **overlay**: the changed files are written to a folder of ours (the
  *layer*, in memory when the machine has room there: :mod:`.memory`), and
  the workspace is mounted at its own path in an unprivileged user and mount
  namespace (:mod:`xcsh.sandbox.overlay`) with that layer over it and the
  namespace's private tmpfs as the upper layer; whatever the check writes
  lands in that tmpfs and is gone when it ends. The rest of the file system
  is read-only to the check, except its temporary folder and the
  ``sandbox_write`` paths. Starting the check starts no other process.
- **copy**: the workspace copied into a temporary folder (in memory when it
  fits, reflinked where the file system can, hard links never, so a check
  cannot write through to the user's files; ``.git`` and special files left
  out), the changed files written over it, and the check confined there by
  Landlock like ``bash``. The check then runs at another path than the
  workspace's.

Either way the staged files are laid down by :func:`lay_files`, which follows
the workspace's symlinked folders as writing there would, refuses a path that
leads out of the workspace, and replaces a symlinked file. The check's
temporary folder is ``$XCSH_HOME/tmp/check-XXXXXXXX``; everything is removed
when the check ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from xcsh.checks.memory import memory_folder
from xcsh.core import ToolError
from xcsh.sandbox import Confinement
from xcsh.sandbox.overlay import OverlaySupport, overlay_command

Staging = Literal["overlay", "copy"]

_FICLONE = 0x40049409
"""The Linux ioctl that shares a file's blocks (btrfs, XFS, bcachefs)."""
_LAYER_SLACK = 16 << 20
"""Bytes a memory file system must have free beyond the staged files themselves."""
_COPY_SLACK = 256 << 20
"""Bytes it must have free beyond twice a copied workspace (what the check writes lands there)."""
OVERLAY_TEMP = "overlay-tmp"
"""The empty folder (in ``$XCSH_HOME/tmp``) each overlay's check gets a private tmpfs on."""


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
    """

    kind: Staging
    root: Path
    temp: Path
    argv_prefix: tuple[str, ...] = ()
    confine: Confinement | None = None

    def argv(self, command: str) -> list[str]:
        """The command line that runs ``command`` with ``sh -c`` in the staged tree."""
        return [*self.argv_prefix, "sh", "-c", command]


def checked_relpath(rel: str) -> PurePosixPath:
    """``rel`` as a path inside the workspace, or :class:`ToolError` naming it."""
    path = PurePosixPath(rel)
    if not rel or path.is_absolute() or ".." in path.parts or path.parts[:1] == (".",):
        raise ToolError(
            f"Cannot stage {rel!r}: staged files must be paths relative to the workspace, "
            "without '..'."
        )
    return path


def lay_files(files: Mapping[str, bytes], *, workspace: Path, into: Path) -> None:
    """Write ``files`` (relative path → bytes) into ``into`` as they would land in ``workspace``.

    Each file goes where writing it in the workspace would put it: through
    the workspace's symlinked folders (to the same relative place in
    ``into``), replacing a symlink at the file itself, keeping the mode of
    the file it replaces. ``into`` is the workspace itself (a copy) or a
    layer laid over it.

    Raises:
        ToolError: a path leads out of the workspace, is a folder there, or
            runs through a file; nothing more is written.
    """
    real_ws = os.path.realpath(workspace)
    folders: dict[tuple[str, ...], str] = {}  # a folder of relative paths → its place in `into`
    for rel, data in files.items():
        parts = checked_relpath(rel).parts
        where = folders.get(parts[:-1])
        if where is None:
            where = folders[parts[:-1]] = _folder_for(rel, parts[:-1], real_ws, into)
        name = parts[-1]
        try:
            mode = os.lstat(os.path.join(real_ws, os.path.relpath(where, into), name)).st_mode
        except FileNotFoundError:
            mode = 0
        if stat.S_ISDIR(mode):
            raise ToolError(f"Cannot stage {rel!r}: it is a folder in the workspace.")
        dest = os.path.join(where, name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(dest, flags, 0o666)
        except FileExistsError:  # a symlink, or a copied file that may be read-only
            os.unlink(dest)
            fd = os.open(dest, flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if stat.S_ISREG(mode):
                os.fchmod(fd, stat.S_IMODE(mode))
        finally:
            os.close(fd)


def _folder_for(rel: str, folder: tuple[str, ...], real_ws: str, into: Path) -> str:
    """Where in ``into`` the files of the workspace's ``folder`` go (made when missing)."""
    real = os.path.realpath(os.path.join(real_ws, *folder))
    if real != real_ws and not real.startswith(real_ws + os.sep):
        raise ToolError(f"Cannot stage {rel!r}: its folder leads out of the workspace.")
    if os.path.lexists(real) and not os.path.isdir(real):
        shown = os.path.relpath(real, real_ws)
        raise ToolError(f"Cannot stage {rel!r}: {shown!r} is a file in the workspace.")
    where = os.path.normpath(os.path.join(into, os.path.relpath(real, real_ws)))
    os.makedirs(where, exist_ok=True)
    return where


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
    """Copy ``src`` into the new folder ``dst``: folders, regular files (reflinked where
    possible) and symlinks as symlinks; ``.git`` and special files left out.

    Returns:
        The number of files copied.
    """
    survey = _survey(src)
    _copy_surveyed(src, dst, survey)
    return len(survey.files)


@contextlib.contextmanager
def staged_tree(
    workspace: Path,
    files: Mapping[str, bytes],
    *,
    scratch_parent: Path,
    overlay: OverlaySupport | None,
    network: bool,
    writable: Sequence[str] = (),
    confine: bool = True,
) -> Iterator[StagedTree]:
    """Stage ``files`` (relative path → new bytes) over ``workspace``; remove it all after.

    Args:
        workspace: the workspace folder (a real path).
        files: the previewed new content of each changed file.
        scratch_parent: ``$XCSH_HOME/tmp``: where a copy's temporary folder is
            made, and the staged files when memory has no room.
        overlay: the overlay support (:func:`~xcsh.sandbox.overlay.probe_overlay`);
            ``None`` or unavailable: copy.
        network: whether the check may use the network.
        writable: other folders the check may write (``sandbox_write``).
        confine: confine a copy's check with Landlock (the bash sandbox is on).

    Raises:
        ToolError: a path in ``files`` is absolute, has ``..`` or leads out
            of the workspace, or the files could not be written (nothing is run).
    """
    for rel in files:
        checked_relpath(rel)
    held = _Held(scratch_parent)
    try:
        try:
            if overlay is not None and overlay.available and overlay.bwrap is not None:
                staged = _overlay(workspace, files, held, overlay.bwrap, network, writable)
            else:
                staged = _copy(workspace, files, held, network, writable, confine)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise ToolError(f"Cannot stage the change: {exc.strerror or exc}{where}.") from exc
        yield staged
    finally:
        held.remove()


class _Held:
    """The folders one staged tree made, removed together; the scratch folder
    (``check-XXXXXXXX`` in ``parent``) is made on first use."""

    def __init__(self, parent: Path) -> None:
        self.parent = parent
        self.folders: list[Path] = []
        self._scratch: Path | None = None

    def scratch(self) -> Path:
        if self._scratch is None:
            self.parent.mkdir(parents=True, exist_ok=True)
            folder = self.parent / f"check-{secrets.token_hex(4)}"
            folder.mkdir(mode=0o700)
            self.folders.append(folder)
            self._scratch = folder
        return self._scratch

    def in_memory(self, needed: int) -> Path:
        """A folder in memory with ``needed`` bytes free, else the scratch folder."""
        folder = memory_folder(needed)
        if folder is None:
            return self.scratch()
        self.folders.append(folder)
        return folder

    def remove(self) -> None:
        for folder in self.folders:
            _remove(folder)


def _overlay(
    workspace: Path,
    files: Mapping[str, bytes],
    held: _Held,
    bwrap: Path,
    network: bool,
    writable: Sequence[str],
) -> StagedTree:
    # The check's temporary folder is a tmpfs of its own namespace, mounted over
    # an empty folder kept for that: in memory, private, gone with the namespace.
    temp = held.parent / OVERLAY_TEMP
    temp.mkdir(mode=0o700, parents=True, exist_ok=True)
    layers: list[Path] = []
    if files:
        layer = held.in_memory(sum(map(len, files.values())) + _LAYER_SLACK) / "layer"
        layer.mkdir()
        lay_files(files, workspace=workspace, into=layer)
        layers.append(layer)
    prefix = overlay_command(
        [],
        bwrap=bwrap,
        lower=workspace,
        layers=layers,
        private=[temp],
        writable=writable,
        network=network,
    )
    return StagedTree(kind="overlay", root=workspace, temp=temp, argv_prefix=tuple(prefix))


def _copy(
    workspace: Path,
    files: Mapping[str, bytes],
    held: _Held,
    network: bool,
    writable: Sequence[str],
    confine: bool,
) -> StagedTree:
    temp = held.scratch() / "tmp"
    temp.mkdir()
    survey = _survey(workspace)
    tree = held.in_memory(2 * survey.size + _COPY_SLACK) / "tree"
    _copy_surveyed(workspace, tree, survey)
    lay_files(files, workspace=tree, into=tree)
    rules = (
        Confinement(write=(str(tree), str(temp), *writable), network=network) if confine else None
    )
    return StagedTree(kind="copy", root=tree, temp=temp, confine=rules)


def _remove(scratch: Path) -> None:
    """Remove the scratch folder, making read-only folders a check left writable first."""

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
    "lay_files",
    "staged_tree",
]
