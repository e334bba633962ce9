"""``/rewind`` in the real terminal (tmux): Esc Esc, the list, the choice, the prompt refilled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tmux_harness import TmuxXcsh, needs_tmux

from helpers import run_xcsh, tool_call, user_texts

pytestmark = needs_tmux


STEPS = [
    {"tool_calls": [tool_call("write", path="new.md", content="hi\n")]},
    {"text": "ok 1"},
    {"tool_calls": [tool_call("edit", path="notes.md", old_text="one", new_text="two")]},
    {"text": "ok 2"},
    {"tool_calls": [tool_call("ast_edit", ops=[{"pat": "print($A)", "out": "log($A)"}])]},
    {"tool_calls": [tool_call("resolve", action="apply", reason="ok")]},
    {"text": "ok 3"},
    {"tool_calls": [tool_call("bash", command="echo made > bashed.txt")]},
    {"text": "ok 4"},
    {
        "tool_calls": [
            tool_call("write", path="late.md", content="late\n"),
            tool_call("ast_edit", ops=[{"pat": "log($A)", "out": "info($A)"}]),
        ]
    },
    {"text": "leaving it pending"},
    {"text": "again"},
]


@pytest.fixture
def project(tmp_path: Path, xcsh_home: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    (root / "notes.md").write_text("one\n")
    (xcsh_home / "settings.toml").write_text("max_forced_turns = 1\n")
    return root


def test_esc_esc_rewinds_files_and_conversation_and_refills_the_prompt(
    tmp_path: Path, project: Path, xcsh_home: Path
) -> None:
    term = TmuxXcsh(tmp_path, timeout=20.0)
    script = tmp_path / "steps.json"
    script.write_text(json.dumps(STEPS))
    try:
        term.start(
            project,
            {"XCSH_HOME": str(xcsh_home)},
            "--provider",
            "scripted",
            "--model",
            str(script),
        )
        term.wait_for("no pending")
        term.type("first: add new.md")
        term.wait_for("ok 1")
        before_two = {p.name: p.read_bytes() for p in project.iterdir()}
        for text, answer in [
            ("second: edit notes", "ok 2"),
            ("third: log, not print", "ok 3"),
            ("fourth: run a script", "ok 4"),
            ("fifth: more", "1 pending"),
        ]:
            term.type(text)
            term.wait_for(answer)
        assert (project / "a.py").read_text() == "log(1)\nlog(2)\n"

        term.keys("Escape", "Escape")
        screen = term.wait_for("Messages of this session, newest first:", "Rewind to before which")
        assert (
            '  2. "second: edit notes"  since: 4 changes (#2, #3, #4, #5): notes.md, a.py, '
            "bashed.txt, late.md" in screen
        )
        term.type("2")
        term.wait_for("[1] files and conversation, [2] files only, [3] conversation only?")
        term.type("1")
        screen = term.wait_for(
            "Rewound to before message 2 (files and conversation).",
            "bashed.txt",
            "Discarded pending previews: AST Edit: 2 replacements in 1 file.",
            "> second: edit notes",
            "no pending",
        )
        term.save("10-rewind", screen)
        assert "Files put back (journal entry #6): notes.md, a.py, bashed.txt, late.md." in screen
        now = {p.name: p.read_bytes() for p in project.iterdir()}
        assert now == before_two  # what the bash command made is taken back too

        term.keys("Enter")  # send the message as it was put back
        term.wait_for("again")
        last = json.loads(script.with_name("steps.requests.jsonl").read_text().splitlines()[-1])
        assert user_texts(last) == ["first: add new.md", "second: edit notes"]
        assert "late.md" not in json.dumps(last["messages"])
    finally:
        term.close()


def test_a_message_sent_after_undo_is_listed_by_rewind_as_typed(
    tmp_path: Path, project: Path, xcsh_home: Path
) -> None:
    term = TmuxXcsh(tmp_path, timeout=20.0)
    script = tmp_path / "steps.json"
    script.write_text(json.dumps([STEPS[4], STEPS[5], STEPS[6], {"text": "noted"}]))
    try:
        term.start(
            project, {"XCSH_HOME": str(xcsh_home)}, "--provider", "scripted", "--model", str(script)
        )
        term.wait_for("no pending")
        term.type("log, not print")
        term.wait_for("ok 3")
        term.type("/undo")
        term.wait_for("Undid 'AST Edit: 2 replacements in 1 file': restored a.py.")
        term.type("keep print after all")
        term.wait_for("noted")
        term.keys("C-d")
        term.wait_for("[xcsh exited 0]")
    finally:
        term.close()
    listed = run_xcsh(["rewind", "--list"], cwd=project, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    texts = [line.split('"')[1] for line in listed.stdout.splitlines()[1:]]
    assert texts == ["keep print after all", "log, not print"]  # newest first, as typed
    last = json.loads(script.with_name("steps.requests.jsonl").read_text().splitlines()[-1])
    assert user_texts(last) == ["log, not print", "keep print after all"]
    assert "[xcsh: the user ran /undo. Undid" in json.dumps(last["messages"])  # still told
