"""The word index of a warm session: which files hold which identifiers.

A file's *words* are its maximal runs of identifier bytes (ASCII letters,
digits, ``_``, and every byte of a multi-byte UTF-8 character). A search's
pre-filter asks whether a file holds a token (``Popen``, ``==``, a rule's
regex literal) as bytes; every word run inside such a token then lies inside
one word of the file, so "some word of the file contains each run of the
token" is a sound test, answered from the index without reading the file.
Tokens without a word run (``==``, ``(``) rule nothing out.

The index is append-only: a file that changed gets a new id and its old
postings become dead; when dead postings outnumber live ones the whole index
is dropped, and files are tokenized again as they are next read.
"""

from __future__ import annotations

from collections.abc import Iterable

_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") | frozenset(
    range(128, 256)
)
_TABLE = bytes(b if b in _WORD else 0x20 for b in range(256))
_MAX_WORDS_PER_RUN = 4096
"""A token run found inside more words than this (``a``, ``_``) is not worth the lookup:
it rules nothing out."""
_RUN_CACHE = 512

Clause = tuple[bytes, ...]
Requirement = tuple[Clause, ...]


def words_of(raw: bytes) -> set[bytes]:
    """The distinct words of ``raw``."""
    return set(raw.translate(_TABLE).split())


def runs_of(token: bytes) -> list[bytes]:
    """The word runs inside ``token``."""
    return token.translate(_TABLE).split()


class WordIndex:
    """Postings ``word -> file ids`` (ids never reused; stale ones are dead)."""

    def __init__(self) -> None:
        self._postings: dict[bytes, list[int]] = {}
        self._runs: dict[bytes, frozenset[int] | None] = {}
        self._live = 0
        self._dead = 0

    @property
    def postings(self) -> int:
        """Live postings held (one per distinct word of each indexed file)."""
        return self._live

    def add(self, file_id: int, words: Iterable[bytes]) -> None:
        """Index the words of the file ``file_id``."""
        grew = False
        count = 0
        for word in words:
            found = self._postings.get(word)
            if found is None:
                self._postings[word] = [file_id]
                grew = True
            else:
                found.append(file_id)
            count += 1
        self._live += count
        if grew:
            self._runs.clear()  # a new word may hold a run looked up before

    def retire(self, words_held: int) -> bool:
        """Count ``words_held`` postings of a changed or gone file as dead.

        ``True`` when the index should be dropped: dead postings outnumber live ones (and
        100,000).
        """
        self._live -= words_held
        self._dead += words_held
        return self._dead > max(self._live, 100_000)

    def files_with_run(self, run: bytes) -> frozenset[int] | None:
        """Find the ids of the files holding a word that contains ``run``.

        ``None`` when the run is too common to rule anything out.
        """
        if run in self._runs:
            return self._runs[run]
        words = [w for w in self._postings if run in w]
        found: frozenset[int] | None = None
        if len(words) <= _MAX_WORDS_PER_RUN:
            ids: set[int] = set()
            for word in words:
                ids.update(self._postings[word])
            found = frozenset(ids)
        if len(self._runs) >= _RUN_CACHE:
            self._runs.clear()
        self._runs[run] = found
        return found

    def files_with_token(self, token: bytes) -> frozenset[int] | None:
        """Ids of the files that may hold ``token`` (``None``: any file may)."""
        allowed: frozenset[int] | None = None
        for run in runs_of(token):
            ids = self.files_with_run(run)
            if ids is not None:
                allowed = ids if allowed is None else allowed & ids
        return allowed

    def files_meeting(self, requirement: Requirement) -> frozenset[int] | None:
        """Find the ids of the files that may satisfy ``requirement``.

        A file satisfies a clause when it holds one of its alternatives; ``None`` when
        any file may.
        """
        allowed: frozenset[int] | None = None
        for clause in requirement:
            union: set[int] = set()
            for alternative in clause:
                ids = self.files_with_token(alternative)
                if ids is None:
                    union = set()
                    break
                union |= ids
            else:
                frozen = frozenset(union)
                allowed = frozen if allowed is None else allowed & frozen
        return allowed
