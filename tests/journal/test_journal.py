"""The undo journal on real files: record through apply, undo, refuse, retention, custom tools."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from xcsh.fs.confined import sha256_hex
from xcsh.journal import (
    ApplyError,
    Change,
    Journal,
    NothingToUndo,
    Retention,
    UndoError,
    UndoRefused,
    apply_changes,
    record_applies,
    undo,
    undoable,
)
from xcsh.pending import (
    PendingAction,
    PendingActionStore,
    Preview,
    PreviewFile,
    create_resolve_tool,
)
from xcsh.structural import create_ast_edit_tool


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode())
    return path


def change(path: str, before: str | None, after: str | None) -> Change:
    return Change(
        path=path,
        shown=path,
        before=None if before is None else before.encode(),
        after=None if after is None else after.encode(),
    )


@pytest.fixture
def journal(tmp_path: Path, xcsh_home: Path) -> Journal:
    (tmp_path / "ws").mkdir()
    return Journal.for_root(xcsh_home, tmp_path / "ws")


def test_apply_records_then_undo_restores_and_marks_undone(journal: Journal) -> None:
    root = journal.root
    write(root, "a.py", "old a\r\n")
    write(root, "sub/b.py", "old b\n")
    applied = apply_changes(
        root,
        [change("a.py", "old a\r\n", "new a\r\n"), change("sub/b.py", "old b\n", "new b\n")],
        journal=journal,
        label="AST Edit: 2 replacements in 2 files",
        source_tool_name="ast_edit",
    )
    assert applied.seq == 1 and applied.warning is None
    assert (root / "a.py").read_bytes() == b"new a\r\n"
    intent = json.loads((journal.entries_dir / "000001.json").read_text())
    assert [f["path"] for f in intent["files"]] == ["a.py", "sub/b.py"]
    assert all(len(f["before"]) == 64 and len(f["after"]) == 64 for f in intent["files"])
    assert json.loads((journal.entries_dir / "000001.state").read_text())["state"] == "committed"

    outcome = undo(journal)
    assert outcome.message == (
        "Undid 'AST Edit: 2 replacements in 2 files': restored a.py, sub/b.py."
    )
    assert (root / "a.py").read_bytes() == b"old a\r\n"
    assert (root / "sub/b.py").read_bytes() == b"old b\n"
    assert undoable(journal) == []
    with pytest.raises(NothingToUndo, match="Nothing to undo"):
        undo(journal)


def test_each_content_is_stored_once(journal: Journal) -> None:
    root = journal.root
    for i in range(3):
        write(root, f"f{i}.py", "same\n")
    apply_changes(
        root,
        [change(f"f{i}.py", "same\n", "new\n") for i in range(3)],
        journal=journal,
        label="L",
        source_tool_name="t",
    )
    blobs = [p for p in journal.blobs.folder.rglob("*") if p.is_file()]
    assert len(blobs) == 1  # the before content "same", once (the after content is in the files)


def test_undo_refuses_and_names_changed_files_touching_nothing(journal: Journal) -> None:
    root = journal.root
    write(root, "a.py", "old a\n")
    write(root, "b.py", "old b\n")
    apply_changes(
        root,
        [change("a.py", "old a\n", "new a\n"), change("b.py", "old b\n", "new b\n")],
        journal=journal,
        label="AST Edit: 2 replacements in 2 files",
        source_tool_name="ast_edit",
    )
    (root / "b.py").write_bytes(b"edited by hand\n")
    with pytest.raises(UndoRefused) as info:
        undo(journal)
    assert info.value.files == ["b.py"]
    assert "these files changed since it was applied: b.py. Nothing was restored." in str(
        info.value
    )
    assert (root / "a.py").read_bytes() == b"new a\n"
    assert len(undoable(journal)) == 1


def test_entry_already_restored_by_hand_counts_as_undone(journal: Journal) -> None:
    root = journal.root
    f = write(root, "f.txt", "1")
    for before, after in (("1", "2"), ("2", "3")):
        apply_changes(
            root,
            [change("f.txt", before, after)],
            journal=journal,
            label=f"step {after}",
            source_tool_name="t",
        )
    f.write_text("2")  # the user reverted step 3 with git checkout
    outcome = undo(journal)
    assert outcome.already and "'step 3' was undone already" in outcome.message
    assert f.read_text() == "2"
    assert undo(journal).entry.label == "step 2"  # no longer blocked
    assert f.read_text() == "1"


def test_undo_n_picks_an_entry_and_explains_bad_numbers(journal: Journal) -> None:
    root = journal.root
    write(root, "a.txt", "a0")
    write(root, "b.txt", "b0")
    apply_changes(
        root, [change("a.txt", "a0", "a1")], journal=journal, label="A", source_tool_name="t"
    )
    apply_changes(
        root, [change("b.txt", "b0", "b1")], journal=journal, label="B", source_tool_name="t"
    )
    assert undo(journal, 1).entry.label == "A"
    assert (root / "a.txt").read_text() == "a0" and (root / "b.txt").read_text() == "b1"
    with pytest.raises(UndoError, match="was undone already"):
        undo(journal, 1)
    with pytest.raises(UndoError, match="is an undo"):
        undo(journal, 3)
    with pytest.raises(UndoError, match="No entry 9"):
        undo(journal, 9)


def test_created_file_is_removed_and_deleted_file_comes_back(journal: Journal) -> None:
    root = journal.root
    write(root, "gone.py", "was here\n")
    apply_changes(
        root,
        [change("new/new.py", None, "created\n"), change("gone.py", "was here\n", None)],
        journal=journal,
        label="two files",
        source_tool_name="t",
    )
    assert (root / "new/new.py").read_text() == "created\n" and not (root / "gone.py").exists()
    undo(journal)
    assert not (root / "new/new.py").exists()
    assert (root / "gone.py").read_bytes() == b"was here\n"


def test_metadata_kept_mode_owner_xattr(journal: Journal) -> None:
    root = journal.root
    f = write(root, "run.sh", "echo old\r\n")
    f.chmod(0o750)
    try:
        os.setxattr(f, "user.xcsh-test", b"kept")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    owner = (1234, 2345) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    if os.geteuid() == 0:
        os.chown(f, *owner)
    apply_changes(
        root,
        [change("run.sh", "echo old\r\n", "echo new\r\n")],
        journal=journal,
        label="L",
        source_tool_name="t",
    )
    info = f.stat()
    assert (info.st_mode & 0o7777, (info.st_uid, info.st_gid)) == (0o750, owner)
    assert os.getxattr(f, "user.xcsh-test") == b"kept"
    undo(journal)
    assert f.read_bytes() == b"echo old\r\n" and f.stat().st_mode & 0o7777 == 0o750
    assert os.getxattr(f, "user.xcsh-test") == b"kept"


def test_posix_acl_kept(journal: Journal) -> None:
    root = journal.root
    f = write(root, "a.txt", "old")
    acl = "system.posix_acl_access"
    # version 2, entries: user::rw-, user:1234:r--, group::r--, mask::r--, other::---
    value = bytes.fromhex(
        "0200000001000600ffffffff02000400d204000004000400ffffffff10000400ffffffff20000000ffffffff"
    )
    try:
        os.setxattr(f, acl, value)
    except OSError:
        pytest.skip("this file system has no POSIX ACLs")
    stored = os.getxattr(f, acl)
    apply_changes(
        root, [change("a.txt", "old", "new")], journal=journal, label="L", source_tool_name="t"
    )
    assert os.getxattr(f, acl) == stored


def test_hard_linked_file_is_refused_with_a_message(journal: Journal) -> None:
    root = journal.root
    f = write(root, "a.txt", "old")
    os.link(f, root / "other-name.txt")
    with pytest.raises(ApplyError, match=r"other hard links: a\.txt") as info:
        apply_changes(
            root, [change("a.txt", "old", "new")], journal=journal, label="L", source_tool_name="t"
        )
    assert "Nothing was written" in str(info.value)
    assert (root / "other-name.txt").read_text() == "old" and f.read_text() == "old"


def test_retention_prunes_entries_and_their_blobs(tmp_path: Path, xcsh_home: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    journal = Journal.for_root(xcsh_home, root, retention=Retention(max_entries=4))
    f = write(root, "f.txt", "0")
    for i in range(10):
        apply_changes(
            root,
            [change("f.txt", str(i), str(i + 1))],
            journal=journal,
            label=f"step {i + 1}",
            source_tool_name="t",
        )
    kept = [s.label for s in journal.summaries()]
    assert len(kept) <= 4 and kept[-1] == "step 10"
    assert len(os.listdir(journal.entries_dir)) == 2 * len(kept)
    blobs = {p.name for p in journal.blobs.folder.iterdir()}
    assert len(blobs) <= len(kept) + 1
    undo(journal)
    assert f.read_text() == "9"


def test_retention_by_bytes(tmp_path: Path, xcsh_home: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    journal = Journal.for_root(xcsh_home, root, retention=Retention(max_bytes=10_000))
    write(root, "big.txt", "x" * 3000)
    for i in range(8):
        before, after = ("x", "y")[i % 2] * 3000 + str(i), ("y", "x")[i % 2] * 3000 + str(i + 1)
        (root / "big.txt").write_text(before)
        apply_changes(
            root,
            [change("big.txt", before, after)],
            journal=journal,
            label=str(i),
            source_tool_name="t",
        )
    assert journal.blobs.total_bytes() <= 10_000
    assert journal.summaries()[-1].label == "7"


def test_index_is_rebuilt_when_missing(journal: Journal) -> None:
    root = journal.root
    write(root, "a", "1")
    apply_changes(root, [change("a", "1", "2")], journal=journal, label="L", source_tool_name="t")
    journal.index_path.unlink()
    assert [s.label for s in journal.summaries()] == ["L"]


async def test_ast_edit_apply_is_journaled_and_undone(journal: Journal) -> None:
    root = journal.root
    src = write(root, "pkg/mod.py", 'def f():\n    print("hi")\n')
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(root), store, journal=journal)
    await tool.execute("c1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    assert journal.summaries() == []  # a preview records nothing
    result = await create_resolve_tool(store).execute(
        "r1", {"action": "apply", "reason": "looks right"}
    )
    assert not result.is_error and "log(" in src.read_text()
    [entry] = journal.summaries()
    assert entry.label == "AST Edit: 1 replacement in 1 file" and entry.paths == ("pkg/mod.py",)
    undo(journal)
    assert src.read_text() == 'def f():\n    print("hi")\n'


async def test_custom_tool_apply_is_recorded_and_undone(journal: Journal) -> None:
    root = journal.root
    write(root, "notes.md", "one\n")
    store = PendingActionStore()
    record_applies(store, journal)

    def apply(reason: str) -> str:
        (root / "notes.md").write_text("two\n")
        (root / "new.md").write_text("made\n")
        return "done"

    store.push(
        PendingAction(
            label="Rewrite notes",
            source_tool_name="custom_tool",
            apply=apply,
            preview=Preview(files=(PreviewFile(path="notes.md"), PreviewFile(path="new.md"))),
        )
    )
    result = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "ok"})
    assert not result.is_error
    outcome = undo(journal)
    assert outcome.restored == ["notes.md", "new.md"]
    assert (root / "notes.md").read_text() == "one\n" and not (root / "new.md").exists()


async def test_custom_apply_that_changes_nothing_is_not_undoable(journal: Journal) -> None:
    root = journal.root
    write(root, "a.txt", "x")
    store = PendingActionStore()
    record_applies(store, journal)

    def broken(reason: str) -> str:
        raise RuntimeError("disk full")

    store.push(
        PendingAction(
            label="L",
            source_tool_name="t",
            apply=broken,
            preview=Preview(files=(PreviewFile(path="a.txt"),)),
        )
    )
    resolve = create_resolve_tool(store)
    failed = await resolve.execute("r", {"action": "apply", "reason": "go"})
    assert failed.is_error and store.count == 1
    await resolve.execute("r2", {"action": "discard", "reason": "no"})
    assert undoable(journal) == []


async def test_a_partial_apply_is_journaled_as_one_entry_and_undone(journal: Journal) -> None:
    root = journal.root
    write(root, "a.py", "print(1)\nprint(2)\n")
    write(root, "b.py", "print(3)\n")
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(root), store, journal=journal)
    await tool.execute("c1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    result = await create_resolve_tool(store).execute(
        "r1", {"action": "apply", "reason": "just one", "only": ["c2"]}
    )
    assert not result.is_error
    assert (root / "a.py").read_text() == "print(1)\nlog(2)\n"
    [entry] = journal.summaries()
    assert entry.label == "AST Edit: 3 replacements in 2 files (only c2)"
    assert entry.paths == ("a.py",)
    undo(journal)
    assert (root / "a.py").read_text() == "print(1)\nprint(2)\n"


async def test_the_journal_wraps_a_new_value_and_never_rewrites_the_action_pushed(
    journal: Journal,
) -> None:
    root = journal.root
    write(root, "notes.md", "one\n")
    store = PendingActionStore()
    record_applies(store, journal)

    def apply(reason: str) -> str:
        (root / "notes.md").write_text("two\n")
        return "done"

    pushed = PendingAction(
        label="Rewrite notes",
        source_tool_name="custom_tool",
        apply=apply,
        preview=Preview(files=(PreviewFile(path="notes.md"),)),
    )
    kept = store.push(pushed)
    assert kept is not pushed and kept.supports.records_itself
    assert not pushed.supports.records_itself
    assert pushed.apply is apply and kept.apply is not apply
    assert (kept.id, kept.label, pushed.id) == ("p1", pushed.label, "")
    result = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "ok"})
    assert not result.is_error and undo(journal).restored == ["notes.md"]


@pytest.mark.parametrize("tail", [b'"caf\xc3', b'"caf\xff"'])
def test_a_record_cut_inside_a_character_reads_as_any_torn_record(
    journal: Journal, tail: bytes
) -> None:
    root = journal.root
    write(root, "a", "1")
    for label, before, after in (("café 1", "1", "2"), ("café 2", "2", "3")):
        apply_changes(
            root, [change("a", before, after)], journal=journal, label=label, source_tool_name="t"
        )
    state = journal.entries_dir / "000002.state"
    state.write_bytes(state.read_bytes()[:20] + tail)
    journal.index_path.unlink()
    assert [(s.label, s.state) for s in journal.summaries()] == [
        ("café 1", "committed"),
        ("café 2", None),
    ]
    intent = journal.entries_dir / "000002.json"
    intent.write_bytes(intent.read_bytes()[:40] + tail)
    journal.index_path.unlink(missing_ok=True)
    assert [s.label for s in journal.summaries()] == ["café 1"]


def test_retention_never_drops_a_record_it_cannot_read_nor_any_stored_content(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """Pruning keeps a record it cannot read, and every stored content while it is there.

    Only the record says which stored contents are its files'.
    """
    root = tmp_path / "ws"
    root.mkdir()
    journal = Journal.for_root(xcsh_home, root, retention=Retention(max_entries=4))
    write(root, "f.txt", "0")

    def step(i: int) -> None:
        apply_changes(
            root,
            [change("f.txt", str(i), str(i + 1))],
            journal=journal,
            label=f"step {i + 1}",
            source_tool_name="t",
        )

    step(0)
    step(1)
    intent = journal.entries_dir / "000001.json"
    intent.write_bytes(b'{"version": 2, "se')
    for i in range(2, 10):
        step(i)
    kept = [s.seq for s in journal.summaries()]
    assert len(kept) <= 4 and 1 not in kept  # pruning ran
    assert intent.read_bytes() == b'{"version": 2, "se'
    assert journal.blobs.has(sha256_hex(b"0"))  # entry 1's before content
