"""How much history a journal keeps, and which entries pruning drops.

Pruning drops the oldest settled entries until both limits hold with room
to spare (90 % of each, so that pruning, which reads the kept entries, runs
once in a while); the newest entry is always kept, and an incomplete entry
stops pruning (recovery still needs it). Each stored content is charged to
the oldest kept entry that uses it, so the bytes the index adds up are the
bytes the store holds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import UsageError
from xcsh.core.sizes import SIZE_FORMS, parse_size
from xcsh.journal.records import EntrySummary

NO_LIMIT = 2**62
"""What ``0`` in the settings stands for: a limit never reached."""


@dataclass(frozen=True, kw_only=True)
class Retention:
    """How much history a journal keeps (settings ``journal_max_entries`` / ``journal_max_bytes``).

    ``0`` in the settings file means no limit on that measure (:data:`NO_LIMIT`):
    a limit set to nothing never drops the history ``xcsh undo`` needs.

    Args:
        max_entries: entries kept (oldest pruned first; at least 1).
        max_bytes: bytes of stored copies kept (oldest entries pruned first;
            the newest entry is kept whatever its size).
    """

    max_entries: int = 200
    max_bytes: int = 512 * 1024 * 1024

    @classmethod
    def from_settings(cls, settings: Mapping[str, object], where: Path) -> Retention:
        """The retention ``settings`` (``settings.toml``'s values) ask for; defaults when missing.

        Raises:
            UsageError: a value is not a whole number of at least 0, or for
                ``journal_max_bytes`` a size such as ``"512 MiB"`` (naming ``where``).
        """
        retention, problems = cls.read_leniently(settings, where)
        if problems:
            raise problems[0]
        return retention

    @classmethod
    def read_leniently(
        cls, settings: Mapping[str, object], where: Path
    ) -> tuple[Retention, list[UsageError]]:
        """As :meth:`from_settings`, but a bad value is replaced by its default, not refused.

        For the commands that give work back (``xcsh undo``, ``xcsh rewind``): a
        broken setting never stands between a user and their files.

        Returns:
            The retention, and the problem of each value replaced (to be said).
        """
        problems: list[UsageError] = []
        entries = _limit(settings, "journal_max_entries", cls.max_entries, where, problems)
        size = _limit(settings, "journal_max_bytes", cls.max_bytes, where, problems)
        return cls(max_entries=entries, max_bytes=size), problems


def _limit(
    settings: Mapping[str, object],
    key: str,
    fallback: int,
    where: Path,
    problems: list[UsageError],
) -> int:
    """``key``'s limit (``0``: :data:`NO_LIMIT`), or ``fallback`` when missing or bad.

    A bad value's problem is appended to ``problems``.
    """
    value = settings.get(key, fallback)
    sizes = key == "journal_max_bytes"
    found = parse_size(value) if sizes else None
    if not sizes and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        found = value
    if found is not None:
        return found or NO_LIMIT
    what = f"a number of bytes or a size such as {SIZE_FORMS}" if sizes else "a whole number"
    example = '"512 MiB"' if sizes else str(fallback)
    problems.append(
        UsageError(
            f"{key} in {where} must be {what} (0 for no limit), not {value!r}",
            hint=f"write for instance {key} = {example}",
        )
    )
    return fallback


def plan_prune(
    ordered: list[EntrySummary],
    limit: Retention,
    digests: dict[int, list[str]],
    sizes: dict[str, int],
) -> list[EntrySummary]:
    """The entries to keep, oldest first, each charged with the bytes it is the first to use.

    Args:
        ordered: every entry's summary, oldest first.
        limit: the retention.
        digests: each entry's stored contents (sha256), by entry number.
        sizes: each stored content's size in bytes.
    """
    goal_entries = max(1, int(limit.max_entries * 0.9))
    goal_bytes = int(limit.max_bytes * 0.9)
    kept = list(ordered)
    while True:
        charged = _charge(kept, digests, sizes)
        total = sum(s.bytes for s in charged)
        over = len(charged) > goal_entries or total > goal_bytes
        if not over or len(kept) <= 1 or kept[0].state is None:
            return charged
        kept.pop(0)


def _charge(
    kept: list[EntrySummary], digests: dict[int, list[str]], sizes: dict[str, int]
) -> list[EntrySummary]:
    """``kept`` with each blob's size charged to the oldest entry that uses it."""
    seen: set[str] = set()
    out = []
    for summary in kept:
        fresh = [d for d in dict.fromkeys(digests[summary.seq]) if d not in seen]
        seen.update(fresh)
        out.append(dataclasses.replace(summary, bytes=sum(sizes.get(d, 0) for d in fresh)))
    return out
