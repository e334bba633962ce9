"""Counts and lists in messages, worded once for every layer.

For example ``1 turn``, ``3 turns`` (never ``1 turns``), ``a.py, b.py and 3 more``.
"""

from __future__ import annotations

from collections.abc import Sequence


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, made plural unless ``count`` is exactly 1.

    Args:
        count: how many.
        word: the singular noun (``"turn"``).
        many: the plural when it is not ``word + "s"`` (``"actions wait"``).

    Returns:
        ``"1 turn"``, ``"0 turns"``, ``"3 turns"``.
    """
    return f"{count} {word if count == 1 else (many or word + 's')}"


def name_list(names: Sequence[str], shown: int = 20) -> str:
    """``a, b, c``: at most ``shown`` names, then ``and N more``."""
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"
