"""The undo journal on real files: record, undo, refuse when files changed since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xcsh.journal import (
    SCHEMA_VERSION,
    FileChange,
    Journal,
    NothingToUndo,
    UndoRefused,
    record_applies,
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


def test_record_then_undo_restores_bytes_and_marks_undone(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    a = write(root, "a.py", "old a\r\n")
    write(root, "sub/b.py", "old b\n")
    journal = Journal(tmp_path / "journal")
    a.write_bytes(b"new a\r\n")
    (root / "sub/b.py").write_bytes(b"new b\n")
    entry = journal.record_apply(
        root=root,
        label="AST Edit: 2 replacements in 2 files",
        source_tool_name="ast_edit",
        changes=[
            FileChange(path="a.py", before=b"old a\r\n", after=b"new a\r\n"),
            FileChange(path="sub/b.py", before=b"old b\n", after=b"new b\n"),
            FileChange(path="same.py", before=b"x", after=b"x"),  # unchanged: left out
        ],
    )
    assert (
        entry is not None
        and entry.seq == 1
        and [c.path for c in entry.files]
        == [
            "a.py",
            "sub/b.py",
        ]
    )
    saved = json.loads(entry.path.read_text())
    assert saved["version"] == SCHEMA_VERSION and saved["files"][0]["after_sha256"]

    outcome = journal.undo_last()
    assert outcome.restored == ["a.py", "sub/b.py"]
    assert (
        outcome.message == "Undid 'AST Edit: 2 replacements in 2 files': restored a.py, sub/b.py."
    )
    assert a.read_bytes() == b"old a\r\n" and (root / "sub/b.py").read_bytes() == b"old b\n"
    assert journal.entries()[0].undone
    with pytest.raises(NothingToUndo, match="Nothing to undo"):
        journal.undo_last()


def test_undo_refuses_and_names_changed_files_touching_nothing(tmp_path: Path) -> None:
    root = tmp_path
    write(root, "a.py", "new a\n")
    write(root, "b.py", "new b\n")
    journal = Journal(tmp_path / "j")
    journal.record_apply(
        root=root,
        label="AST Edit: 2 replacements in 2 files",
        source_tool_name="ast_edit",
        changes=[
            FileChange(path="a.py", before=b"old a\n", after=b"new a\n"),
            FileChange(path="b.py", before=b"old b\n", after=b"new b\n"),
        ],
    )
    (root / "b.py").write_bytes(b"edited by hand\n")
    with pytest.raises(UndoRefused) as info:
        journal.undo_last()
    assert info.value.files == ["b.py"]
    assert "these files changed since it was applied: b.py" in str(info.value)
    assert (root / "a.py").read_bytes() == b"new a\n"  # all or nothing
    assert not journal.entries()[0].undone


def test_created_file_is_removed_and_deleted_file_comes_back(tmp_path: Path) -> None:
    write(tmp_path, "new.py", "created\n")
    journal = Journal(tmp_path / "j")
    journal.record_apply(
        root=tmp_path,
        label="Write: 2 files",
        source_tool_name="custom_tool",
        changes=[
            FileChange(path="new.py", before=None, after=b"created\n"),
            FileChange(path="gone.py", before=b"was here\n", after=None),
        ],
    )
    journal.undo_last()
    assert not (tmp_path / "new.py").exists()
    assert (tmp_path / "gone.py").read_bytes() == b"was here\n"


def test_undo_walks_back_one_entry_at_a_time_and_filters_by_root(tmp_path: Path) -> None:
    f = write(tmp_path, "f.txt", "3")
    journal = Journal(tmp_path / "j")
    for before, after in (("1", "2"), ("2", "3")):
        journal.record_apply(
            root=tmp_path,
            label=f"step {after}",
            source_tool_name="t",
            changes=[FileChange(path="f.txt", before=before.encode(), after=after.encode())],
        )
    with pytest.raises(NothingToUndo, match="for"):
        journal.undo_last(root=tmp_path / "elsewhere")
    assert journal.undo_last(root=tmp_path).entry.label == "step 3"
    assert journal.undo_last().entry.label == "step 2"
    assert f.read_text() == "1"


def test_unreadable_and_newer_entries_are_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "j"
    folder.mkdir()
    (folder / "000001.json").write_text("{not json")
    (folder / "000002.json").write_text(json.dumps({"version": SCHEMA_VERSION + 1}))
    assert Journal(folder).entries() == []
    assert Journal(tmp_path / "missing").last_applied() is None


def test_an_action_whose_preview_names_no_file_is_not_journaled(tmp_path: Path) -> None:
    store = PendingActionStore()
    journal = Journal(tmp_path / "j")
    record_applies(store, journal, tmp_path)
    apply = lambda reason: None  # noqa: E731
    store.push(PendingAction(label="L", source_tool_name="t", apply=apply))
    assert store.peek() is not None and store.peek().apply is apply  # type: ignore[union-attr]


async def test_record_applies_journals_a_real_ast_edit_apply(tmp_path: Path) -> None:
    src = write(tmp_path, "pkg/mod.py", 'def f():\n    print("hi")\n')
    store = PendingActionStore()
    journal = Journal(tmp_path / "journal")
    record_applies(store, journal, tmp_path)
    tool = create_ast_edit_tool(str(tmp_path), store)
    await tool.execute("c1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    assert journal.entries() == []  # a preview records nothing
    result = await create_resolve_tool(store).execute(
        "r1", {"action": "apply", "reason": "looks right"}
    )
    assert not result.is_error and "log(" in src.read_text()
    [entry] = journal.entries()
    assert entry.label == "AST Edit: 1 replacement in 1 file"
    assert entry.files[0].path == "pkg/mod.py"
    assert entry.files[0].before == b'def f():\n    print("hi")\n'
    assert entry.files[0].after == src.read_bytes()
    journal.undo_last(root=tmp_path)
    assert src.read_text() == 'def f():\n    print("hi")\n'


async def test_failed_or_discarded_apply_records_nothing(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "x")
    store = PendingActionStore()
    journal = Journal(tmp_path / "journal")
    record_applies(store, journal, tmp_path)

    def broken(reason: str) -> str:
        (tmp_path / "a.txt").write_text("half")
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
    assert journal.entries() == []


def test_undo_keeps_the_file_mode_and_crlf(tmp_path: Path) -> None:
    script = write(tmp_path, "run.sh", "echo new\r\n")
    script.chmod(0o755)
    journal = Journal(tmp_path / "j")
    journal.record_apply(
        root=tmp_path,
        label="Edit run.sh",
        source_tool_name="t",
        changes=[FileChange(path="run.sh", before=b"echo old\r\n", after=b"echo new\r\n")],
    )
    journal.undo_last()
    assert script.read_bytes() == b"echo old\r\n"
    assert script.stat().st_mode & 0o777 == 0o755
