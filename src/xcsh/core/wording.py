"""Counts in messages: ``1 turn``, ``3 turns`` (never ``1 turns``); every layer words counts
with :func:`plural`."""

from __future__ import annotations


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
