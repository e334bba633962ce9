"""A warm session's structural index, which makes the next search over the same files cheap.

It is what one session (or MCP server) keeps between ``ast_grep``/``ast_edit`` calls.

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
words in :class:`~xcsh.structural.scan.warm_words.WordIndex`, so a search reads
only the files whose words can match. Kept up to ``index_memory`` bytes,
least recently used out: parsed syntax trees (three quarters, estimated at
:data:`TREE_BYTES_PER_SOURCE_BYTE` times the source) and the answer of
each file to the last :data:`RECENT_QUERIES` distinct queries (a quarter,
estimated by the size of their text).
"""

from __future__ import annotations

import enum
import hashlib
import os
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ast_grep_py import SgNode, SgRoot

from xcsh.fs import NotRegularFileError, read_regular_bytes
from xcsh.structural.base.matcher import Matcher
from xcsh.structural.base.results import SkippedFile
from xcsh.structural.matches.matching import Outcome, Query
from xcsh.structural.scan.embedded import hosts
from xcsh.structural.scan.per_file import Source, decode_source, scan_source
from xcsh.structural.scan.runner import PARALLEL_MIN_BYTES, PARALLEL_MIN_FILES, run_query
from xcsh.structural.scan.scope import Scope
from xcsh.structural.scan.warm_cache import (
    DEFAULT_INDEX_MEMORY,
    TREE_BYTES_PER_SOURCE_BYTE,
    BoundedCache,
    CacheKey,
    answer_cost,
    parse_index_memory,
)
from xcsh.structural.scan.warm_words import WordIndex, words_of

RECENT_QUERIES = 8
RACY_NS = 2_000_000_000
"""A file modified (or its inode changed) this close to the moment it was read may change
again without its times changing: it is read again next time."""


class _Miss(enum.Enum):
    """A file the index cannot answer for: it is read."""

    MISS = 0


_MISS = _Miss.MISS

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
        """Take the fingerprint of a file from its ``stat`` result."""
        return cls(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)

    def settled(self, now: int) -> bool:
        """Tell whether the file's times were more than :data:`RACY_NS` older than ``now``.

        ``now`` is in nanoseconds. When they were, a change within the same timestamp
        tick cannot hide behind them.
        """
        return now - max(self.mtime_ns, self.ctime_ns) > RACY_NS


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
        self._cache = BoundedCache(memory)
        self._queries: list[tuple[Query, int]] = []

    @property
    def used(self) -> int:
        """Estimated bytes of the trees and answers held."""
        return self._cache.used

    def run(
        self,
        query: Query,
        scope: Scope,
        progress: Callable[[int, int], None] | None,
        workers: int | None = None,
    ) -> Iterator[Outcome | None]:
        """Yield one outcome per file of ``scope``, from the index where the file is unchanged.

        The outcomes are those of :func:`~xcsh.structural.scan.runner.run_query`.

        The other files are read and scanned here, keeping their trees; when they
        are many (a first search), on the scan pool as a cold search would, each
        answer kept only if the file read here afterwards is the one the walk saw.
        """
        now = time.time_ns()
        with self._lock:
            qid = self._query_id(query)
            allowed = {name: self._allowed(unit.patterns) for name, unit in query.languages.items()}
        stats = scope.stats if len(scope.stats) == len(scope.files) else [None] * len(scope.files)
        prints = [Fingerprint.of(info) if info is not None else None for info in stats]
        known = [
            self._known(query, qid, allowed, item, fingerprint)
            for item, fingerprint in zip(scope.files, prints, strict=True)
        ]
        misses = [index for index, answer in enumerate(known) if answer is _MISS]
        pooled = self._pooled(query, qid, scope, misses, prints, now, workers)
        total = len(scope.files)
        try:
            for done, (item, fingerprint, answer) in enumerate(
                zip(scope.files, prints, known, strict=True), 1
            ):
                if answer is _MISS:
                    answer = (
                        next(pooled)
                        if pooled is not None
                        else self._read_and_scan(query, qid, item, fingerprint, now)
                    )
                yield answer
                if progress is not None:
                    progress(done, total)
        finally:
            if pooled is not None:
                pooled.close()

    def _known(
        self,
        query: Query,
        qid: int,
        allowed: dict[str, frozenset[int] | None],
        item: tuple[Path, str, str],
        fingerprint: Fingerprint | None,
    ) -> Outcome | _Miss | None:
        """The outcome of an unchanged file from the index, or :data:`_MISS`."""
        path, display, language = item
        with self._lock:
            entry = self._files.get(path)
            if entry is None or not entry.trusted or entry.fingerprint != fingerprint:
                return _MISS
            if entry.kind != "text":
                return _unsearchable(entry, path, display)
            cached = self._cache.answer(("answer", path, language, qid))
            if cached is not None:
                return cached[0]
            if entry.words >= 0 and not self._may_match(query, allowed, entry, language):
                return None
        return _MISS

    def _pooled(
        self,
        query: Query,
        qid: int,
        scope: Scope,
        misses: list[int],
        prints: list[Fingerprint | None],
        now: int,
        workers: int | None,
    ) -> Generator[Outcome | None, None, None] | None:
        """Scan the files ``misses`` (indexes into ``scope.files``) on the scan pool.

        ``None`` when they are too few to share.
        """
        count = workers if workers is not None else min(2, os.cpu_count() or 1)
        known = len(scope.sizes) == len(scope.files)
        sizes = [scope.sizes[i] if known else 0 for i in misses]
        if count <= 1 or len(misses) < PARALLEL_MIN_FILES or sum(sizes) < PARALLEL_MIN_BYTES:
            return None
        part = Scope(
            root=scope.root,
            files=[scope.files[i] for i in misses],
            sizes=sizes,
            total_bytes=sum(sizes),
        )
        return self._adopted(query, qid, part, [prints[i] for i in misses], now, count)

    def _adopted(
        self,
        query: Query,
        qid: int,
        part: Scope,
        prints: list[Fingerprint | None],
        now: int,
        workers: int,
    ) -> Generator[Outcome | None, None, None]:
        outcomes = run_query(query, part, None, workers)
        try:
            for item, fingerprint, outcome in zip(part.files, prints, outcomes, strict=True):
                if self._settle(query, qid, item, fingerprint, now, outcome):
                    yield outcome
                else:
                    yield self._read_and_scan(query, qid, item, fingerprint, now)
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()

    def _settle(
        self,
        query: Query,
        qid: int,
        item: tuple[Path, str, str],
        fingerprint: Fingerprint | None,
        now: int,
        outcome: Outcome | None,
    ) -> bool:
        """Record a worker's ``outcome`` for a file, if it is provably the file the walk saw.

        It is when its fingerprint is old and the same after this read; ``False`` when
        nothing was recorded.
        """
        path, display, language = item
        if fingerprint is None or not fingerprint.settled(now):
            return False
        try:
            raw = read_regular_bytes(path)
            after = Fingerprint.of(os.stat(path))
        except (NotRegularFileError, OSError):
            return False
        if after != fingerprint:
            return False
        source = decode_source(raw, path, display)
        with self._lock:
            self._record(path, raw, source, fingerprint, True)
            if query.records is None and any(q == qid for _, q in self._queries):
                self._cache.put(("answer", path, language, qid), outcome, answer_cost(outcome))
        return True

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
        trusted = fingerprint is not None and fingerprint.settled(now)
        key: CacheKey = ("answer", path, language, qid)
        with self._lock:
            entry = self._record(path, raw, source, fingerprint, trusted)
            if not isinstance(source, Source):
                return source
            cached = self._cache.answer(key)
            if cached is not None:
                return cached[0]
        answer = scan_source(query, source, path, display, language, self._parser(path, source))
        if query.records is None:
            with self._lock:
                if self._files.get(path) is entry and any(q == qid for _, q in self._queries):
                    self._cache.put(key, answer, answer_cost(answer))
        return answer

    def _record(
        self,
        path: Path,
        raw: bytes,
        source: Source | Outcome | None,
        fingerprint: Fingerprint | None,
        trusted: bool,
    ) -> _Entry:
        """Give the entry of ``path`` read as ``raw``.

        The known entry when the bytes are the same (its trees and answers hold), else a
        new one.
        """
        digest = hashlib.blake2b(raw, digest_size=16).digest()
        entry = self._files.get(path)
        if entry is None or entry.digest != digest:
            return self._remember(path, raw, source, digest, fingerprint, trusted)
        entry.fingerprint, entry.trusted = fingerprint, trusted
        if entry.words < 0 and entry.kind == "text":  # the word index was dropped
            words = words_of(raw)
            self._words.add(entry.file_id, words)
            entry.words = len(words)
        return entry

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
        self._cache.forget_path(path)
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

    def _allowed(self, patterns: tuple[Matcher | None, ...]) -> frozenset[int] | None:
        """Ids of the files where one of ``patterns`` may match (``None``: any file)."""
        union: set[int] = set()
        for pattern in patterns:
            if pattern is None:
                continue
            ids = self._words.files_meeting(pattern.required)
            if ids is None:
                return None
            union |= ids
        return frozenset(union)

    def _parser(self, path: Path, source: Source) -> Callable[[str, str], SgNode]:
        def parse(text: str, language: str) -> SgNode:
            if text is not source.text or self.memory <= 0:
                return SgRoot(text, language).root()
            key: CacheKey = ("tree", path, language, 0)
            with self._lock:
                cached = self._cache.get(key)
            if cached is not None:
                root = cached[0]
                assert isinstance(root, SgRoot)
                return root.root()
            root = SgRoot(text, language)
            with self._lock:
                if path in self._files:
                    self._cache.put(key, root, TREE_BYTES_PER_SOURCE_BYTE * len(source.raw))
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
            self._cache.forget_query(old)
        return qid


def _unsearchable(entry: _Entry, path: Path, display: str) -> Outcome | None:
    if entry.kind == "empty":
        return None
    return Outcome(skipped=SkippedFile(path=path, file=display, reason=entry.reason))


__all__ = [
    "DEFAULT_INDEX_MEMORY",
    "RACY_NS",
    "TREE_BYTES_PER_SOURCE_BYTE",
    "Fingerprint",
    "WarmIndex",
    "parse_index_memory",
]
