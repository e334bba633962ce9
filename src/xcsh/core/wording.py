"""Counts and lists in messages, worded once for every layer.

For example ``1 turn``, ``3 turns`` (never ``1 turns``), ``a.py, b.py and 3 more``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


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


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`` (did you mean 'model'?)`` for the known name closest to a mistyped ``word``.

    Args:
        word: the name given (a settings key, a tool name).
        known: the names that exist.

    Returns:
        The parenthesis with a leading space, or ``""`` when no name is close
        (:func:`difflib.get_close_matches` at its default cutoff).
    """
    import difflib  # only a mistyped name needs it

    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
