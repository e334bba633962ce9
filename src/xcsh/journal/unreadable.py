"""Journal entries whose intent record cannot be read: said, never skipped in silence.

An intent record (``entries/<seq>.json``) names an apply's files and their before and
after contents; without it xcsh cannot tell which files the apply touched. A record
that is not valid JSON (a disk error, an edit by hand), not a record, or written by a
newer xcsh is kept as it is, and every command that would have used it says so,
naming the file and what can still be done: recovery cannot roll such an apply back
(:func:`xcsh.journal.recover.recover` reports it instead), and ``xcsh undo`` cannot
list or undo it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xcsh.core.json_read import loads as bounded_json
from xcsh.journal.records import SCHEMA_VERSION, parse_intent
from xcsh.journal.store import Journal


@dataclass(frozen=True, kw_only=True)
class UnreadableEntry:
    """A journal entry whose intent record cannot be read.

    Args:
        seq: its number.
        path: its intent record.
        why: why it cannot be read, for people (``not valid JSON: ...``).
        finished: it has an outcome record (its apply committed or was rolled back);
            else its apply was interrupted.
    """

    seq: int
    path: Path
    why: str
    finished: bool

    @property
    def message(self) -> str:
        """One paragraph for people: what is known, what was not done, what can be done."""
        if self.finished:
            return (
                f"Entry {self.seq} of the undo journal cannot be read ({self.path}: {self.why}), "
                "so it is left out of `xcsh undo --list` and cannot be undone; its files are "
                "as that change left them. The record is kept as it is."
            )
        tag = f"xcsh-{self.seq:06d}"
        return (
            f"Cannot read the record of the interrupted apply {self.seq} ({self.path}: "
            f"{self.why}), so it was not rolled back: the files it was writing may hold part "
            "of it, and only that record says which. Nothing was changed and the record is "
            f"kept. A file it had begun to replace keeps its earlier content beside it, named "
            f"`.NAME.{tag}.orig` (find . -name '*.{tag}.*'); check the files (git status, "
            "git diff) and put back what you need."
        )


def why_unreadable(journal: Journal, seq: int) -> str | None:
    """Why entry ``seq``'s intent record cannot be read, or None when it can (or is gone)."""
    path = journal.entries_dir / f"{seq:06d}.json"
    try:
        data = bounded_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    except ValueError as exc:
        return f"not valid JSON: {exc}"
    if parse_intent(data) is not None:
        return None
    version = data.get("version") if isinstance(data, dict) else None
    if isinstance(version, int) and version > SCHEMA_VERSION:
        return (
            f"written by a newer xcsh (record version {version}; this one reads "
            f"{SCHEMA_VERSION}): use that version"
        )
    return "not an intent record this xcsh reads (a field is missing or of the wrong type)"


def unreadable(journal: Journal, seq: int) -> UnreadableEntry | None:
    """Entry ``seq`` when its intent record cannot be read, else None."""
    why = why_unreadable(journal, seq)
    if why is None:
        return None
    finished = (journal.entries_dir / f"{seq:06d}.state").exists()
    return UnreadableEntry(
        seq=seq, path=journal.entries_dir / f"{seq:06d}.json", why=why, finished=finished
    )


def unlisted(journal: Journal) -> list[UnreadableEntry]:
    """The entries with an intent record on disk that :meth:`Journal.summaries` leaves out.

    Those are the records it could not read; only they are read again, so this is
    cheap when the journal is sound.
    """
    try:
        names = [n for n in journal.entries_dir.iterdir() if n.suffix == ".json"]
    except OSError:
        return []
    on_disk = sorted(int(p.stem) for p in names if p.stem.isdigit())
    listed = {s.seq for s in journal.summaries()}
    found = (unreadable(journal, seq) for seq in on_disk if seq not in listed)
    return [entry for entry in found if entry is not None]
