"""``xcsh undo`` / ``xcsh recover`` as real subprocesses, over changes the real commands made."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_xcsh
from xcsh.journal import Change, Journal, apply_changes, undo, undoable

ORIGINAL = 'print("a")\nprint("b")\n'


def ast_edit(cwd: Path, home: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    return run_xcsh(
        ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", *paths], cwd=cwd, home=home
    )


def test_undo_lists_refuses_a_changed_file_then_restores(tmp_path: Path, xcsh_home: Path) -> None:
    src = tmp_path / "m.py"
    src.write_text(ORIGINAL)
    applied = ast_edit(tmp_path, xcsh_home)
    assert applied.returncode == 0, applied.stderr
    new = 'log("a")\nlog("b")\n'
    assert src.read_text() == new

    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert "applied  AST Edit: 2 replacements in 1 file: m.py" in listed.stdout
    src.write_text("hand edit\n")
    refused = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert refused.returncode == 1
    assert "these files changed since it was applied: m.py. Nothing was restored." in (
        refused.stderr
    )
    assert src.read_text() == "hand edit\n"
    src.write_text(new)
    done = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Undid 'AST Edit: 2 replacements in 1 file': restored m.py.\n"
    assert src.read_text() == ORIGINAL
    again = run_xcsh(["undo"], cwd=tmp_path, home=xcsh_home)
    assert again.returncode == 1 and "Nothing to undo" in again.stderr


def test_print_mode_write_edit_and_ast_edit_are_all_undoable(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.py").write_text("print(1)\n")
    (project / "notes.md").write_text("one\n")
    steps = [
        {"tool_calls": [{"name": "write", "arguments": {"path": "new.md", "content": "hi\n"}}]},
        {
            "tool_calls": [
                {
                    "name": "edit",
                    "arguments": {"path": "notes.md", "old_text": "one", "new_text": "two"},
                }
            ]
        },
        {
            "tool_calls": [
                {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
            ]
        },
        {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}]},
        {"text": "Done."},
    ]
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    run = run_xcsh(
        ["--provider", "scripted", "--model", str(tmp_path / "steps.json"), "-p", "go"],
        cwd=project,
        home=xcsh_home,
    )
    assert run.returncode == 0, run.stderr
    assert (project / "a.py").read_text() == "log(1)\n"
    journal = Journal.for_root(xcsh_home, project)
    labels = [s.label for s in undoable(journal)]
    assert labels == ["Write: new.md", "Edit: notes.md", "AST Edit: 1 replacement in 1 file"]
    for _ in range(3):
        undo(journal)
    assert (project / "a.py").read_text() == "print(1)\n"
    assert (project / "notes.md").read_text() == "one\n"
    assert not (project / "new.md").exists()


CONCURRENT_APPLY = """
import sys
from pathlib import Path
from xcsh.journal import Change, Journal, apply_changes
root, home, name = Path.cwd(), Path(sys.argv[1]), sys.argv[2]
before = (root / name).read_bytes()
journal = Journal.for_root(home, root)
for round in range(2):
    after = before + b"# round %d\\n" % round
    apply_changes(root, [Change(path=name, shown=name, before=before, after=after)],
                  journal=journal, label=f"{name} {round}", source_tool_name="t")
    before = after
"""


def test_eight_concurrent_processes_lose_no_entry(tmp_path: Path, xcsh_home: Path) -> None:
    for i in range(8):
        (tmp_path / f"f{i}.py").write_text(f"print({i})\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONCURRENT_APPLY, str(xcsh_home), f"f{i}.py"],
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    journal = Journal.for_root(xcsh_home, tmp_path)
    assert [s.seq for s in undoable(journal)] == list(range(1, 17))
    assert sorted(s.label for s in undoable(journal)) == sorted(
        f"f{i}.py {r}" for i in range(8) for r in range(2)
    )
    for _ in range(16):
        undo(journal)
    assert all((tmp_path / f"f{i}.py").read_text() == f"print({i})\n" for i in range(8))


def test_journal_unwritable_before_refuses_and_writes_nothing(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (xcsh_home / "journal").write_text("a file where the journal folder should be\n")
    src = tmp_path / "m.py"
    src.write_text(ORIGINAL)
    run = ast_edit(tmp_path, xcsh_home)
    assert run.returncode != 0
    assert "undo journal" in run.stdout + run.stderr
    assert "Nothing was written" in run.stdout + run.stderr
    assert src.read_text() == ORIGINAL
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"]


def test_recover_says_when_there_is_nothing(tmp_path: Path, xcsh_home: Path) -> None:
    run = run_xcsh(["recover"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 0 and run.stdout == "Nothing to recover: no apply was interrupted.\n"


def test_undo_list_lines_up_its_columns(tmp_path: Path, xcsh_home: Path) -> None:
    journal = Journal.for_root(xcsh_home, tmp_path)
    for i in range(11):
        name = f"f{i}.py"  # a new file each time
        change = Change(path=name, shown=name, before=None, after=f"print({i})\n".encode())
        apply_changes(tmp_path, [change], journal=journal, label=f"edit {i}", source_tool_name="t")
    undo(journal)  # entry 11 is undone (the undo itself is entry 12, not listed)
    with journal.locked():  # entry 13 is still being written by this (live) process
        journal.begin(kind="apply", label="in flight", source_tool_name="t", files=[])

    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[2] for line in lines] == ["applied"] * 10 + ["undone", "unfinished"]
    starts = {line.index("edit ") if "edit " in line else line.index("in flight") for line in lines}
    assert len(starts) == 1, listed.stdout  # every label starts in the same column
    assert lines[0].startswith(" 1  ") and lines[-1].startswith("13  ")


def _two_applies_the_second_unreadable(
    tmp_path: Path, home: Path, record: bytes, *, finished: bool
) -> Path:
    """Two applies by `xcsh ast-edit --yes` (a.py, then b.py); returns entry 2's intent record.

    That record is then replaced by ``record`` (its outcome record removed unless
    ``finished``) and the index dropped, so nothing but the records tells what the
    journal holds.
    """
    (tmp_path / "a.py").write_text(ORIGINAL)
    (tmp_path / "b.py").write_text(ORIGINAL)
    assert ast_edit(tmp_path, home, "a.py").returncode == 0
    assert ast_edit(tmp_path, home, "b.py").returncode == 0
    journal = Journal.for_root(home, tmp_path)
    if not finished:
        (journal.entries_dir / "000002.state").unlink()
    intent = journal.entries_dir / "000002.json"
    intent.write_bytes(record)
    journal.index_path.unlink()
    return intent


CORRUPT = {
    "torn": (b'{"version": 2, "seq": 2, "kind": "ap', "not valid JSON: "),
    "newer": (b'{"version": 99, "seq": 2}', "written by a newer xcsh (record version 99"),
    "fields": (b'{"version": 2, "seq": 2}', "not an intent record this xcsh reads"),
    "deep": (
        b'{"version": 2, "seq": 2, "files": ' + b"[" * 1000 + b"]" * 1000 + b"}",
        "not valid JSON: nested more than 100 levels deep: line 1 column 134",
    ),
}


@pytest.mark.parametrize("kind", sorted(CORRUPT))
def test_an_interrupted_apply_whose_record_cannot_be_read_is_said_never_skipped(
    tmp_path: Path, xcsh_home: Path, kind: str
) -> None:
    record, why = CORRUPT[kind]
    intent = _two_applies_the_second_unreadable(tmp_path, xcsh_home, record, finished=False)
    said = f"Cannot read the record of the interrupted apply 2 ({intent}: {why}"
    run = run_xcsh(["recover"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 1, run.stdout + run.stderr
    assert said in run.stdout
    assert "Nothing was changed and the record is kept." in run.stdout
    assert "find . -name '*.xcsh-000002.*'" in run.stdout
    assert "Nothing to recover" not in run.stdout
    assert intent.read_bytes() == record  # kept as it is
    assert (tmp_path / "b.py").read_text() == ORIGINAL.replace("print", "log")  # untouched
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert said in listed.stderr
    note = run_xcsh(["ast-edit", "--dry-run", "-p", "x", "-r", "y"], cwd=tmp_path, home=xcsh_home)
    assert "entry 2, whose record cannot be read" in note.stderr


def test_a_finished_entry_whose_record_cannot_be_read_is_named_by_undo(
    tmp_path: Path, xcsh_home: Path
) -> None:
    record, why = CORRUPT["torn"]
    intent = _two_applies_the_second_unreadable(tmp_path, xcsh_home, record, finished=True)
    listed = run_xcsh(["undo", "--list"], cwd=tmp_path, home=xcsh_home)
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == ["1"]
    assert listed.stderr.startswith(
        f"xcsh undo: Entry 2 of the undo journal cannot be read ({intent}: {why}"
    ), listed.stderr
    assert "cannot be undone; its files are as that change left them" in listed.stderr
    assert run_xcsh(["recover"], cwd=tmp_path, home=xcsh_home).returncode == 0
    assert intent.read_bytes() == record
