"""A staged view of the workspace with a preview's files laid over it.

Two ways, the first that works:

- **overlay**: the workspace is the lower layer of an overlay mounted at its
  own path in an unprivileged user and mount namespace
  (:mod:`xcsh.sandbox.overlay`); the upper layer is the namespace's private
  tmpfs. The changed files go there first (from one archive, unpacked in
  the namespace by ``_unpack.py``), then the check runs; whatever it
  writes lands in that tmpfs and is gone when it ends. The rest of the file
  system is read-only to the check, except its temporary folder and the
  ``sandbox_write`` paths.
- **copy**: the workspace copied into a temporary folder (reflinked where the
  file system can, hard links never, so a check cannot write through to the
  user's files; ``.git`` and special files left out), the changed files
  written over it, and the check confined there by Landlock like ``bash``.
  The check then runs at another path than the workspace's.

Either way the staged tree lives under ``$XCSH_HOME/tmp/check-XXXXXXXX`` and
is removed when the check ends.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from xcsh.core import ToolError
from xcsh.sandbox import Confinement
from xcsh.sandbox.overlay import OverlaySupport, overlay_command

Staging = Literal["overlay", "copy"]

_UNPACK = Path(__file__).with_name("_unpack.py")
_FICLONE = 0x40049409
"""The Linux ioctl that shares a file's blocks (btrfs, XFS, bcachefs)."""


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


def pack_files(files: Mapping[str, bytes]) -> bytes:
    """``files`` in the archive format ``_unpack.py`` reads (see there)."""
    out = bytearray()
    for rel, data in files.items():
        name = rel.encode("utf-8")
        out += len(name).to_bytes(4, "big") + name + len(data).to_bytes(8, "big") + data
    return bytes(out)


def _write_over(base: Path, files: Mapping[str, bytes]) -> None:
    """Write ``files`` under ``base``, never through a symlink out of it."""
    real_base = os.path.realpath(base)
    for rel, data in files.items():
        dest = base.joinpath(*checked_relpath(rel).parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        parent = os.path.realpath(dest.parent)
        if parent != real_base and not parent.startswith(real_base + os.sep):
            raise ToolError(f"Cannot stage {rel!r}: its folder leads out of the workspace.")
        if dest.is_symlink() or (dest.exists() and not dest.is_file()):
            if dest.is_dir() and not dest.is_symlink():
                raise ToolError(f"Cannot stage {rel!r}: it is a folder in the workspace.")
            dest.unlink()
        dest.write_bytes(data)


def _clone(src: str, dst: str) -> None:
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        try:
            fcntl.ioctl(fout.fileno(), _FICLONE, fin.fileno())
        except OSError:
            shutil.copyfileobj(fin, fout, 1 << 20)
    shutil.copystat(src, dst, follow_symlinks=False)


def copy_tree(src: Path, dst: Path) -> int:
    """Copy ``src`` into the new folder ``dst``: folders, regular files (reflinked where
    possible) and symlinks as symlinks; ``.git`` and special files left out.

    Returns:
        The number of files copied.
    """
    count = 0
    for folder, dirs, names in os.walk(src):
        rel = os.path.relpath(folder, src)
        target = dst if rel == "." else dst / rel
        target.mkdir(exist_ok=rel != ".")
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d))]
        for name in names + [
            d for d in os.listdir(folder) if os.path.islink(os.path.join(folder, d))
        ]:
            path = os.path.join(folder, name)
            out = str(target / name)
            if os.path.islink(path):
                if not os.path.lexists(out):
                    os.symlink(os.readlink(path), out)
            elif os.path.isfile(path):
                _clone(path, out)
                count += 1
    return count


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
        scratch_parent: where the temporary folder is made (``$XCSH_HOME/tmp``).
        overlay: the overlay support (:func:`~xcsh.sandbox.overlay.probe_overlay`);
            ``None`` or unavailable: copy.
        network: whether the check may use the network.
        writable: other folders the check may write (``sandbox_write``).
        confine: confine a copy's check with Landlock (the bash sandbox is on).

    Raises:
        ToolError: a path in ``files`` is absolute, has ``..`` or leads out
            of the workspace (nothing is run).
    """
    for rel in files:
        checked_relpath(rel)
    scratch_parent.mkdir(parents=True, exist_ok=True)
    scratch = scratch_parent / f"check-{secrets.token_hex(4)}"
    scratch.mkdir(mode=0o700)
    temp = scratch / "tmp"
    temp.mkdir()
    try:
        if overlay is not None and overlay.available and overlay.bwrap is not None:
            # One archive on disk; the files are laid over the workspace inside the
            # namespace, in the overlay's in-memory upper layer (creating hundreds of
            # files on a loaded disk costs a second; one file and a tmpfs, milliseconds).
            archive = scratch / "staged.bin"
            archive.write_bytes(pack_files(files))
            unpack = [sys.executable, "-I", "-S", str(_UNPACK), str(archive), str(workspace), "--"]
            prefix = overlay_command(
                unpack,
                bwrap=overlay.bwrap,
                lower=workspace,
                upper=None,
                work=None,
                writable=[str(temp), *writable],
                network=network,
            )
            yield StagedTree(kind="overlay", root=workspace, temp=temp, argv_prefix=tuple(prefix))
        else:
            tree = scratch / "tree"
            copy_tree(workspace, tree)
            _write_over(tree, files)
            rules = (
                Confinement(write=(str(tree), str(temp), *writable), network=network)
                if confine
                else None
            )
            yield StagedTree(kind="copy", root=tree, temp=temp, confine=rules)
    finally:
        _remove(scratch)


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
    "pack_files",
    "staged_tree",
]
