"""Small wording helpers the coding tools share: sizes and capped listings.

Counts use :func:`xcsh.core.wording.plural`.

Path confinement lives in :class:`xcsh.fs.Workspace`.
"""

from __future__ import annotations


def human_size(size: int) -> str:
    """A byte count for people: ``512 bytes``, ``3.4 KiB``, ``12.0 MiB``."""
    if size < 1024:
        return f"{size} byte" + ("" if size == 1 else "s")
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


def capped_listing(lines: list[str], total: int, limit: int, of: str, hint: str) -> str:
    """``lines`` one per line, at most ``limit`` of them.

    When ``total`` exceeds ``limit``, a blank line and ``[Showing LIMIT of OF.
    HINT]`` follow, ``of`` being the counted whole (``plural(total, "file")``).
    """
    if total > limit:
        lines = [*lines[:limit], "", f"[Showing {limit} of {of}. {hint}]"]
    return "\n".join(lines)
