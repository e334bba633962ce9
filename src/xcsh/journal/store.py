"""The undo journal on disk: one JSON file per applied action.

A journal is a folder (``$XCSH_HOME/sessions/<id>/journal/`` for an
interactive session, ``$XCSH_HOME/journal/ast-edit/`` for ``xcsh ast-edit``)
holding ``<seq>.json`` files, numbered from ``000001`` up. Each file carries
the schema version and the exact bytes of every file the apply wrote,
before and after::

    {"version": 1, "seq": 3, "created": "2026-11-29T23:10:00Z", "root": "/abs/folder",
     "label": "AST Edit: 1 replacement in 1 file", "source_tool_name": "ast_edit",
     "undone": false,
     "files": [{"path": "src/a.py", "before": "<base64>", "after": "<base64>",
                "before_sha256": "...", "after_sha256": "..."}]}

``before``/``after`` are ``null`` when the file did not exist on that side.
Undo restores the ``before`` bytes only if every file still holds exactly the
``after`` bytes (sha256 compare); otherwise it refuses and names the files.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xcsh.core import XcshError
from xcsh.fs import FileWriteError, atomic_write

SCHEMA_VERSION = 1


class UndoError(XcshError):
    """Undo could not run; nothing was restored. The message says why."""


class NothingToUndo(UndoError):
    """The journal holds no applied action that is not undone yet."""


class UndoRefused(UndoError):
    """A file changed since the apply wrote it (or could not be read back).

    Attributes:
        files: the paths (relative to the entry's root) that block the undo.
    """

    def __init__(self, message: str, *, files: list[str]) -> None:
        super().__init__(message)
        self.files = files


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file's bytes around an apply.

    Args:
        path: the file, relative to the entry's root (as the tool reported it).
        before: its bytes before the apply, ``None`` if it did not exist.
        after: its bytes after the apply, ``None`` if the apply removed it.
    """

    path: str
    before: bytes | None
    after: bytes | None


@dataclass(frozen=True, kw_only=True)
class JournalEntry:
    """One applied action as recorded.

    Args:
        seq: its number in the journal (1-based, increasing).
        path: the entry's JSON file.
        root: the absolute folder the file paths are relative to.
        label: the pending action's label.
        source_tool_name: the tool that produced it.
        created: UTC time of the apply, ISO 8601.
        undone: it was undone already.
        files: the changed files, in apply order.
    """

    seq: int
    path: Path
    root: Path
    label: str
    source_tool_name: str
    created: str
    undone: bool
    files: tuple[FileChange, ...]


@dataclass(frozen=True, kw_only=True)
class UndoOutcome:
    """What an undo did.

    Args:
        entry: the entry undone (now marked ``undone``).
        restored: the paths whose previous bytes were written back (or removed).
    """

    entry: JournalEntry
    restored: list[str]

    @property
    def message(self) -> str:
        """``Undid '<label>': restored a.py, b.py.``"""
        return f"Undid '{self.entry.label}': restored {', '.join(self.restored)}."


def sha256(data: bytes | None) -> str | None:
    """Hex sha256 of ``data``, ``None`` for a missing file."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, ``None`` when it does not exist.

    Raises:
        OSError: it exists but cannot be read (a folder, no permission).
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def snapshot(root: Path, paths: Iterable[str]) -> dict[str, bytes | None]:
    """The current bytes of ``paths`` (relative to ``root``), ``None`` for missing files.

    Raises:
        OSError: a file exists but cannot be read.
    """
    return {p: read_bytes(root / p) for p in dict.fromkeys(paths)}


class Journal:
    """The journal in one folder (created on the first record).

    Args:
        folder: where the ``<seq>.json`` files live.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def entries(self) -> list[JournalEntry]:
        """Every readable entry, oldest first (unreadable or newer-format files are skipped)."""
        if not self.folder.is_dir():
            return []
        out = []
        for path in sorted(self.folder.glob("*.json")):
            entry = _load(path)
            if entry is not None:
                out.append(entry)
        return sorted(out, key=lambda e: e.seq)

    def last_applied(self) -> JournalEntry | None:
        """The newest entry not undone yet, or ``None``."""
        live = [e for e in self.entries() if not e.undone]
        return live[-1] if live else None

    def record_apply(
        self,
        *,
        root: Path,
        label: str,
        source_tool_name: str,
        changes: Iterable[FileChange],
    ) -> JournalEntry | None:
        """Record one applied action; files whose bytes did not change are left out.

        Args:
            root: the folder ``changes`` paths are relative to (made absolute).
            label: the action's label (``"AST Edit: 1 replacement in 1 file"``).
            source_tool_name: the tool that produced it.
            changes: each file's bytes before and after the apply.

        Returns:
            The new entry, or ``None`` when no file changed (nothing to record).

        Raises:
            FileWriteError: the journal file could not be written.
        """
        kept = [c for c in changes if c.before != c.after]
        if not kept:
            return None
        entries = self.entries()
        seq = (entries[-1].seq + 1) if entries else 1
        self.folder.mkdir(parents=True, exist_ok=True)
        entry = JournalEntry(
            seq=seq,
            path=self.folder / f"{seq:06d}.json",
            root=root.resolve(),
            label=label,
            source_tool_name=source_tool_name,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            undone=False,
            files=tuple(kept),
        )
        _save(entry)
        return entry

    def undo_last(self, *, root: Path | None = None) -> UndoOutcome:
        """Restore the files of the newest applied action, if they are as it left them.

        Every file is checked first (its sha256 must equal what the apply
        wrote); only then is each written back atomically, or removed when
        the apply had created it. If a write fails, the files already
        restored get the applied bytes back. The entry is then marked undone,
        so the next call undoes the action before it.

        Args:
            root: only consider entries recorded for this folder.

        Returns:
            The entry undone and the files restored.

        Raises:
            NothingToUndo: no applied action left (for ``root``).
            UndoRefused: a file changed since the apply; nothing was restored.
            UndoError: writing back failed (earlier files put back as applied).
        """
        candidates = [e for e in self.entries() if not e.undone]
        if root is not None:
            want = root.resolve()
            candidates = [e for e in candidates if e.root == want]
        if not candidates:
            where = f" for {root}" if root is not None else ""
            raise NothingToUndo(f"Nothing to undo: no applied change is recorded{where}.")
        entry = candidates[-1]
        changed = []
        for change in entry.files:
            try:
                now = read_bytes(entry.root / change.path)
            except OSError:
                changed.append(change.path)
                continue
            if sha256(now) != sha256(change.after):
                changed.append(change.path)
        if changed:
            raise UndoRefused(
                f"Cannot undo '{entry.label}': these files changed since it was applied: "
                f"{', '.join(changed)}. Nothing was restored.",
                files=changed,
            )
        done: list[FileChange] = []
        for change in entry.files:
            try:
                _put(entry.root / change.path, change.before)
            except OSError as exc:
                for back in reversed(done):
                    with contextlib.suppress(OSError):
                        _put(entry.root / back.path, back.after)
                raise UndoError(
                    f"Cannot undo '{entry.label}': writing {change.path} failed ({exc}); "
                    "the files already restored were put back as applied."
                ) from exc
            done.append(change)
        undone = JournalEntry(**{**entry.__dict__, "undone": True})
        _save(undone)
        return UndoOutcome(entry=undone, restored=[c.path for c in entry.files])


def _put(path: Path, data: bytes | None) -> None:
    if data is None:
        path.unlink(missing_ok=True)
        return
    try:
        atomic_write(path, data)
    except FileWriteError as exc:
        raise OSError(str(exc)) from exc


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes | None:
    return None if text is None else base64.b64decode(str(text))


def _save(entry: JournalEntry) -> None:
    record = {
        "version": SCHEMA_VERSION,
        "seq": entry.seq,
        "created": entry.created,
        "root": str(entry.root),
        "label": entry.label,
        "source_tool_name": entry.source_tool_name,
        "undone": entry.undone,
        "files": [
            {
                "path": c.path,
                "before": _b64(c.before),
                "after": _b64(c.after),
                "before_sha256": sha256(c.before),
                "after_sha256": sha256(c.after),
            }
            for c in entry.files
        ],
    }
    atomic_write(entry.path, (json.dumps(record, indent=1) + "\n").encode("utf-8"))


def _load(path: Path) -> JournalEntry | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, Mapping) or data.get("version") != SCHEMA_VERSION:
        return None
    try:
        return JournalEntry(
            seq=int(data["seq"]),
            path=path,
            root=Path(data["root"]),
            label=str(data["label"]),
            source_tool_name=str(data.get("source_tool_name", "")),
            created=str(data.get("created", "")),
            undone=bool(data.get("undone", False)),
            files=tuple(
                FileChange(
                    path=str(f["path"]), before=_unb64(f["before"]), after=_unb64(f["after"])
                )
                for f in data["files"]
            ),
        )
    except (KeyError, TypeError, ValueError):
        return None
