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
from typing import Annotated

from pydantic import BeforeValidator, Field

from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.sizes import parse_size
from xcsh.journal.records import EntrySummary

DEFAULT_MAX_ENTRIES = 200
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
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

    max_entries: int = DEFAULT_MAX_ENTRIES
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def from_settings(cls, settings: Mapping[str, object], where: Path) -> Retention:
        """The retention ``settings`` (``settings.toml``'s values) ask for; defaults when missing.

        Raises:
            UsageError: a value is not a whole number of at least 0, or for
                ``journal_max_bytes`` a size such as ``"512 MiB"`` (naming ``where``).
        """
        keys = RetentionKeys.from_file(settings, str(where))
        return cls(
            max_entries=keys.journal_max_entries or NO_LIMIT,
            max_bytes=keys.journal_max_bytes or NO_LIMIT,
        )

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
        kept: dict[str, object] = {}
        for key in RetentionKeys.model_fields:
            if key in settings:
                try:
                    RetentionKeys.from_file({key: settings[key]}, str(where))
                except UsageError as exc:
                    problems.append(exc)
                    continue
                kept[key] = settings[key]
        return cls.from_settings(kept, where), problems


def _to_bytes(value: object) -> object:
    """A size (``"512 MiB"``) as its bytes; anything else as it is, for the type check."""
    size = parse_size(value) if isinstance(value, str) else None
    return value if size is None else size


class RetentionKeys(SettingsKeys):
    """The journal's keys of a settings file's top level, typed (see :class:`Retention`).

    ``journal_max_bytes`` takes a size as ``index_memory`` does (bytes, or
    ``"512 MiB"``); either key takes ``0`` for no limit.
    """

    journal_max_entries: int = Field(default=DEFAULT_MAX_ENTRIES, ge=0)
    journal_max_bytes: Annotated[int, BeforeValidator(_to_bytes)] = Field(
        default=DEFAULT_MAX_BYTES, ge=0
    )

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it takes and the value; a line to write."""
        if key == "journal_max_entries":
            return UsageError(
                f"{key} in {source} must be a whole number (0 for no limit), not {value!r}",
                hint=f"write for instance {key} = {DEFAULT_MAX_ENTRIES}",
            )
        if key == "journal_max_bytes":
            return UsageError(
                f'{key} in {source} must be a number of bytes or a size such as "512 MiB" '
                f"(KiB, MiB, GiB; 0 for no limit), not {value!r}",
                hint=f'write for instance {key} = "512 MiB"',
            )
        return None


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
