"""Rewinding one session's journal entries, file by file (the journal's half of a rewind)."""

from __future__ import annotations

import os
from pathlib import Path

from xcsh.journal import Change, Journal, applies, apply_changes
from xcsh.journal.rewind import plan_rewind, rewind_files, session_changes


def write(journal: Journal, path: str, before: bytes | None, after: bytes | None) -> None:
    apply_changes(
        journal.root,
        [Change(path=path, shown=path, before=before, after=after)],
        journal=journal,
        label=f"change {path}",
        source_tool_name="test",
    )


def test_only_the_sessions_entries_after_the_checkpoint_are_put_back(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.txt").write_bytes(b"a0\n")
    (tmp_path / "b.txt").write_bytes(b"b0\n")
    base = Journal.for_root(xcsh_home, tmp_path)
    mine, other = base.for_session("s1"), base.for_session("s2")
    write(mine, "a.txt", b"a0\n", b"a1\n")
    checkpoint = base.position()
    write(mine, "a.txt", b"a1\n", b"a2\n")
    write(other, "b.txt", b"b0\n", b"b1\n")  # another session's change: not ours to take back
    write(mine, "a.txt", b"a2\n", b"a3\n")
    plan = plan_rewind(base, session_changes(base, "s1", checkpoint))
    assert plan.restored == ["a.txt"] and plan.entries == (2, 4)
    applied = rewind_files(mine, plan, message=2, conversation=False, label="Rewind")
    assert (tmp_path / "a.txt").read_bytes() == b"a1\n"
    assert (tmp_path / "b.txt").read_bytes() == b"b1\n"
    states = {e.summary.seq: e.state for e in applies(base)}
    assert states == {1: "applied", 2: "undone", 3: "applied", 4: "undone"}
    record = base.entry(applied.seq or 0)
    assert record is not None and record.kind == "rewind" and record.session == "s1"


def test_a_file_changed_between_two_of_the_sessions_changes_is_left_alone(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.txt").write_bytes(b"a0\n")
    (tmp_path / "b.txt").write_bytes(b"b0\n")
    journal = Journal.for_root(xcsh_home, tmp_path).for_session("s1")
    write(journal, "a.txt", b"a0\n", b"a1\n")
    write(journal, "b.txt", b"b0\n", b"b1\n")
    (tmp_path / "a.txt").write_bytes(b"by hand\n")  # between two journaled changes
    write(journal, "a.txt", b"by hand\n", b"a2\n")
    plan = plan_rewind(journal, session_changes(journal, "s1", 0))
    assert plan.changed == ("a.txt",) and plan.restored == ["b.txt"]
    assert plan.entries == (2,)


def test_a_removed_file_comes_back_with_its_mode_and_a_created_one_goes(
    tmp_path: Path, xcsh_home: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"keep\n")
    secret.chmod(0o600)
    journal = Journal.for_root(xcsh_home, tmp_path).for_session("s1")
    write(journal, "secret.txt", b"keep\n", None)
    write(journal, "new.txt", None, b"new\n")
    plan = plan_rewind(journal, session_changes(journal, "s1", 0), since_ns=0)
    assert plan.untracked == ()
    rewind_files(journal, plan, message=1, conversation=True, label="Rewind")
    assert secret.read_bytes() == b"keep\n" and secret.stat().st_mode & 0o777 == 0o600
    assert not (tmp_path / "new.txt").exists()


def test_files_the_journal_never_saw_are_named(tmp_path: Path, xcsh_home: Path) -> None:
    (tmp_path / "old.txt").write_bytes(b"old\n")
    journal = Journal.for_root(xcsh_home, tmp_path).for_session("s1")
    checkpoint = journal.position()
    since = (tmp_path / "old.txt").stat().st_mtime_ns
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "built.o").write_bytes(b"\0")
    os.utime(tmp_path / "sub" / "built.o", ns=(since + 10**9, since + 10**9))  # a second later
    write(journal, "old.txt", b"old\n", b"new\n")
    plan = plan_rewind(journal, session_changes(journal, "s1", checkpoint), since_ns=since)
    assert plan.untracked == ("sub/built.o",)
    assert plan.restored == ["old.txt"]
