"""``xcsh rewind`` over sessions the real agent recorded: files, conversation, limits, crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from helpers import CTRL_C_SCRIPT, run_xcsh, tool_call, user_texts, xcsh_env
from xcsh.agent import load_session
from xcsh.journal import Journal

EDIT_A = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
APPLY = {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}


def turn(
    project: Path, home: Path, number: int, text: str, steps: list[dict[str, Any]]
) -> subprocess.CompletedProcess[str]:
    """One user message through ``xcsh -p`` (``--continue`` after the first)."""
    script = project.parent / f"turn{number}.json"
    script.write_text(json.dumps(steps))
    args = ["--provider", "scripted", "--model", str(script)]
    if number > 1:
        args.append("--continue")
    run = run_xcsh([*args, "-p", text], cwd=project, home=home)
    assert run.returncode == 0, run.stderr
    return run


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below ``root`` with its bytes and permission bits."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mode & 0o7777)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def requests(script: Path) -> list[dict[str, Any]]:
    log = script.with_name(f"{script.stem}.requests.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    (root / "notes.md").write_text("one\n")
    (root / "notes.md").chmod(0o640)
    return root


def five_turns(project: Path, home: Path) -> dict[str, tuple[bytes, int]]:
    """A session of five messages; returns the files as they were before message 2."""
    turn(
        project,
        home,
        1,
        "first: add new.md",
        [{"tool_calls": [tool_call("write", path="new.md", content="hi\n")]}, {"text": "ok"}],
    )
    at_two = tree(project)
    turn(
        project,
        home,
        2,
        "second: edit notes",
        [
            {"tool_calls": [tool_call("edit", path="notes.md", old_text="one", new_text="two")]},
            {"text": "ok"},
        ],
    )
    turn(
        project,
        home,
        3,
        "third: log, not print",
        [{"tool_calls": [EDIT_A]}, {"tool_calls": [APPLY]}, {"text": "ok"}],
    )
    turn(
        project,
        home,
        4,
        "fourth: run a script",
        [{"tool_calls": [tool_call("bash", command="echo made > bashed.txt")]}, {"text": "ok"}],
    )
    (project / "by_hand.txt").write_text("typed\n")  # another program, between two messages
    turn(
        project,
        home,
        5,
        "fifth: more files",
        [
            {
                "tool_calls": [
                    tool_call("edit", path="new.md", old_text="hi", new_text="hello"),
                    tool_call("write", path="late.md", content="late\n"),
                ]
            },
            {"text": "ok"},
        ],
    )
    return at_two


def test_rewind_to_message_two_restores_files_names_bash_and_continue_resumes_there(
    project: Path, xcsh_home: Path
) -> None:
    at_two = five_turns(project, xcsh_home)
    assert (project / "a.py").read_text() == "log(1)\nlog(2)\n"
    listed = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()[1:]
    assert [line.split(".")[0].strip() for line in lines] == ["5", "4", "3", "2", "1"]
    assert (
        '2. "second: edit notes"  since: 5 changes (#2, #3, #4, #5, #6): '
        "notes.md, a.py, bashed.txt, new.md, late.md" in listed.stdout
    )

    run = run_xcsh(["rewind", "2"], cwd=project, home=xcsh_home)
    assert run.returncode == 0, run.stderr
    assert "Rewound to before message 2 (files and conversation)." in run.stdout
    assert (
        "Files put back (journal entry #7): notes.md, a.py, bashed.txt, new.md, late.md."
        in run.stdout
    )
    assert (
        "Not rewound, changed since message 2 outside the undo journal (bash commands or other "
        "programs): by_hand.txt." in run.stdout
    )
    assert "Message 2 was: second: edit notes" in run.stdout
    after = tree(project)
    assert after.pop("by_hand.txt")[0] == b"typed\n"  # named above, left as it was written
    assert after == at_two  # bytes and modes of every journaled file, bashed.txt gone again

    script = project.parent / "again.json"
    script.write_text(json.dumps([{"text": "redone"}]))
    resumed = run_xcsh(
        ["--provider", "scripted", "--model", str(script), "--continue", "-p", "second, again"],
        cwd=project,
        home=xcsh_home,
    )
    assert resumed.returncode == 0, resumed.stderr
    [request] = requests(script)
    assert user_texts(request) == ["first: add new.md", "second, again"]
    sent = json.dumps(request["messages"])
    assert "notes.md" not in sent and "bashed" not in sent and "late.md" not in sent
    relisted = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert '2. "second, again"  since: no recorded changes' in relisted.stdout
    assert "3." not in relisted.stdout


def test_a_file_edited_by_hand_since_is_left_alone_and_named(
    project: Path, xcsh_home: Path
) -> None:
    turn(project, xcsh_home, 1, "start", [{"text": "ok"}])
    turn(
        project,
        xcsh_home,
        2,
        "edit both",
        [
            {
                "tool_calls": [
                    tool_call("edit", path="notes.md", old_text="one", new_text="two"),
                    tool_call("write", path="x.md", content="x\n"),
                ]
            },
            {"text": "ok"},
        ],
    )
    (project / "x.md").write_text("my own words\n")
    run = run_xcsh(["rewind", "2", "--files-only"], cwd=project, home=xcsh_home)
    assert run.returncode == 0, run.stderr
    assert (project / "notes.md").read_text() == "one\n"
    assert (project / "x.md").read_text() == "my own words\n"
    assert "Files put back (journal entry #3): notes.md." in run.stdout
    assert "Left alone, changed since by someone else (not what xcsh wrote): x.md." in run.stdout
    # files only: the conversation still holds message 2
    saved = load_session(next((xcsh_home / "sessions").glob("*.jsonl")))
    assert [c.text for c in saved.checkpoints] == ["start", "edit both"]
    undo_list = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home)
    assert "applied  Write: x.md" in undo_list.stdout  # not put back, so not undone


def test_conversation_only_keeps_the_files_and_bad_numbers_are_refused(
    project: Path, xcsh_home: Path
) -> None:
    turn(
        project,
        xcsh_home,
        1,
        "one",
        [{"tool_calls": [tool_call("write", path="x.md", content="x\n")]}, {"text": "ok"}],
    )
    turn(project, xcsh_home, 2, "two", [{"text": "ok"}])
    bad = run_xcsh(["rewind", "3"], cwd=project, home=xcsh_home)
    assert bad.returncode == 2
    assert "has 2 user messages; there is no message 3 to rewind to" in bad.stderr
    both = run_xcsh(
        ["rewind", "1", "--files-only", "--conversation-only"], cwd=project, home=xcsh_home
    )
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    unknown = run_xcsh(["rewind", "--list", "--session", "nope"], cwd=project, home=xcsh_home)
    assert unknown.returncode == 2 and "no session with id 'nope'" in unknown.stderr
    assert "leave --session out for the latest one in this folder" in unknown.stderr
    elsewhere = run_xcsh(["rewind", "--list"], cwd=project.parent, home=xcsh_home)
    assert elsewhere.returncode == 2 and "no saved session for" in elsewhere.stderr
    run = run_xcsh(["rewind", "1", "--conversation-only"], cwd=project, home=xcsh_home)
    assert run.returncode == 0, run.stderr
    assert "The files keep every change made since." in run.stdout
    assert (project / "x.md").read_text() == "x\n"
    listed = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert "has no user message to rewind to" in listed.stdout


CRASH = """
import os, signal, sys
from xcsh.agent.record.persistence import SessionRecorder
from xcsh.fs import confined
from xcsh.journal import Journal
import xcsh.cli

where, k = sys.argv[1], int(sys.argv[2])
if where == "write":
    real = confined._write_all
    count = 0
    def write(fd, data):
        global count
        count += 1
        if count == k:
            os.kill(os.getpid(), signal.SIGKILL)
        real(fd, data)
    confined._write_all = write
elif where == "commit":  # every file written, no outcome record yet
    real_settle = Journal.settle
    def settle(self, *a, **kw):
        os.kill(os.getpid(), signal.SIGKILL)
    Journal.settle = settle
else:  # committed; the session file's rewind record not written yet
    real_record = SessionRecorder.write
    def record(self, data):
        if data.get("type") == "rewind":
            os.kill(os.getpid(), signal.SIGKILL)
        real_record(self, data)
    SessionRecorder.write = record
xcsh.cli.main(["rewind", "2"])
"""


@pytest.mark.parametrize("where", ["write", "commit", "record"])
def test_sigkill_during_a_rewind_then_recover_leaves_no_mixed_file(
    tmp_path: Path, xcsh_home: Path, where: str
) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    for i in range(6):
        (project / "pkg" / f"m{i}.py").write_text(f"print({i})\n")
    turn(project, xcsh_home, 1, "look", [{"text": "ok"}])
    before = tree(project)
    turn(
        project,
        xcsh_home,
        2,
        "log everywhere",
        [{"tool_calls": [EDIT_A]}, {"tool_calls": [APPLY]}, {"text": "ok"}],
    )
    applied = tree(project)
    assert applied != before
    killed = subprocess.run(
        [sys.executable, "-c", CRASH, where, "3"],
        cwd=project,
        env=xcsh_env(xcsh_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    recovered = run_xcsh(["recover"], cwd=project, home=xcsh_home)
    assert recovered.returncode == 0, recovered.stderr
    now = tree(project)
    saved = load_session(next((xcsh_home / "sessions").glob("*.jsonl")))
    journal = Journal.for_root(xcsh_home, project)
    assert journal.incomplete() == []
    if where == "write":  # rolled back: the tree and the conversation as they were
        assert "rolled back" in recovered.stdout
        assert now == applied
        assert [c.text for c in saved.checkpoints] == ["look", "log everywhere"]
    else:  # the files were all put back: the conversation follows them
        assert now == before
        assert "Completed the interrupted rewind of session" in recovered.stdout
        assert [c.text for c in saved.checkpoints] == ["look"]
    assert not any(".xcsh-" in name for name in os.listdir(project / "pkg"))


def test_a_session_open_in_a_running_xcsh_is_not_rewound_under_it(
    project: Path, xcsh_home: Path
) -> None:
    turn(
        project,
        xcsh_home,
        1,
        "one",
        [{"tool_calls": [tool_call("write", path="x.md", content="x\n")]}, {"text": "ok"}],
    )
    script = project.parent / "slow.json"
    script.write_text(json.dumps([{"tool_calls": [tool_call("bash", command="sleep 60")]}]))
    running = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "xcsh",
            "--provider",
            "scripted",
            "--model",
            str(script),
            "--continue",
            "-p",
            "two",
        ],
        cwd=project,
        env=xcsh_env(xcsh_home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    try:
        log = script.with_name("slow.requests.jsonl")
        while not log.exists():  # the resumed session is open and its model was asked
            assert running.poll() is None
            time.sleep(0.05)
        refused = run_xcsh(["rewind", "1"], cwd=project, home=xcsh_home)
        assert refused.returncode == 1
        assert "is open in a running xcsh. Rewind it there with /rewind" in refused.stderr
        assert (project / "x.md").read_text() == "x\n"
    finally:
        running.terminate()
        running.wait(timeout=60)
    done = run_xcsh(["rewind", "1"], cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert not (project / "x.md").exists()


@pytest.mark.parametrize(
    "moment", ["write-1", "write-6", "returned", "SIGTERM:write-1", "SIGHUP:commit"]
)
def test_ctrl_c_during_a_rewind_finishes_it_and_never_reports_130(
    tmp_path: Path, xcsh_home: Path, moment: str
) -> None:
    """Ctrl-C (SIGTERM, SIGHUP) from the first write of a rewind to its exit finishes
    the rewind.

    A rewind writes every file or none: files and conversation go back, exit 0
    (never 130, 143 or 129), and stderr says the signal came late.
    """
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    for i in range(6):
        (project / "pkg" / f"m{i}.py").write_text(f"print({i})\n")
    turn(project, xcsh_home, 1, "look", [{"text": "ok"}])
    before = tree(project)
    turn(
        project,
        xcsh_home,
        2,
        "log everywhere",
        [{"tool_calls": [EDIT_A]}, {"tool_calls": [APPLY]}, {"text": "ok"}],
    )
    run = subprocess.run(
        [sys.executable, "-c", CTRL_C_SCRIPT, moment, "rewind", "2"],
        cwd=project,
        env=xcsh_env(xcsh_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert "Rewound to before message 2 (files and conversation)." in run.stdout
    assert "Traceback" not in run.stderr
    name, _, when = moment.rpartition(":")
    if when != "returned":
        assert run.stderr.endswith(
            f"xcsh rewind: {name or 'Ctrl-C'} came while going back: a rewind is never cut "
            "short, so it was finished (as the lines above say).\n"
        )
    assert tree(project) == before
    saved = load_session(next((xcsh_home / "sessions").glob("*.jsonl")))
    assert [c.text for c in saved.checkpoints] == ["look"]
    assert Journal.for_root(xcsh_home, project).incomplete() == []


def test_rewind_and_its_list_show_control_characters_in_names_and_messages(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    hostile = "t\x1b]0;PWNED\x07\x1b[2J.py"
    (project / hostile).write_text("print(1)\n")
    (project / "nl\nx.py").write_text("print(2)\n")
    steps = [{"tool_calls": [EDIT_A]}, {"tool_calls": [APPLY]}, {"text": "ok"}]
    turn(project, xcsh_home, 1, "log \x1b[2Jeverywhere\x07", steps)
    listed = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2, listed.stdout  # the heading and one line per message
    assert "t^[]0;PWNED^G^[[2J.py" in lines[1] and "nl^Jx.py" in lines[1]
    done = run_xcsh(["rewind", "1"], cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert "Message 1 was: log ^[[2Jeverywhere^G" in done.stdout
    for said in (listed.stdout, listed.stderr, done.stdout, done.stderr):
        assert not any(ord(c) < 0x20 and c != "\n" for c in said), said
    assert (project / hostile).read_text() == "print(1)\n"
