"""Recording what each ``bash`` command changed, as one undo journal entry of kind ``bash``.

A command writes the workspace itself, so its record is taken around it:

1. **before** the command, :meth:`CommandRecorder.before` brings the tree up to
   date (what the kernel's watch says was touched since the last look, else a
   walk): whatever changed in between is someone else's (an editor, xcsh's own
   ``write``), so it is only taken in; when the last command left processes
   running in the background, their changes are recorded as an entry of their
   own, labelled with that command;
2. the command runs, as before;
3. **after** it, :meth:`CommandRecorder.after` looks again: each file created,
   changed (content, mode, symlink target) or deleted becomes one file of a
   ``bash`` entry labelled with the command line, its earlier bytes taken from
   the shadow (:mod:`xcsh.journal.commands.shadow`). The entry's intent record
   is fsynced with those bytes, then committed; a crash in between leaves an
   incomplete entry that recovery completes (the files are the command's own).

The first look in a workspace (:meth:`CommandRecorder.start`, in the background
from the moment the session opens) reads every recorded file once; later
sessions re-read only files whose fingerprint changed (the shadow's manifest).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import UsageError
from xcsh.core.wording import name_list, plural
from xcsh.journal.commands.notify import Watch, open_watch
from xcsh.journal.commands.shadow import Shadow
from xcsh.journal.commands.tree import Difference, Sync, Tree
from xcsh.journal.records import COMMITTED, BashNote, FileRecord
from xcsh.journal.store import Journal, JournalError

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
SAVE_EVERY = 10.0
"""Seconds between two saves of the shadow's manifest (after the first look, always)."""


@dataclass(frozen=True, kw_only=True)
class BashRecording:
    """How ``bash`` commands are recorded (setting ``bash_record_max_bytes``).

    Args:
        max_bytes: a file larger than this is not recorded (named in the result).
    """

    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def from_settings(cls, settings: Mapping[str, object], where: Path) -> BashRecording:
        """The recording ``settings`` (settings.toml's values) ask for; the default when unset.

        Raises:
            UsageError: the value is not a whole number of at least 0 (naming ``where``).
        """
        value = settings.get("bash_record_max_bytes", DEFAULT_MAX_BYTES)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise UsageError(
                f"bash_record_max_bytes in {where} must be a whole number of bytes, not {value!r}",
                hint=f"write for instance bash_record_max_bytes = {DEFAULT_MAX_BYTES} (64 MiB)",
            )
        return cls(max_bytes=value)


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """What recording one command (or its background processes) did.

    Args:
        seq: the journal entry written, ``None`` when nothing was recorded.
        files: the files recorded (created, changed or deleted).
        ignored: ignored paths it touched (not recorded).
        not_recorded: files it changed that could not be recorded (over the size
            cap, or their earlier bytes were not kept).
        problem: why nothing could be recorded (the journal could not be written).
    """

    seq: int | None = None
    files: tuple[str, ...] = ()
    ignored: int = 0
    not_recorded: tuple[str, ...] = ()
    problem: str = ""


class CommandRecorder:
    """Records each ``bash`` command's changes in one workspace's journal.

    Not thread-safe: one command at a time (the bash tool runs one call at a time).

    Args:
        journal: the workspace's journal (a session's handle names the session).
        settings: the size cap.
    """

    def __init__(self, journal: Journal, settings: BashRecording | None = None) -> None:
        self.journal = journal
        self.settings = settings or BashRecording()
        self.shadow = Shadow(journal.folder / "shadow")
        self.tree = Tree(journal.root, self.shadow, self.settings.max_bytes)
        self.watch: Watch | None = None
        self.walk_reason = ""
        """Why changes are found by walking the tree (no inotify here), ``""`` otherwise."""
        self.first_seconds = 0.0
        """How long the first look took (seconds)."""
        self._ready = threading.Event()
        self._started = False
        self._failure = ""
        self._saved = 0.0
        self._background: str | None = None

    # -- the first look ------------------------------------------------------------

    def start(self) -> None:
        """Begin the first look in a background thread (idempotent)."""
        if self._started:
            return
        self._started = True
        threading.Thread(target=self._first_look, name="xcsh-bash-record", daemon=True).start()

    def _first_look(self) -> None:
        began = time.monotonic()
        try:
            self.shadow.open()
            self.tree.files = self.shadow.load()
            self.watch, self.walk_reason = open_watch(self.tree.root)
            self.tree.sync(None)
            if self.watch is not None:
                self.watch.add(sorted(self.tree.folders))
            self.shadow.save(self.tree.files)
            self._saved = time.monotonic()
        except OSError as exc:
            self._failure = (
                f"the shadow {self.shadow.folder} cannot be written ({exc.strerror or exc})"
            )
        finally:
            self.first_seconds = time.monotonic() - began
            self._ready.set()

    # -- around a command ----------------------------------------------------------

    def before(self) -> Recorded | None:
        """Bring the tree up to date before a command (waits for the first look).

        Returns:
            What was recorded of the background processes the last command left
            running (``None``: nothing, or none were left).
        """
        self.start()
        self._ready.wait()
        if self._failure:
            return None
        found = self._look(None)
        background, self._background = self._background, None
        if background is None or not found.differences:
            return None
        return self._record(found, f"{background} (in the background)", None)

    def after(
        self, command: str, exit_code: int | None, *, since_ns: int, background: bool
    ) -> Recorded:
        """Record what ``command`` changed (call once it ended).

        Args:
            command: the command line (the entry's label).
            exit_code: its exit code (``None``: ended at a timeout or cancelled).
            since_ns: when it started (ignored paths changed since are counted on a walk).
            background: it left processes running; what they change before the
                next command is recorded then, under this command's name.
        """
        if self._failure:
            return Recorded(problem=self._failure)
        found = self._look(since_ns)
        self._background = command if background else None
        return self._record(found, command, exit_code)

    def close(self) -> None:
        """Save the manifest, stop watching and release the shadow."""
        if self._ready.is_set() and not self._failure:
            self.shadow.save(self.tree.files)
        if self.watch is not None:
            self.watch.close()
        self.shadow.close()

    # -- internals -----------------------------------------------------------------

    def _look(self, since_ns: int | None) -> Sync:
        touched = self.watch.touched() if self.watch is not None else None
        found = self.tree.sync(touched, since_ns if touched is None else None)
        if self.watch is not None:
            watched = self.watch.folders
            self.watch.drop(watched - self.tree.folders)
            self.watch.add(sorted(self.tree.folders - watched))
        if found.differences and time.monotonic() - self._saved > SAVE_EVERY:
            self.shadow.save(self.tree.files)
            self._saved = time.monotonic()
        return found

    def _record(self, found: Sync, label: str, exit_code: int | None) -> Recorded:
        files: list[tuple[FileRecord, bytes | None, bytes | None]] = []
        missing: list[str] = []
        for diff in found.differences:
            item = self._file(diff)
            if item is None:
                missing.append(diff.path)
            else:
                files.append(item)
        ignored = len(found.ignored)
        if not files:
            return Recorded(ignored=ignored, not_recorded=tuple(missing))
        note = BashNote(exit_code=exit_code, ignored=ignored, not_recorded=tuple(missing))
        try:
            with self.journal.locked():
                entry = self.journal.begin(
                    kind="bash", label=label, source_tool_name="bash", files=files, bash=note
                )
                self.journal.finish(entry, COMMITTED)
        except (OSError, JournalError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            return Recorded(
                ignored=ignored,
                not_recorded=tuple(f.path for f, _, _ in files) + tuple(missing),
                problem=f"the undo journal {self.journal.folder} cannot be written ({reason})",
            )
        return Recorded(
            seq=entry.record.seq,
            files=tuple(f.path for f, _, _ in files),
            ignored=ignored,
            not_recorded=tuple(missing),
        )

    def _file(self, diff: Difference) -> tuple[FileRecord, bytes | None, None] | None:
        """The record of one changed file with its earlier bytes; ``None``: cannot be recorded."""
        old, new = diff.old, diff.new
        if (old is not None and old.digest is None) or (new is not None and new.digest is None):
            return None
        before = None
        if old is not None and old.digest is not None:
            before = self.shadow.get(old.digest)
            if before is None:
                return None
        record = FileRecord(
            path=diff.path,
            before=old.digest if old is not None else None,
            after=new.digest if new is not None else None,
            mode=old.mode if old is not None and not old.link else None,
            after_mode=new.mode if new is not None and not new.link else None,
            link_before=old is not None and old.link,
            link_after=new is not None and new.link,
        )
        return record, before, None


def recorded_note(recorded: Recorded, max_bytes: int) -> str:
    """The line a ``bash`` result ends with when something could not be recorded (else ``""``)."""
    parts: list[str] = []
    if recorded.problem:
        parts.append(
            f"[undo] This command's changes are not recorded: {recorded.problem}; "
            "xcsh undo cannot revert them."
        )
    elif recorded.not_recorded:
        cap = (
            f"{max_bytes // (1024 * 1024)} MiB"
            if max_bytes >= 1024 * 1024
            else f"{max_bytes} bytes"
        )
        parts.append(
            f"[undo] Not recorded (over the {cap} size cap, bash_record_max_bytes): "
            f"{name_list(list(recorded.not_recorded), 10)}; xcsh undo cannot revert "
            f"{'it' if len(recorded.not_recorded) == 1 else 'them'}."
        )
    return "\n".join(parts)


def background_note(recorded: Recorded) -> str:
    """The line saying what a background process changed before this command (else ``""``)."""
    if recorded.seq is None:
        return ""
    return (
        f"[undo] Processes the last command left running changed "
        f"{plural(len(recorded.files), 'file')} since ({name_list(list(recorded.files), 5)}): "
        f"recorded as undo journal entry #{recorded.seq}."
    )


__all__ = [
    "DEFAULT_MAX_BYTES",
    "BashRecording",
    "CommandRecorder",
    "Recorded",
    "background_note",
    "recorded_note",
]
