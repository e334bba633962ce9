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
   the shadow (:mod:`xcsh.journal.commands.shadow`; a content kept in a file of
   its own is hard-linked into the journal's blobs, not written again). The
   recorded folders that were not there before become its ``created_folders``
   (undo and rewind remove them when left empty); a file another entry of the
   journal recorded meanwhile (an apply from another process, or a parallel tool
   call), holding what that entry wrote, is that entry's and left out. The
   entry's intent record is fsynced with those bytes, then committed (the
   outcome record is not fsynced: a crash that loses it leaves an incomplete
   entry that recovery completes, the files being the command's own).

The first look in a workspace (:meth:`CommandRecorder.start`, in the background
from the moment the session opens) first names every recorded folder and file
(a command waits for that; the first one, in a small workspace, at most
:data:`FIRST_LOOK_GRACE` more), then reads every file once at a lower CPU
priority while commands run; later sessions re-read only files whose
fingerprint changed (the shadow's manifest).
A command that changes a file the first look has not read yet is recorded
without it: the file is named in the result and in the entry (``not_kept``),
and ``xcsh undo`` says it cannot put it back.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from xcsh.core import UsageError
from xcsh.journal.commands.notes import Recorded
from xcsh.journal.commands.notify import Watch, open_watch
from xcsh.journal.commands.shadow import Known, Shadow
from xcsh.journal.commands.tree import Difference, Sync, Tree
from xcsh.journal.records import COMMITTED, BashNote, FileRecord
from xcsh.journal.store import Journal, JournalError

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
SAVE_EVERY = 10.0
"""Seconds between two saves of the shadow's manifest (after the first look, always)."""
FIRST_LOOK_GRACE = 0.5
"""Seconds the session's first command waits at most for the first look to finish reading."""
GRACE_FILES = 5000
"""It waits only when the first look named at most this many files (it may be done by then;
a larger tree would not be, and the command runs at once)."""
READ_BATCH = 64
"""Files the first look reads at a time (a command's look waits at most for one batch)."""
LATER_PAUSE = 0.2
"""Seconds before the first look tries again the files a running command changed."""
READ_NICENESS = 10
"""How much lower the first look's reading thread runs (added to its niceness)."""


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


class CommandRecorder:
    """Records each ``bash`` command's changes in one workspace's journal.

    The session builds one and shares it: a direct call of an MCP server's tool is
    recorded around the call the same way (:mod:`xcsh.mcpclient.recording`). One
    command or call at a time (the loop runs a tool that may write alone); the
    first look reads the workspace in a thread of its own meanwhile.

    Args:
        journal: the workspace's journal (a session's handle names the session).
        settings: the size cap.
        hold: the first look reads no file until this is set (tests use it to run a
            command while the first look is under way); ``None``: no wait.
    """

    def __init__(
        self,
        journal: Journal,
        settings: BashRecording | None = None,
        *,
        hold: threading.Event | None = None,
    ) -> None:
        self.journal = journal
        self.settings = settings or BashRecording()
        self.shadow = Shadow(journal.folder / "shadow")
        self.tree = Tree(journal.root, self.shadow, self.settings.max_bytes)
        self.watch: Watch | None = None
        self.walk_reason = ""
        """Why changes are found by walking the tree (no inotify here), ``""`` otherwise."""
        self.list_seconds = 0.0
        """How long naming the workspace's folders and files took (what a command waits for)."""
        self.first_seconds = 0.0
        """How long the first look took, reading every file included (seconds)."""
        self._hold = hold
        self._lock = threading.Lock()
        self._listed = threading.Event()
        self._read = threading.Event()
        self._started = False
        self._failure = ""
        self._saved = 0.0
        self._background: str | None = None
        self._since: int | None = None
        """A command may be changing the workspace since then (ns): the first look
        leaves the files changed since unread."""
        self._closed = False
        self._waited = False
        self._mark_seq = 0
        """The journal's newest entry when the tree was last brought up to date."""
        self._mark_folders: frozenset[str] = frozenset()
        """The recorded folders then (a folder not among them is new since)."""

    # -- the first look ------------------------------------------------------------

    def start(self) -> None:
        """Begin the first look in a background thread (idempotent).

        It names every recorded folder and file (commands wait for that, a fraction
        of a second on 50,000 files), then reads the files into the shadow at a lower
        CPU priority while commands run (the session's first command waits at most
        :data:`FIRST_LOOK_GRACE` for that).
        """
        if self._started:
            return
        self._started = True
        threading.Thread(target=self._first_look, name="xcsh-bash-record", daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the first look read every file; ``False`` when ``timeout`` passed first."""
        return self._read.wait(timeout)

    @property
    def unread(self) -> int:
        """How many files the first look has not read yet."""
        with self._lock:
            return len(self.tree.unread)

    def _first_look(self) -> None:
        began = time.monotonic()
        try:
            try:
                self.shadow.open()
                self.watch, self.walk_reason = open_watch(self.tree.root)
                watch = self.watch
                with self._lock:
                    self.tree.list_names(
                        (lambda folder: watch.add([folder])) if watch is not None else None
                    )
            except OSError as exc:
                self._failure = (
                    f"the shadow {self.shadow.folder} cannot be written ({exc.strerror or exc})"
                )
                return
            finally:
                self.list_seconds = time.monotonic() - began
                self._listed.set()
            _lower_priority()
            previous = self.shadow.load()
            if self._hold is not None:
                self._hold.wait()
            self._read_all(previous)
        finally:
            self.first_seconds = time.monotonic() - began
            self._read.set()

    def _read_all(self, previous: dict[str, Known]) -> None:
        """Read every unread file (in batches, so a command's look waits little)."""
        with self._lock:
            queue = sorted(self.tree.unread)
        while queue and not self._closed:
            later: list[str] = []
            for at in range(0, len(queue), READ_BATCH):
                with self._lock:
                    if self._closed:
                        return
                    for rel in queue[at : at + READ_BATCH]:
                        if rel in self.tree.unread and not self.tree.take_in(
                            rel, previous, self._since
                        ):
                            later.append(rel)
            queue = later
            if queue:
                time.sleep(LATER_PAUSE)  # a command is changing them: look again later
        with self._lock:
            if not self._closed:
                self.shadow.save(self.tree.files)
                self._saved = time.monotonic()

    # -- around a command ----------------------------------------------------------

    def before(self) -> Recorded | None:
        """Bring the tree up to date before a command.

        It waits until the first look named every file, then, before the session's
        first command only and in a workspace of at most :data:`GRACE_FILES` files, at
        most :data:`FIRST_LOOK_GRACE` for it to have read them (a small workspace is
        read by then; a large one is not waited for: what a command changes among the
        files not read yet is named as not kept).

        Returns:
            What was recorded of the background processes the last command left
            running (``None``: nothing, or none were left).
        """
        self.start()
        self._listed.wait()
        if not self._waited:
            self._waited = True
            with self._lock:
                small = len(self.tree.unread) <= GRACE_FILES
            if small:
                self._read.wait(FIRST_LOOK_GRACE)
        if self._failure:
            return None
        with self._lock:
            background, self._background = self._background, None
            found = self._look(self._since if background is not None else None)
            self._since = time.time_ns()
            end = self._position()
            recorded = None
            if background is not None and (found.differences or found.lost):
                recorded = self._record(found, f"{background} (in the background)", None, end)
            self._mark(max(end, recorded.seq or 0) if recorded is not None else end)
            return recorded

    def after(
        self,
        command: str,
        exit_code: int | None,
        *,
        since_ns: int,
        background: bool,
        tool: str = "bash",
    ) -> Recorded:
        """Record what ``command`` changed (call once it ended).

        Args:
            command: the command line (the entry's label).
            exit_code: its exit code (``None``: ended at a timeout or cancelled, or
                no command: a direct MCP tool call).
            since_ns: when it started: a change made since is the command's.
            background: it left processes running; what they change before the
                next command is recorded then, under this command's name.
            tool: the tool that ran it (the entry's ``source_tool_name``): ``bash``,
                or the MCP tool of a direct call recorded the same way.
        """
        if self._failure:
            return Recorded(problem=self._failure)
        with self._lock:
            found = self._look(since_ns)
            self._background = command if background else None
            self._since = since_ns if background else None
            end = self._position()
            recorded = self._record(found, command, exit_code, end, tool)
            self._mark(max(end, recorded.seq or 0))
            return recorded

    def close(self) -> None:
        """Stop the first look, save the manifest, stop watching and release the shadow."""
        with self._lock:
            self._closed = True
            if self._listed.is_set() and not self._failure:
                self.shadow.save(self.tree.files)
        if self.watch is not None:
            self.watch.close()
        self.shadow.close()

    # -- internals (the lock held) -------------------------------------------------

    def _look(self, since_ns: int | None) -> Sync:
        touched = self.watch.touched() if self.watch is not None else None
        found = self.tree.sync(touched, since_ns)
        if self.watch is not None:
            watched = self.watch.folders
            self.watch.drop(watched - self.tree.folders)
            self.watch.add(sorted(self.tree.folders - watched))
        due = time.monotonic() - self._saved > SAVE_EVERY
        if found.differences and self._read.is_set() and due:
            self.shadow.save(self.tree.files)
            self._saved = time.monotonic()
        return found

    def _mark(self, seq: int) -> None:
        """Remember the journal's position ``seq`` and the recorded folders: the next start."""
        self._mark_seq = seq
        self._mark_folders = frozenset(self.tree.folders)

    def _position(self) -> int:
        try:
            return self.journal.position()
        except OSError:
            return self._mark_seq

    def _recorded_elsewhere(self, end: int) -> dict[str, str | None]:
        """Each file the entries committed after the mark (up to ``end``) wrote: its digest."""
        wrote: dict[str, str | None] = {}
        for seq in range(self._mark_seq + 1, end + 1):
            entry = self.journal.entry(seq)
            if entry is None or entry.state != COMMITTED:
                continue
            for f in entry.files:
                wrote[f.path] = f.after
        return wrote

    def _record(
        self, found: Sync, label: str, exit_code: int | None, end: int, tool: str = "bash"
    ) -> Recorded:
        """Record ``found`` as one entry of ``tool``; ``end``: the journal's newest entry now."""
        files: list[tuple[FileRecord, bytes | None, bytes | None]] = []
        kept: dict[str, Path | bytes] = {}
        missing: list[str] = []
        elsewhere = self._recorded_elsewhere(end)
        lost = [p for p in found.lost if p not in elsewhere]
        created = tuple(sorted(self.tree.folders - self._mark_folders))
        for diff in found.differences:
            now = diff.new.digest if diff.new is not None else None
            if diff.path in elsewhere and elsewhere[diff.path] == now:
                continue  # another entry recorded this very change: it is that entry's
            item = self._file(diff, kept)
            if item is None:
                missing.append(diff.path)
            elif isinstance(item, str):
                lost.append(item)
            else:
                files.append((item, None, None))
        ignored = len(found.ignored)
        protected = tuple(sorted(found.protected))
        lost.sort()
        if not files and not lost:
            return Recorded(ignored=ignored, not_recorded=tuple(missing), protected=protected)
        note = BashNote(
            exit_code=exit_code,
            ignored=ignored,
            not_recorded=tuple(missing),
            not_kept=tuple(lost),
            created_folders=created,
        )
        try:
            with self.journal.locked():
                entry = self.journal.begin(
                    kind="bash",
                    label=label,
                    source_tool_name=tool,
                    files=files,
                    bash=note,
                    kept=kept,
                )
                self.journal.finish(entry, COMMITTED, durable=False)
        except (OSError, JournalError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            return Recorded(
                ignored=ignored,
                not_recorded=tuple(f.path for f, _, _ in files) + tuple(missing),
                not_kept=tuple(lost),
                problem=f"the undo journal {self.journal.folder} cannot be written ({reason})",
                protected=protected,
            )
        return Recorded(
            seq=entry.record.seq,
            files=tuple(f.path for f, _, _ in files),
            ignored=ignored,
            not_recorded=tuple(missing),
            not_kept=tuple(lost),
            protected=protected,
        )

    def _file(self, diff: Difference, kept: dict[str, Path | bytes]) -> FileRecord | str | None:
        """The record of one changed file, its earlier content added to ``kept``.

        Returns:
            The record; ``None`` when the file is over the size cap; the path when its
            earlier bytes are not in the shadow (lost).
        """
        old, new = diff.old, diff.new
        if (old is not None and old.digest is None) or (new is not None and new.digest is None):
            return None
        if old is not None and old.digest is not None and old.digest not in kept:
            blob = self.shadow.blob(old.digest)
            if blob is not None and _size(blob) == old.size:
                kept[old.digest] = blob
            else:
                data = self.shadow.get(old.digest)
                if data is None:
                    return diff.path
                kept[old.digest] = data
        return FileRecord(
            path=diff.path,
            before=old.digest if old is not None else None,
            after=new.digest if new is not None else None,
            mode=old.mode if old is not None and not old.link else None,
            after_mode=new.mode if new is not None and not new.link else None,
            link_before=old is not None and old.link,
            link_after=new is not None and new.link,
        )


def _size(path: Path) -> int:
    """The size of ``path`` in bytes (-1 when it cannot be read)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return -1


def _lower_priority() -> None:
    """Run the calling thread at a lower CPU priority (Linux: per thread), where allowed."""
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + READ_NICENESS)


__all__ = [
    "DEFAULT_MAX_BYTES",
    "BashRecording",
    "CommandRecorder",
]
