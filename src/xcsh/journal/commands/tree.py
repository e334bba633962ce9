"""The recorded tree of a workspace, and what changed in it since it was last seen.

:class:`Tree` keeps, for every path a ``bash`` command's changes are recorded
for, what it held when last seen (:class:`~xcsh.journal.commands.shadow.Known`),
its bytes being in the shadow. :meth:`Tree.sync` looks again (the whole tree, or
only the paths a watch says were touched), compares each path's fingerprint
(size, modification and change times in nanoseconds, inode, mode), reads only
those whose fingerprint changed (or that were changed too recently to be
trusted), keeps their new bytes and returns the differences.

What is not recorded: ``.git``, ``.hg`` and ``.xcsh`` (at any depth), paths the
workspace's ignore rules leave out (``.gitignore`` and ``.ignore`` in each
folder, ``.git/info/exclude``; an ignored folder is not entered), and anything
but regular files and symlinks. A file over the size cap is fingerprinted but
its bytes are not kept.

The first look in a workspace comes in two steps, so that no command waits for
the second: :meth:`Tree.list_names` names every recorded folder and the names in it
(no file is opened; a watch can be put on each folder before it is read), then
:meth:`Tree.take_in` reads the files one by one (:attr:`Tree.unread` are those
not read yet). A command that runs in between is recorded all the same, except
for the files it changed that were not read yet: their earlier bytes are lost
(:attr:`Sync.lost`).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from xcsh.core.protected import PROTECTED_NAMES
from xcsh.fs.walk import IGNORE_FILES, IgnoreRules, folder_rules, ignored_by, inherited_rules
from xcsh.journal.commands.shadow import RACY_NS, Known, Shadow


@dataclass(frozen=True, kw_only=True)
class Difference:
    """One path whose content, type or mode differs from when it was last seen.

    Args:
        path: relative to the workspace, ``/`` separators.
        old: what it held before (``None``: it did not exist).
        new: what it holds now (``None``: it is gone).
    """

    path: str
    old: Known | None
    new: Known | None


@dataclass(kw_only=True)
class Sync:
    """What one look at the tree found.

    Attributes:
        differences: the paths that changed, sorted.
        ignored: ignored paths seen changed (ignored folders count once).
    """

    differences: list[Difference] = field(default_factory=list)
    ignored: set[str] = field(default_factory=set)
    lost: list[str] = field(default_factory=list)
    """Files changed (or deleted) whose earlier bytes were not read yet, sorted."""
    protected: set[str] = field(default_factory=set)
    """``.git``, ``.hg`` and ``.xcsh`` folders seen for the first time (never recorded)."""


class Tree:
    """The recorded files of one workspace, as last seen.

    Args:
        root: the workspace (a real path).
        shadow: where their bytes are kept.
        max_bytes: files larger than this are fingerprinted, not kept.
    """

    def __init__(
        self, root: Path, shadow: Shadow, max_bytes: int, *, upper: Path | None = None
    ) -> None:
        self.root = root
        self._root = str(root)
        self.upper = upper
        """An overlay's upper layer whose ignore files count too (a command's preview)."""
        self.shadow = shadow
        self.max_bytes = max_bytes
        self.files: dict[str, Known] = {}
        self._rules: dict[str, list[IgnoreRules]] = {}
        self.folders: set[str] = {""}
        """Folders walked (recorded folders), relative; ``""`` is the root."""
        self.protected: set[str] = set()
        """The ``.git``, ``.hg`` and ``.xcsh`` folders seen, relative: not recorded; one not
        among them is new (:attr:`Sync.protected`)."""
        self.unread: set[str] = set()
        """Paths :meth:`list_names` named whose bytes are not read yet (files, symlinks, or
        entries not sorted yet: ignored files are dropped when they are taken in)."""

    # -- ignore rules --------------------------------------------------------------

    def rules(self, folder: str) -> list[IgnoreRules]:
        """The ignore rules that apply to the entries of ``folder`` (relative; cached)."""
        found = self._rules.get(folder)
        if found is not None:
            return found
        if folder == "":
            found = inherited_rules(self.root, self.root) + folder_rules(self.root)
        else:
            parent = folder.rpartition("/")[0]
            found = self.rules(parent) + folder_rules(self.root / folder)
            if self.upper is not None:  # based where they will apply
                base = self.root / folder
                found += [IgnoreRules(base, r.spec) for r in folder_rules(self.upper / folder)]
        self._rules[folder] = found
        return found

    def forget_rules(self) -> None:
        """Drop the cached rules (an ignore file changed)."""
        self._rules.clear()

    def skipped(self, rel: str, is_dir: bool) -> bool:
        """True when ``rel`` is not recorded: protected, or ignored by the workspace's rules."""
        name = rel.rpartition("/")[2]
        if is_dir and name in PROTECTED_NAMES:
            return True
        rules = self.rules(rel.rpartition("/")[0])
        return bool(rules) and ignored_by(self.root / rel, rules, is_dir=is_dir)

    # -- the first look --------------------------------------------------------------

    def list_names(self, on_folder: Callable[[str], None] | None = None) -> None:
        """Name every recorded folder and, in :attr:`unread`, the entries in them.

        No file is opened or stat-ed (the folder entries' types suffice), so this is
        quick; :meth:`take_in` reads them.

        Args:
            on_folder: called with each recorded folder (relative) before it is read
                (a watch put on it then misses no change made after it was listed).
        """
        self.folders = set()
        pending = [""]
        while pending:
            current = pending.pop()
            self.folders.add(current)
            if on_folder is not None:
                on_folder(current)
            for rel, entry in self._entries(current):
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir and entry.name in PROTECTED_NAMES:
                    self.protected.add(rel)
                if not is_dir:
                    self.unread.add(rel)
                elif not self.skipped(rel, True):
                    pending.append(rel)

    def take_in(self, rel: str, previous: Mapping[str, Known], since_ns: int | None) -> bool:
        """Read one :attr:`unread` path into the tree (it leaves :attr:`unread`).

        Args:
            rel: the path.
            previous: what an earlier session saw (its content is not read again when
                the fingerprint is the same).
            since_ns: a command running since then may be changing the workspace: a
                file changed at or after it is left unread (its bytes may be the
                command's) and ``False`` is returned.
        """
        try:
            info = os.lstat(os.path.join(self._root, rel))
        except OSError:
            self.unread.discard(rel)
            return True
        mode = info.st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)) or self.skipped(rel, False):
            self.unread.discard(rel)
            return True
        if since_ns is not None and _changed_at(info) >= since_ns:
            return False
        old = previous.get(rel)
        if old is not None and old.same_stat(info):
            new: Known | None = old
        else:
            new = self._read(rel, info, time.time_ns(), packed=True)
            if new is not None and since_ns is not None and _changed_at(new) >= since_ns:
                return False
        self.unread.discard(rel)
        if new is not None:
            self.files[rel] = new
        return True

    # -- looking -------------------------------------------------------------------

    def sync(self, touched: Iterable[str] | None, since_ns: int | None = None) -> Sync:
        """Look again: the whole tree (``touched`` is ``None``) or the paths named.

        Args:
            touched: paths (relative) that may have changed, files or folders; a
                folder is walked whole.
            since_ns: the changes at or after this time are a command's: an
                :attr:`unread` file changed since is lost (:attr:`Sync.lost`), and a
                whole walk counts the ignored entries changed since (a watch counts
                them itself). ``None``: the changes are someone else's, taken in.

        Returns:
            The differences (the tree now knows the new state; the new bytes are kept).
        """
        out = Sync()
        seen: dict[str, os.stat_result] = {}
        if touched is None:
            self.folders = {""}
            self._walk("", seen, out, since_ns)
            gone = [p for p in self.files if p not in seen]
            gone += [p for p in self.unread if p not in seen]
        else:
            gone = []
            for rel in sorted(set(touched)):
                self._look(rel, seen, out, gone)
        now = time.time_ns()
        for rel in gone:
            if rel in self.unread:
                self.unread.discard(rel)
                if since_ns is not None:
                    out.lost.append(rel)
                continue
            old = self.files.pop(rel, None)
            if old is not None:
                out.differences.append(Difference(path=rel, old=old, new=None))
        for rel, info in seen.items():
            if rel in self.unread:
                self._unread_seen(rel, info, since_ns, walked=touched is None, out=out)
                continue
            old = self.files.get(rel)
            if old is not None and old.same_stat(info) and self._kept(old):
                continue
            new = self._read(rel, info, now)
            if new is None:
                if old is not None:
                    del self.files[rel]
                    out.differences.append(Difference(path=rel, old=old, new=None))
                continue
            self.files[rel] = new
            if old is None or not _same_content(old, new):
                out.differences.append(Difference(path=rel, old=old, new=new))
        out.differences.sort(key=lambda d: d.path)
        out.lost.sort()
        return out

    def _unread_seen(
        self, rel: str, info: os.stat_result, since_ns: int | None, *, walked: bool, out: Sync
    ) -> None:
        """An :attr:`unread` file seen by a look: lost when changed since ``since_ns``.

        A file a watch names is read now (whoever changed it, its bytes are kept from
        here on); one a walk merely passed is left to the first look.
        """
        changed = since_ns is not None and _changed_at(info) >= since_ns
        if not changed and walked:
            return
        self.unread.discard(rel)
        if changed:
            out.lost.append(rel)
        new = self._read(rel, info, time.time_ns())
        if new is not None:
            self.files[rel] = new

    def _look(self, rel: str, seen: dict[str, os.stat_result], out: Sync, gone: list[str]) -> None:
        """Look at one touched path: a file, a folder (walked) or nothing (gone)."""
        parent = rel.rpartition("/")[0]
        if parent not in self.folders:
            return  # inside a folder that is not recorded (or not there)
        try:
            info = os.lstat(self.root / rel)
        except OSError:
            info = None
        is_dir = info is not None and stat.S_ISDIR(info.st_mode)
        if is_dir and self._protected_seen(rel, out):
            return
        if info is None and rel in self.protected:  # a .git folder went away
            self.protected.discard(rel)
            return
        if self.skipped(rel, is_dir):
            out.ignored.add(rel)
            return
        if info is None or is_dir:
            if rel in self.files or rel in self.unread:
                gone.append(rel)
            if rel in self.folders:  # a recorded folder went away (or was replaced)
                prefix = rel + "/"
                gone.extend(p for p in self.files if p.startswith(prefix))
                gone.extend(p for p in self.unread if p.startswith(prefix))
                self.folders = {f for f in self.folders if f != rel and not f.startswith(prefix)}
            if is_dir:
                self._walk(rel, seen, out, None)
                gone[:] = [p for p in gone if p not in seen]
            return
        if rel.rpartition("/")[2] in IGNORE_FILES:
            self.forget_rules()
        seen[rel] = info

    def _walk(
        self, folder: str, seen: dict[str, os.stat_result], out: Sync, since_ns: int | None
    ) -> None:
        pending = [folder]
        while pending:
            current = pending.pop()
            self.folders.add(current)
            for rel, entry in self._entries(current):
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                is_dir = stat.S_ISDIR(info.st_mode)
                if not (is_dir or stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                    continue
                if is_dir:
                    self._protected_seen(rel, out)
                if self.skipped(rel, is_dir):
                    fresh = since_ns is not None and info.st_ctime_ns >= since_ns
                    if fresh and entry.name not in PROTECTED_NAMES:
                        out.ignored.add(rel)
                    continue
                if is_dir:
                    pending.append(rel)
                else:
                    seen[rel] = info

    def _protected_seen(self, rel: str, out: Sync) -> bool:
        """Note the folder ``rel`` when it is named ``.git``, ``.hg`` or ``.xcsh``; True when it is.

        One not seen before goes to :attr:`Sync.protected`.
        """
        if rel.rpartition("/")[2] not in PROTECTED_NAMES:
            return False
        if rel not in self.protected:
            self.protected.add(rel)
            out.protected.add(rel)
        return True

    def _entries(self, folder: str) -> list[tuple[str, os.DirEntry[str]]]:
        """The entries of ``folder`` (relative) with their relative paths; none when unreadable."""
        try:
            found = list(os.scandir(self.root / folder if folder else self.root))
        except OSError:
            return []
        return [(f"{folder}/{e.name}" if folder else e.name, e) for e in found]

    def _kept(self, known: Known) -> bool:
        """True when the shadow still has ``known``'s bytes (or it keeps none of them)."""
        return known.digest is None or self.shadow.has(known.digest)

    def _read(
        self, rel: str, info: os.stat_result, now: int, *, packed: bool = False
    ) -> Known | None:
        """What ``rel`` holds now, its bytes kept (``None`` when it vanished or is unreadable).

        Args:
            rel: the path.
            info: its ``lstat``.
            now: the time (ns) racy changes are judged against.
            packed: keep the bytes in the shadow's pack (the first look), not a file.
        """
        path = os.path.join(self._root, rel)
        link = stat.S_ISLNK(info.st_mode)
        digest: str | None = None
        keep = self.shadow.pack if packed else self.shadow.put
        try:
            if link:
                digest = keep(os.fsencode(os.readlink(path)))
            elif info.st_size <= self.max_bytes:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
                try:
                    info = os.fstat(fd)
                    with os.fdopen(os.dup(fd), "rb") as fh:
                        data = fh.read()
                finally:
                    os.close(fd)
                digest = keep(data)
        except OSError:
            return None
        changed_at = max(info.st_mtime_ns, info.st_ctime_ns)
        return Known(
            size=info.st_size,
            mtime_ns=info.st_mtime_ns,
            ctime_ns=info.st_ctime_ns,
            ino=info.st_ino,
            digest=digest,
            link=link,
            mode=0 if link else info.st_mode & 0o7777,
            racy=now - changed_at < RACY_NS or changed_at > now,
        )


def _changed_at(info: os.stat_result | Known) -> int:
    """When a path last changed (content, mode or name), in nanoseconds."""
    if isinstance(info, Known):
        return max(info.mtime_ns, info.ctime_ns)
    return max(info.st_mtime_ns, info.st_ctime_ns)


def _same_content(old: Known, new: Known) -> bool:
    """True when both sides hold the same thing (content, type and a file's mode)."""
    if old.link != new.link or old.mode != new.mode:
        return False
    if old.digest is None or new.digest is None:
        return old.size == new.size and old.mtime_ns == new.mtime_ns
    return old.digest == new.digest


__all__ = ["Difference", "Sync", "Tree"]
