"""The journal's records on disk: intent records, their outcome, and the index.

An entry ``<seq>`` is two files in ``entries/``:

- ``000007.json``, the **intent record**, written (fsynced) before the first
  byte reaches the workspace::

    {"version": 2, "seq": 7, "kind": "apply", "undoes": null,
     "created": "2026-11-29T23:10:00Z", "root": "/abs/folder", "pid": 4242,
     "label": "AST Edit: 1 replacement in 1 file", "source_tool_name": "ast_edit",
     "after_known": true,
     "files": [{"path": "src/a.py", "before": "<sha256>", "after": "<sha256>", "mode": 420}]}

  ``before``/``after`` are ``null`` for a file that did not exist on that
  side; the before contents are in the blob store under their hashes (the
  after content is recognised by its hash: it is in the files themselves). ``kind`` is
  ``"undo"`` for an undo, with ``undoes`` naming the entry it undid, and
  ``"rewind"`` for a rewind of an agent session's files, with ``"rewind":
  {"message": 3, "conversation": true, "entries": [8, 9]}`` (back to just
  before the session's user message 3; whether its conversation is rewound
  too; the entries whose every file it put back). An entry written for an
  agent session carries ``"session": "<id>"``; both keys are left out
  otherwise. ``kind`` ``"bash"`` records what one ``bash`` command changed
  (its command line is the label), with ``"bash": {"exit_code": 0,
  "ignored": 3, "not_recorded": ["big.bin"]}`` (the command's exit code, how
  many ignored paths it touched, the files it changed that were not recorded),
  and ``"not_kept": [...]`` when it changed files whose earlier bytes the
  session had not read yet (its first look was under way).

  Version 3 adds, per file and only when they apply: ``"after_mode"`` (the
  permission bits after, for a change of mode), ``"link_before"`` /
  ``"link_after"`` (that side is a symlink; its hash is then the hash of the
  link's target). A record that uses none of them is written as version 2,
  which every earlier xcsh reads.
  ``after_known`` is false for a custom tool's apply, whose result is only
  known once it ran; its ``after`` hashes are then in the outcome record.
- ``000007.state``, the **outcome record** (its presence is the commit
  point): ``{"state": "committed"}`` or ``{"state": "rolled back"}``, plus
  ``"after": {path: sha256}`` when ``after_known`` was false. An intent
  record without an outcome record is an incomplete entry: the process
  died (or is still running, which its lock on the intent record shows).

``index.json`` summarises every entry (one small object each) so that
listing never reads the intent records; it is rebuilt from them when it is
missing or behind.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from xcsh.core.json_read import loads as bounded_json

if TYPE_CHECKING:
    from xcsh.core import JsonObject

SCHEMA_VERSION = 3
"""The newest record version this xcsh writes (and the index's); it reads 2 and 3."""
BASE_VERSION = 2
"""The version of a record that uses no version-3 field (earlier xcsh read it)."""
_READABLE = (BASE_VERSION, SCHEMA_VERSION)
COMMITTED = "committed"
ROLLED_BACK = "rolled back"

Kind = Literal["apply", "undo", "rewind", "bash"]


@dataclass(frozen=True, kw_only=True)
class BashNote:
    """What a ``bash`` entry says beside its files.

    Args:
        exit_code: the command's exit code (``None`` when it was ended, or for
            changes found after it, made by what it left running).
        ignored: how many paths ignored by the workspace's ignore rules it touched
            (not recorded).
        not_recorded: files it changed that are not recorded (over the size cap).
        not_kept: files it changed or deleted whose earlier bytes were not kept (the
            session's first look at the workspace had not read them yet): undo
            cannot put them back.
        created_folders: recorded folders that were not there before it (``mkdir -p
            gen/out``: ``gen``, ``gen/out``): undo and rewind remove those left empty.
    """

    exit_code: int | None = None
    ignored: int = 0
    not_recorded: tuple[str, ...] = ()
    not_kept: tuple[str, ...] = ()
    created_folders: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        """The ``"bash"`` value of the intent record (empty lists left out but one)."""
        out: JsonObject = {
            "exit_code": self.exit_code,
            "ignored": self.ignored,
            "not_recorded": list(self.not_recorded),
        }
        if self.not_kept:
            out["not_kept"] = list(self.not_kept)
        if self.created_folders:
            out["created_folders"] = list(self.created_folders)
        return out

    @classmethod
    def from_json(cls, data: object) -> BashNote | None:
        """The note from its JSON, ``None`` when absent or malformed."""
        if not isinstance(data, Mapping):
            return None
        try:
            code = data.get("exit_code")
            return cls(
                exit_code=int(code) if code is not None else None,
                ignored=int(data.get("ignored", 0)),
                not_recorded=tuple(str(p) for p in data.get("not_recorded", [])),
                not_kept=tuple(str(p) for p in data.get("not_kept", [])),
                created_folders=tuple(str(p) for p in data.get("created_folders", [])),
            )
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True, kw_only=True)
class RewindNote:
    """What a ``rewind`` entry did, beside its files.

    Args:
        message: the session's user message it went back to (just before it; 1 = the first).
        conversation: the session's conversation is rewound too (its session file
            gets a ``rewind`` record once this entry is committed).
        entries: the entries whose every file this rewind put back (they count as undone).
    """

    message: int
    conversation: bool
    entries: tuple[int, ...] = ()

    def to_json(self) -> JsonObject:
        """The ``"rewind"`` value of the intent record."""
        return {
            "message": self.message,
            "conversation": self.conversation,
            "entries": list(self.entries),
        }

    @classmethod
    def from_json(cls, data: object) -> RewindNote | None:
        """The note from its JSON, ``None`` when absent or malformed."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(
                message=int(data["message"]),
                conversation=bool(data.get("conversation", False)),
                entries=tuple(int(e) for e in data.get("entries", [])),
            )
        except (KeyError, TypeError, ValueError):
            return None


@dataclass(frozen=True, kw_only=True)
class FileRecord:
    """One file of an entry.

    Args:
        path: relative to the entry's root, ``/`` separators, no symlink on the way.
        before: sha256 of its content before, ``None`` when it did not exist.
        after: sha256 after, ``None`` when removed (or not known yet, see ``after_known``).
        mode: its permission bits before (to re-create it), ``None`` when it did not exist.
        after_mode: its permission bits after, when the change sets them (``None``:
            not recorded; the file kept its own).
        link_before: it was a symlink before (``before`` hashes its target).
        link_after: it is a symlink after (``after`` hashes its target).
    """

    path: str
    before: str | None
    after: str | None
    mode: int | None = None
    after_mode: int | None = None
    link_before: bool = False
    link_after: bool = False

    @property
    def uses_v3(self) -> bool:
        """True when this file needs a version-3 record (a mode change or a symlink)."""
        return self.after_mode is not None or self.link_before or self.link_after

    def to_json(self) -> JsonObject:
        """This file as the intent record holds it."""
        out: JsonObject = {
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "mode": self.mode,
        }
        if self.after_mode is not None:
            out["after_mode"] = self.after_mode
        if self.link_before:
            out["link_before"] = True
        if self.link_after:
            out["link_after"] = True
        return out


@dataclass(frozen=True, kw_only=True)
class EntryRecord:
    """An intent record, with its outcome once known.

    Args:
        seq: its number (1-based, increasing, never reused).
        kind: ``"apply"`` or ``"undo"``.
        undoes: for an undo, the entry it undid.
        root: the absolute folder the paths are relative to.
        label: the pending action's label (or ``"Undo: <label>"``).
        source_tool_name: the tool that produced it (``"ast_edit"``, ``"write"``...).
        created: UTC time, ISO 8601.
        pid: the process that wrote it.
        after_known: the ``after`` hashes were known before the writes.
        files: the files, in apply order.
        state: ``"committed"``, ``"rolled back"``, or ``None`` while incomplete.
        session: the agent session it was written for, ``None`` outside one.
        rewind: for a ``rewind`` entry, what it did.
        bash: for a ``bash`` entry, what it says beside its files.
    """

    seq: int
    kind: Kind
    undoes: int | None
    root: Path
    label: str
    source_tool_name: str
    created: str
    pid: int
    after_known: bool
    files: tuple[FileRecord, ...]
    state: str | None = None
    session: str | None = None
    rewind: RewindNote | None = None
    bash: BashNote | None = None

    @property
    def name(self) -> str:
        """``000007``: the file name stem of its records."""
        return f"{self.seq:06d}"

    def intent_json(self) -> JsonObject:
        """The intent record as written."""
        extra: JsonObject = {}
        if self.session is not None:
            extra["session"] = self.session
        if self.rewind is not None:
            extra["rewind"] = self.rewind.to_json()
        if self.bash is not None:
            extra["bash"] = self.bash.to_json()
        newer = self.kind == "bash" or any(f.uses_v3 for f in self.files)
        return {
            "version": SCHEMA_VERSION if newer else BASE_VERSION,
            "seq": self.seq,
            "kind": self.kind,
            "undoes": self.undoes,
            "created": self.created,
            "root": str(self.root),
            "pid": self.pid,
            "label": self.label,
            "source_tool_name": self.source_tool_name,
            "after_known": self.after_known,
            "files": [f.to_json() for f in self.files],
            **extra,
        }

    def with_outcome(self, state: str, after: Mapping[str, str | None] | None) -> EntryRecord:
        """This entry with its outcome (and, for a custom apply, the after hashes)."""
        files = self.files
        if after is not None:
            files = tuple(replace(f, after=after.get(f.path, f.after)) for f in files)
        return replace(self, state=state, files=files)


def parse_intent(data: object) -> EntryRecord | None:
    """An intent record from its JSON, ``None`` when it is not one this version reads."""
    if not isinstance(data, Mapping) or data.get("version") not in _READABLE:
        return None
    try:
        kind = _kind(data["kind"])
        if kind is None:
            return None
        undoes = data.get("undoes")
        session = data.get("session")
        return EntryRecord(
            seq=int(data["seq"]),
            kind=kind,
            undoes=int(undoes) if undoes is not None else None,
            root=Path(str(data["root"])),
            label=str(data["label"]),
            source_tool_name=str(data.get("source_tool_name", "")),
            created=str(data.get("created", "")),
            pid=int(data.get("pid", 0)),
            after_known=bool(data.get("after_known", True)),
            files=tuple(
                FileRecord(
                    path=str(f["path"]),
                    before=_digest(f.get("before")),
                    after=_digest(f.get("after")),
                    mode=int(f["mode"]) if f.get("mode") is not None else None,
                    after_mode=int(f["after_mode"]) if f.get("after_mode") is not None else None,
                    link_before=bool(f.get("link_before", False)),
                    link_after=bool(f.get("link_after", False)),
                )
                for f in data["files"]
            ),
            session=str(session) if session is not None else None,
            rewind=RewindNote.from_json(data.get("rewind")),
            bash=BashNote.from_json(data.get("bash")),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _kind(value: object) -> Kind | None:
    text = str(value)
    if text == "apply":
        return "apply"
    if text == "undo":
        return "undo"
    if text == "rewind":
        return "rewind"
    if text == "bash":
        return "bash"
    return None


def parse_outcome(data: object) -> tuple[str, dict[str, str | None] | None] | None:
    """``(state, after hashes or None)`` from an outcome record's JSON."""
    if not isinstance(data, Mapping) or data.get("state") not in (COMMITTED, ROLLED_BACK):
        return None
    after = data.get("after")
    if isinstance(after, Mapping):
        return str(data["state"]), {str(k): _digest(v) for k, v in after.items()}
    return str(data["state"]), None


def _digest(value: object) -> str | None:
    if value is None:
        return None
    text = str(value)
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"not a sha256: {text!r}")
    return text


@dataclass(frozen=True, kw_only=True)
class EntrySummary:
    """One line of the index: what listing and choosing an entry need.

    Args:
        seq, kind, undoes, label, source_tool_name, created, state: as the entry.
        paths: the first few file paths (``count`` says how many there are).
        count: how many files the entry names.
        bytes: bytes of journal storage this entry added (new blobs).
        session: the agent session it was written for, ``None`` outside one.
        rewinds: for a ``rewind`` entry, the entries whose every file it put back.
    """

    seq: int
    kind: Kind
    undoes: int | None
    label: str
    source_tool_name: str
    created: str
    state: str | None
    paths: tuple[str, ...]
    count: int
    bytes: int
    session: str | None = None
    rewinds: tuple[int, ...] = ()

    @classmethod
    def of(cls, entry: EntryRecord, added_bytes: int) -> EntrySummary:
        """The summary of ``entry``."""
        return cls(
            seq=entry.seq,
            kind=entry.kind,
            undoes=entry.undoes,
            label=entry.label,
            source_tool_name=entry.source_tool_name,
            created=entry.created,
            state=entry.state,
            paths=tuple(f.path for f in entry.files[:INDEX_PATHS]),
            count=len(entry.files),
            bytes=added_bytes,
            session=entry.session,
            rewinds=entry.rewind.entries if entry.rewind is not None else (),
        )


INDEX_PATHS = 5
"""How many paths of each entry the index keeps (for listings)."""


def dump_index(summaries: Sequence[EntrySummary]) -> bytes:
    """The index file's bytes."""
    items = [
        {
            "seq": s.seq,
            "kind": s.kind,
            "undoes": s.undoes,
            "label": s.label,
            "source_tool_name": s.source_tool_name,
            "created": s.created,
            "state": s.state,
            "paths": list(s.paths),
            "count": s.count,
            "bytes": s.bytes,
            "session": s.session,
            "rewinds": list(s.rewinds),
        }
        for s in summaries
    ]
    return (json.dumps({"version": SCHEMA_VERSION, "entries": items}) + "\n").encode("utf-8")


def load_index(path: Path) -> list[EntrySummary] | None:
    """The index, ``None`` when it is missing, unreadable or of another version."""
    try:
        data = bounded_json(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, Mapping) or data.get("version") != SCHEMA_VERSION:
        return None
    out = []
    try:
        for item in data["entries"]:
            kind = _kind(item["kind"])
            if kind is None:
                continue
            session = item.get("session")
            out.append(
                EntrySummary(
                    seq=int(item["seq"]),
                    kind=kind,
                    undoes=int(item["undoes"]) if item.get("undoes") is not None else None,
                    label=str(item["label"]),
                    source_tool_name=str(item.get("source_tool_name", "")),
                    created=str(item.get("created", "")),
                    state=str(item["state"]) if item.get("state") is not None else None,
                    paths=tuple(str(p) for p in item.get("paths", [])),
                    count=int(item.get("count", 0)),
                    bytes=int(item.get("bytes", 0)),
                    session=str(session) if session is not None else None,
                    rewinds=tuple(int(e) for e in item.get("rewinds", [])),
                )
            )
    except (KeyError, TypeError, ValueError):
        return None
    return out
