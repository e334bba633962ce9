"""What a warm index keeps within ``index_memory``, and that setting itself.

It keeps syntax trees and answers, least recently used out.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

from xcsh.core.sizes import parse_size

if TYPE_CHECKING:  # this module loads without the engine (settings read it)
    from xcsh.structural.matches.matching import Outcome

DEFAULT_INDEX_MEMORY = 256 * 1024 * 1024
TREE_BYTES_PER_SOURCE_BYTE = 32
"""Memory of a parsed tree and its text per byte of source (measured: about 31 for the
standard library's Python with ast-grep-py 0.3x; rounded up)."""
_ANSWER_BASE = 512

Kind = Literal["tree", "answer"]
CacheKey = tuple[Kind, Path, str, int]
"""``(kind, file, language, query id)``; a tree's query id is 0."""


class _Shelf:
    """The values of one kind, least recently used first, and the bytes they cost."""

    def __init__(self) -> None:
        self.items: OrderedDict[CacheKey, tuple[object, int]] = OrderedDict()
        self.used = 0


class BoundedCache:
    """Trees and answers, each kind held within its share of ``memory``.

    Trees get three quarters, answers a quarter; each kind drops its least
    recently used values when its share is exceeded. Not thread-safe (the index locks).
    """

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self._trees = _Shelf()
        self._answers = _Shelf()
        self._by_path: dict[Path, set[CacheKey]] = {}

    def _shelf(self, kind: Kind) -> _Shelf:
        return self._answers if kind == "answer" else self._trees

    @property
    def used(self) -> int:
        """Estimated bytes held."""
        return self._trees.used + self._answers.used

    def budget(self, kind: Kind) -> int:
        """The bytes values of ``kind`` may hold."""
        return self.memory // 4 if kind == "answer" else self.memory - self.memory // 4

    def get(self, key: CacheKey) -> tuple[object] | None:
        """``(value,)`` when held (now the most recently used), else ``None``."""
        items = self._shelf(key[0]).items
        found = items.get(key)
        if found is None:
            return None
        items.move_to_end(key)
        return (found[0],)

    def answer(self, key: CacheKey) -> tuple[Outcome | None] | None:
        """:meth:`get` for an answer key (whose values are outcomes)."""
        found = self.get(key)
        return None if found is None else (cast("Outcome | None", found[0]),)

    def put(self, key: CacheKey, value: object, cost: int) -> None:
        """Hold ``value`` (estimated at ``cost`` bytes) within its kind's share.

        The least recently used values of its kind are dropped past the share; a
        value larger than the share is not held.
        """
        kind = key[0]
        budget = self.budget(kind)
        if cost > budget:
            return
        shelf = self._shelf(kind)
        if key in shelf.items:
            self._drop(key)
        shelf.items[key] = (value, cost)
        self._by_path.setdefault(key[1], set()).add(key)
        shelf.used += cost
        while shelf.used > budget:
            self._drop(next(iter(shelf.items)))

    def forget_path(self, path: Path) -> None:
        """Drop everything held for ``path``."""
        for key in list(self._by_path.get(path, ())):
            self._drop(key)

    def forget_query(self, qid: int) -> None:
        """Drop every answer to the query ``qid``."""
        for key in [k for k in self._answers.items if k[3] == qid]:
            self._drop(key)

    def _drop(self, key: CacheKey) -> None:
        shelf = self._shelf(key[0])
        _, cost = shelf.items.pop(key)
        shelf.used -= cost
        keys = self._by_path.get(key[1])
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_path[key[1]]


def answer_cost(answer: Outcome | None) -> int:
    """Estimated bytes of one file's answer: its texts, twice (``str`` and the records)."""
    if answer is None:
        return 64
    cost = _ANSWER_BASE
    for match in answer.matches:
        cost += _ANSWER_BASE + 2 * (len(match.text) + len(match.lines))
    if answer.edit is not None:
        cost += len(answer.edit.old_bytes) + len(answer.edit.new_bytes)
        cost += _ANSWER_BASE * len(answer.edit.replacements)
    return cost


MAX_INDEX_MEMORY = 1024**4
"""The largest ``index_memory`` accepted (1 TiB): more is a typo, not a budget."""


def parse_index_memory(value: object, where: str) -> int:
    """``index_memory`` from settings.toml, in bytes.

    Accepted are bytes (a whole number), or a string such as ``"256 MiB"`` (KiB,
    MiB, GiB), up to :data:`MAX_INDEX_MEMORY`.

    Raises:
        ValueError: anything else, or a size above 1 TiB, with the message to
            show (naming ``where``).
    """
    size = parse_size(value)
    if size is not None and size > MAX_INDEX_MEMORY:
        raise ValueError(f"index_memory in {where} must be at most 1 TiB (1024 GiB), not {value!r}")
    if size is not None:
        return size
    raise ValueError(
        f"index_memory in {where} must be a number of bytes or a size such as "
        f'"256 MiB" (KiB, MiB, GiB; 0 keeps no trees), not {value!r}'
    )
