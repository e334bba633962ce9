"""A warm session's structural index: what one session (or MCP server) keeps between
``ast_grep``/``ast_edit`` calls so that the next search over the same files is cheap.

Each call still walks the workspace (ignore files, new files and folders
are seen at once; the walk costs about 1 % of a search), and the walk's
``stat`` of each file gives its *fingerprint*: size, ``st_mtime_ns``,
``st_ctime_ns``, inode and device. A file whose fingerprint is the one
recorded when it was last read, and whose times were then older than
:data:`RACY_NS` before that read, is unchanged: its words, syntax tree and
answers are used without reading it. Any other file is read again: if its
bytes hash as before it keeps what was known, else everything about it is
dropped. (A change within the file system's timestamp granularity of the
read could keep the same times; such a "racy" file is never trusted.)

Kept per file: the fingerprint, a content hash, whether it is text, and its
words in :class:`~xcsh.structural.warm_words.WordIndex`, so a search reads
only the files whose words can match. Kept up to ``index_memory`` bytes,
least recently used out: parsed syntax trees (three quarters, estimated at
:data:`TREE_BYTES_PER_SOURCE_BYTE` times the source) and the answer of
each file to the last :data:`RECENT_QUERIES` distinct queries (a quarter,
estimated by the size of their text).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ast_grep_py import SgNode, SgRoot

from xcsh.fs import NotRegularFileError, read_regular_bytes
from xcsh.structural.embedded import hosts
from xcsh.structural.matching import Outcome, Query
from xcsh.structural.pattern import CompiledPattern
from xcsh.structural.results import SkippedFile
from xcsh.structural.scan import Source, decode_source, scan_source
from xcsh.structural.scope import Scope
from xcsh.structural.warm_words import WordIndex, words_of

DEFAULT_INDEX_MEMORY = 256 * 1024 * 1024
TREE_BYTES_PER_SOURCE_BYTE = 32
"""Memory of a parsed tree and its text per byte of source (measured: about 31 for the
standard library's Python with ast-grep-py 0.3x; rounded up)."""
RECENT_QUERIES = 8
RACY_NS = 2_000_000_000
"""A file modified (or its inode changed) this close to the moment it was read may change
again without its times changing: it is read again next time."""
_ANSWER_BASE = 512

_Kind = Literal["text", "empty", "skipped"]


@dataclass(frozen=True)
class Fingerprint:
    """What ``stat`` says of a file: equal fingerprints with old times mean unchanged."""

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int

    @classmethod
    def of(cls, info: os.stat_result) -> Fingerprint:
        return cls(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


@dataclass
class _Entry:
    file_id: int
    fingerprint: Fingerprint | None
    trusted: bool
    digest: bytes
    kind: _Kind
    reason: str = ""
    words: int = -1
    """Postings in the word index, ``-1`` when the words are not indexed."""


_CacheKey = tuple[str, Path, str, int]


class WarmIndex:
    """The structural index of one session or MCP server (thread-safe).

    Args:
        memory: bytes of syntax trees and answers kept (``0``: none; only
            fingerprints and words are kept).
    """

    def __init__(self, memory: int = DEFAULT_INDEX_MEMORY) -> None:
        self.memory = memory
        self._lock = threading.Lock()
        self._files: dict[Path, _Entry] = {}
        self._words = WordIndex()
        self._next_id = 0
        self._cache: dict[str, OrderedDict[_CacheKey, tuple[object, int]]] = {
            "tree": OrderedDict(),
            "answer": OrderedDict(),
        }
        self._keys: dict[Path, set[_CacheKey]] = {}
        self._used = {"tree": 0, "answer": 0}
        self._queries: list[tuple[Query, int]] = []

    @property
    def used(self) -> int:
        """Estimated bytes of the trees and answers held."""
        return sum(self._used.values())

    def _budget(self, kind: str) -> int:
        """Answers may take a quarter of the memory, trees the rest."""
        return self.memory // 4 if kind == "answer" else self.memory - self.memory // 4

    def run(
        self, query: Query, scope: Scope, progress: Callable[[int, int], None] | None
    ) -> Iterator[Outcome | None]:
        """One outcome per file of ``scope`` (as :func:`~xcsh.structural.runner.run_query`),
        answered from the index where the file is unchanged."""
        now = time.time_ns()
        with self._lock:
            qid = self._query_id(query)
            allowed = {name: self._allowed(unit.patterns) for name, unit in query.languages.items()}
        stats = scope.stats if len(scope.stats) == len(scope.files) else [None] * len(scope.files)
        total = len(scope.files)
        for done, ((path, display, language), info) in enumerate(
            zip(scope.files, stats, strict=True), 1
        ):
            fingerprint = Fingerprint.of(info) if info is not None else None
            yield self._outcome(query, qid, allowed, (path, display, language), fingerprint, now)
            if progress is not None:
                progress(done, total)

    def _outcome(
        self,
        query: Query,
        qid: int,
        allowed: dict[str, frozenset[int] | None],
        item: tuple[Path, str, str],
        fingerprint: Fingerprint | None,
        now: int,
    ) -> Outcome | None:
        path, display, language = item
        key: _CacheKey = ("answer", path, language, qid)
        with self._lock:
            entry = self._files.get(path)
            if entry is not None and entry.trusted and entry.fingerprint == fingerprint:
                if entry.kind != "text":
                    return _unsearchable(entry, path, display)
                cached = self._get(key)
                if cached is not None:
                    return cached[0]  # type: ignore[return-value]
                if entry.words >= 0 and not self._may_match(query, allowed, entry, language):
                    return None
        return self._read_and_scan(query, qid, item, fingerprint, now)

    def _read_and_scan(
        self,
        query: Query,
        qid: int,
        item: tuple[Path, str, str],
        fingerprint: Fingerprint | None,
        now: int,
    ) -> Outcome | None:
        path, display, language = item
        try:
            raw = read_regular_bytes(path)
        except (NotRegularFileError, OSError) as exc:
            with self._lock:
                self._forget(path)
            reason = "not a regular file" if isinstance(exc, NotRegularFileError) else "unreadable"
            return Outcome(skipped=SkippedFile(path=path, file=display, reason=reason))
        source = decode_source(raw, path, display)
        digest = hashlib.blake2b(raw, digest_size=16).digest()
        trusted = fingerprint is not None and (
            now - max(fingerprint.mtime_ns, fingerprint.ctime_ns) > RACY_NS
        )
        key: _CacheKey = ("answer", path, language, qid)
        with self._lock:
            entry = self._files.get(path)
            if entry is not None and entry.digest == digest:
                entry.fingerprint, entry.trusted = fingerprint, trusted
                if entry.words < 0 and entry.kind == "text":  # the word index was dropped
                    words = words_of(raw)
                    self._words.add(entry.file_id, words)
                    entry.words = len(words)
            else:
                entry = self._remember(path, raw, source, digest, fingerprint, trusted)
            if not isinstance(source, Source):
                return source
            cached = self._get(key)
            if cached is not None:
                return cached[0]  # type: ignore[return-value]
        answer = scan_source(query, source, path, display, language, self._parser(path, source))
        if query.records is None:
            with self._lock:
                if self._files.get(path) is entry and any(q == qid for _, q in self._queries):
                    self._put(key, answer, _answer_cost(answer))
        return answer

    def _remember(
        self,
        path: Path,
        raw: bytes,
        source: Source | Outcome | None,
        digest: bytes,
        fingerprint: Fingerprint | None,
        trusted: bool,
    ) -> _Entry:
        """A new entry for ``path`` (read as ``raw``), replacing what was known."""
        self._forget(path)
        self._next_id += 1
        kind: _Kind = "text" if isinstance(source, Source) else "empty"
        reason = ""
        if isinstance(source, Outcome):
            kind = "skipped"
            reason = source.skipped.reason if source.skipped is not None else "unreadable"
        entry = _Entry(self._next_id, fingerprint, trusted, digest, kind, reason)
        if kind == "text":
            words = words_of(raw)
            self._words.add(entry.file_id, words)
            entry.words = len(words)
        self._files[path] = entry
        return entry

    def _forget(self, path: Path) -> None:
        """Drop what is known of ``path``: its entry, words, trees and answers."""
        entry = self._files.pop(path, None)
        for key in self._keys.pop(path, set()):
            _, cost = self._cache[key[0]].pop(key)
            self._used[key[0]] -= cost
        if entry is not None and entry.words > 0 and self._words.retire(entry.words):
            self._words = WordIndex()  # rebuilt as files are read again
            for other in self._files.values():
                other.words = -1

    def _may_match(
        self,
        query: Query,
        allowed: dict[str, frozenset[int] | None],
        entry: _Entry,
        language: str,
    ) -> bool:
        if hosts(language) or language not in query.languages:
            return hosts(language)
        ids = allowed[language]
        return ids is None or entry.file_id in ids

    def _allowed(self, patterns: tuple[object, ...]) -> frozenset[int] | None:
        """Ids of the files where one of ``patterns`` may match (``None``: any file)."""
        union: set[int] = set()
        for pattern in patterns:
            if pattern is None:
                continue
            if isinstance(pattern, CompiledPattern):
                ids = self._words.files_meeting(tuple((t,) for t in pattern.tokens))
            else:
                ids = self._words.files_meeting(getattr(pattern, "required", ()))
            if ids is None:
                return None
            union |= ids
        return frozenset(union)

    def _parser(self, path: Path, source: Source) -> Callable[[str, str], SgNode]:
        def parse(text: str, language: str) -> SgNode:
            if text is not source.text or self.memory <= 0:
                return SgRoot(text, language).root()
            key: _CacheKey = ("tree", path, language, 0)
            with self._lock:
                cached = self._get(key)
            if cached is not None:
                root = cached[0]
                assert isinstance(root, SgRoot)
                return root.root()
            root = SgRoot(text, language)
            with self._lock:
                if path in self._files:
                    self._put(key, root, TREE_BYTES_PER_SOURCE_BYTE * len(source.raw))
            return root.root()

        return parse

    def _query_id(self, query: Query) -> int:
        for index, (known, qid) in enumerate(self._queries):
            if known == query:
                self._queries.append(self._queries.pop(index))
                return qid
        qid = self._next_id = self._next_id + 1
        self._queries.append((query, qid))
        while len(self._queries) > RECENT_QUERIES:
            _, old = self._queries.pop(0)
            for key in [k for k in self._cache["answer"] if k[3] == old]:
                self._drop(key)
        return qid

    def _get(self, key: _CacheKey) -> tuple[object, int] | None:
        cache = self._cache[key[0]]
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
        return found

    def _put(self, key: _CacheKey, value: object, cost: int) -> None:
        kind = key[0]
        budget = self._budget(kind)
        if cost > budget:
            return
        cache = self._cache[kind]
        if key in cache:
            self._drop(key)
        cache[key] = (value, cost)
        self._keys.setdefault(key[1], set()).add(key)
        self._used[kind] += cost
        while self._used[kind] > budget:
            self._drop(next(iter(cache)))

    def _drop(self, key: _CacheKey) -> None:
        _, cost = self._cache[key[0]].pop(key)
        self._used[key[0]] -= cost
        keys = self._keys.get(key[1])
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._keys[key[1]]


def _unsearchable(entry: _Entry, path: Path, display: str) -> Outcome | None:
    if entry.kind == "empty":
        return None
    return Outcome(skipped=SkippedFile(path=path, file=display, reason=entry.reason))


def _answer_cost(answer: Outcome | None) -> int:
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


def parse_index_memory(value: object, where: str) -> int:
    """``index_memory`` from settings.toml: bytes (a whole number), or a string such as
    ``"256 MiB"`` (KiB, MiB, GiB).

    Raises:
        ValueError: anything else, with the message to show (naming ``where``).
    """
    units = {"": 1, "b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        number = text.rstrip("kmgib ")
        unit = text[len(number) :].strip()
        if number.isdigit() and unit in units:
            return int(number) * units[unit]
    raise ValueError(
        f"index_memory in {where} must be a number of bytes or a size such as "
        f'"256 MiB" (KiB, MiB, GiB; 0 keeps no trees), not {value!r}'
    )


__all__ = [
    "DEFAULT_INDEX_MEMORY",
    "RACY_NS",
    "TREE_BYTES_PER_SOURCE_BYTE",
    "Fingerprint",
    "WarmIndex",
    "parse_index_memory",
]
