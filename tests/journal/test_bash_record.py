"""bash commands recorded in the undo journal, through the installed ``xcsh`` and a scripted model.

Each test runs real commands (``sed -i``, ``rm``, ``chmod``, ``ln -s``) in a
session and checks the workspace byte for byte, mode for mode, after
``xcsh undo``, ``xcsh rewind`` and ``xcsh recover``.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

from inotify_simple import INotify, flags

from helpers import XCSH, run_steps, run_xcsh, tool_results, xcsh_env

SETTINGS = 'sandbox = "auto"\n'
EDITS = (
    "sed -i 's/o/0/g' a.txt b.txt c.txt && rm d.txt && echo new > new.txt && "
    "chmod +x run.sh && rm e.txt && ln -s a.txt e.txt && echo x > build.log"
)


def tree(root: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every path below ``root`` (``.xcsh`` aside): its kind, bytes (or link target), mode."""
    out: dict[str, tuple[str, bytes, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                out[rel] = ("link", os.readlink(path).encode(), 0)
            elif stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", b"", stat.S_IMODE(info.st_mode))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return out


def seed(project: Path) -> None:
    project.mkdir(parents=True, exist_ok=True)
    for name, text in {
        "a.txt": "one\nfoo\n",
        "b.txt": "two\n",
        "c.txt": "four\n",
        "d.txt": "gone soon\n",
        "e.txt": "becomes a link\n",
        "run.sh": "#!/bin/sh\necho hi\n",
        ".gitignore": "*.log\n",
    }.items():
        (project / name).write_text(text)


def test_undo_restores_every_byte_mode_and_deleted_file_and_removes_the_created_one(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    seed(project)
    before = tree(project)
    code, events, err = run_steps(tmp_path, xcsh_home, [_bash(EDITS)], SETTINGS)
    assert code == 0, err
    after = tree(project)
    assert after["e.txt"] == ("link", b"a.txt", 0) and "d.txt" not in after
    assert after["run.sh"][2] & 0o111 and after["a.txt"][1] == b"0ne\nf00\n"
    result = next(e for e in events if e["type"] == "tool_result")
    details = result["message"]["details"]
    assert details["journal_entry"] == 1
    assert sorted(details["recorded"]) == [
        "a.txt",
        "b.txt",
        "c.txt",
        "d.txt",
        "e.txt",
        "new.txt",
        "run.sh",
    ]
    assert details["ignored_touched"] == 1  # build.log, ignored by .gitignore
    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home)
    assert "applied  sed -i" in listed.stdout
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    back = tree(project)
    assert {k: v for k, v in back.items() if k != "build.log"} == before
    assert back["build.log"][1] == b"x\n"  # ignored: not recorded, left alone


def test_rewind_after_three_turns_restores_the_tree_of_turn_one(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    seed(project)
    turns = [
        _bash("sed -i 's/one/ONE/' a.txt && echo first > t1.txt"),
        _bash(EDITS),
        _bash("rm -f b.txt new.txt && chmod 600 c.txt && mkdir -p sub && echo deep > sub/x.txt"),
    ]
    (xcsh_home / "settings.toml").write_text(SETTINGS)
    steps = tmp_path / "steps.json"
    for n, call in enumerate(turns):
        steps.write_text(json.dumps([{"tool_calls": [call]}, {"text": "done"}]))
        args = ["--provider", "scripted", "--model", str(steps), "-p", f"turn {n + 1}"]
        done = run_xcsh(([] if n == 0 else ["--continue"]) + args, cwd=project, home=xcsh_home)
        assert done.returncode == 0, done.stderr
        if n == 0:
            after_turn_one = tree(project)
    assert tree(project) != after_turn_one
    rewound = run_xcsh(["rewind", "2"], cwd=project, home=xcsh_home)
    assert rewound.returncode == 0, rewound.stdout + rewound.stderr
    now = tree(project)
    assert "sub" not in now  # made by turn 3 for its file (recorded as created): gone with it
    assert {k: v for k, v in now.items() if k != "build.log"} == after_turn_one


def test_sigkill_while_a_command_is_recorded_leaves_no_mixed_file(tmp_path: Path) -> None:
    """Kill xcsh the moment its record of a large command begins; recover settles it.

    The record commits a few milliseconds after it begins; on a busy machine the
    kill may land after that (then recovery has nothing to do, and the files must
    be whole all the same): the run is tried again, up to five times, until the kill
    lands inside the record.
    """
    old = {f"f{i:03d}.txt": (f"old {i}\n" * 20000).encode() for i in range(300)}
    command = "sed -i 's/old/new/' f*.txt && rm f000.txt"
    for attempt in range(5):
        project, home = tmp_path / f"proj{attempt}", tmp_path / f"home{attempt}"
        project.mkdir()
        home.mkdir()
        for name, data in old.items():
            (project / name).write_bytes(data)
        (home / "settings.toml").write_text(SETTINGS)
        steps = tmp_path / "steps.json"
        steps.write_text(json.dumps([{"tool_calls": [_bash(command)]}, {"text": "done"}]))
        args = ["--provider", "scripted", "--model", str(steps), "-p", "go"]
        proc = subprocess.Popen(
            [*XCSH, *args],
            cwd=project,
            env=xcsh_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        entries = _kill_once_an_intent_record_appears(proc, home)
        proc.wait()
        recovered = run_xcsh(["recover"], cwd=project, home=home)
        assert recovered.returncode == 0, recovered.stdout + recovered.stderr
        for name, data in old.items():
            path = project / name
            if name == "f000.txt":
                assert not path.exists()
                continue
            assert path.read_bytes() == _sed(data), name  # the command's output, whole
        assert entries is not None, "the record never began"
        if "Nothing to recover" not in recovered.stdout:
            break
    text = recovered.stdout + recovered.stderr
    assert "Recovered the interrupted record of the command" in text
    undone = run_xcsh(["undo"], cwd=project, home=home)  # settled as complete: undoable
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert {p.name: p.read_bytes() for p in project.iterdir()} == old


def _kill_once_an_intent_record_appears(
    proc: subprocess.Popen[bytes], xcsh_home: Path
) -> list[Path] | None:
    """SIGKILL ``proc`` the moment an intent record is published in its journal.

    The journal's ``entries`` folder is made just before the command's earlier
    bytes are stored; a watch on it then sees the intent record's name appear
    (its outcome record follows within milliseconds, too soon for polling).
    """
    deadline = time.monotonic() + 60
    folder = None
    while folder is None and time.monotonic() < deadline and proc.poll() is None:
        folder = next(iter(xcsh_home.glob("journal/*/entries")), None)
        time.sleep(0.001)
    if folder is None:
        return None
    with INotify() as watch:
        watch.add_watch(str(folder), flags.CREATE | flags.MOVED_TO)
        while time.monotonic() < deadline and proc.poll() is None:
            found = list(folder.glob("*.json"))
            if found:  # the intent record is there: the recording has begun
                proc.send_signal(signal.SIGKILL)
                return found
            watch.read(timeout=100)
    return list(folder.glob("*.json")) or None  # it ended before the watch saw it


def _sed(data: bytes) -> bytes:
    """What ``sed 's/old/new/'`` makes of ``data``: the first ``old`` of each line."""
    return b"".join(line.replace(b"old", b"new", 1) for line in data.splitlines(keepends=True))


def test_a_background_process_keeps_working_and_its_writes_are_recorded_later(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    calls = [
        _bash("(sleep 1; echo late > late.txt) > /dev/null 2>&1 &"),
        _bash("sleep 2; cat late.txt"),
    ]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, SETTINGS, one_per_turn=True)
    assert code == 0, err
    texts = [text for _, text in tool_results(events)]
    assert texts[1].startswith("late\n")  # the process ran on after the first command
    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home).stdout
    assert "late.txt" in listed  # recorded with the next command
    assert run_xcsh(["undo"], cwd=project, home=xcsh_home).returncode == 0
    assert not (project / "late.txt").exists()


def test_what_a_background_process_writes_between_commands_is_its_own_entry(
    tmp_path: Path, xcsh_home: Path
) -> None:
    from xcsh.journal import Journal
    from xcsh.journal.commands import CommandRecorder, background_note

    (tmp_path / "a.txt").write_text("a\n")
    journal = Journal.for_root(xcsh_home, tmp_path)
    recorder = CommandRecorder(journal)
    assert recorder.before() is None
    started = time.time_ns()
    (tmp_path / "a.txt").write_text("by the command\n")
    first = recorder.after("npm run dev &", 0, since_ns=started, background=True)
    assert first.files == ("a.txt",)
    (tmp_path / "served.txt").write_text("written later\n")  # between two commands
    later = recorder.before()
    assert later is not None and later.files == ("served.txt",)
    record = journal.entry(later.seq or 0)
    assert record is not None and record.label == "npm run dev & (in the background)"
    assert "recorded as undo journal entry #2" in background_note(later)
    assert recorder.after("true", 0, since_ns=time.time_ns(), background=False).seq is None
    (tmp_path / "mine.txt").write_text("by hand\n")  # nothing left running: someone else's
    assert recorder.before() is None
    assert recorder.after("true", 0, since_ns=time.time_ns(), background=False).seq is None
    assert [s.seq for s in journal.summaries()] == [1, 2]
    recorder.close()


def _bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command}}


def test_a_command_during_the_first_look_runs_and_names_the_files_it_could_not_keep(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """The first look has named the files but read none: the command does not wait for it.

    What it creates is recorded; the files it changed or deleted whose earlier
    bytes were not read yet are named in the result and the entry, and ``xcsh
    undo`` says it cannot put them back. Once the first look is done, the next
    command is recorded whole.
    """
    from xcsh.journal import Journal
    from xcsh.journal.commands import CommandRecorder, recorded_note

    project = tmp_path / "proj"
    project.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (project / name).write_text(f"{name} before\n")
    journal = Journal.for_root(xcsh_home, project)
    hold = threading.Event()  # the first look reads nothing until this is set
    recorder = CommandRecorder(journal, hold=hold)
    assert recorder.before() is None
    assert recorder.unread == 3
    started = time.time_ns()
    (project / "a.txt").write_text("changed by the command\n")
    (project / "b.txt").unlink()
    (project / "new.txt").write_text("made by the command\n")
    first = recorder.after("edit", 0, since_ns=started, background=False)
    assert first.files == ("new.txt",)
    assert first.not_kept == ("a.txt", "b.txt")
    note = recorded_note(first, 1 << 20)
    assert "a.txt, b.txt" in note and "xcsh undo cannot put them back" in note
    record = journal.entry(first.seq or 0)
    assert record is not None and record.bash is not None
    assert record.bash.not_kept == ("a.txt", "b.txt")
    hold.set()
    assert recorder.wait(60)
    assert recorder.unread == 0
    assert recorder.before() is None
    started = time.time_ns()
    (project / "a.txt").write_text("changed again\n")
    (project / "c.txt").write_text("changed too\n")
    second = recorder.after("edit again", 0, since_ns=started, background=False)
    assert second.files == ("a.txt", "c.txt") and second.not_kept == ()
    recorder.close()
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert (project / "a.txt").read_text() == "changed by the command\n"
    assert (project / "c.txt").read_text() == "c.txt before\n"
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert not (project / "new.txt").exists()
    assert (
        "Not put back (the journal holds no earlier bytes of them): a.txt, b.txt." in undone.stdout
    ), undone.stdout
