"""The real ``xcsh`` in tmux with the scripted model: what a person sees and does.

Set ``XCSH_SCREENS_DIR=docs/screens`` to refresh the committed screen captures.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from tmux_harness import TmuxXcsh, needs_tmux

from helpers import find_process
from xcsh.agent import load_session, repair_tool_pairs
from xcsh.agent.run.history import CANCELLED_TEXT
from xcsh.core import ToolResultMessage

pytestmark = needs_tmux

ORIGINAL = 'def greet(name):\n    print("hello", name)\n'
EDIT = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($$$A)", "out": "log($$$A)"}]}}


@pytest.fixture
def project(tmp_path: Path, xcsh_home: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "greet.py").write_text(ORIGINAL)
    (xcsh_home / "settings.toml").write_text("max_forced_turns = 1\n")
    return root


def steps(folder: Path, name: str, items: list[dict[str, Any]]) -> Path:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(items))
    return path


COLOUR_CODES = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}


def colours(ansi_screen: str) -> set[int]:
    """The SGR colour codes used on an ``capture-pane -e`` screen (39/49 are defaults)."""
    found = set()
    for params in re.findall(r"\x1b\[([0-9;]*)m", ansi_screen):
        found |= {int(p) for p in params.split(";") if p.isdigit()} & COLOUR_CODES
    return found


def requests(steps_path: Path) -> list[dict[str, Any]]:
    log = steps_path.with_name(f"{steps_path.stem}.requests.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_preview_apply_undo(term: TmuxXcsh, project: Path, xcsh_home: Path) -> None:
    script = steps(project.parent, "edit", [{"tool_calls": [EDIT]}, {"text": "Over to you."}])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log instead of print")
    screen = term.wait_for(
        "Preview: AST Edit: 1 replacement in 1 file",
        '-    print("hello", name)',
        '+    log("hello", name)',
        "1 pending · top: AST Edit: 1 replacement in 1 file",
    )
    term.save("01-preview", screen)
    assert (project / "greet.py").read_text() == ORIGINAL

    term.type("/apply looks right")
    screen = term.wait_for("Accept: 1 replacement in 1 file", "reason: looks right", "no pending")
    term.save("02-apply", screen)
    assert (project / "greet.py").read_text() == 'def greet(name):\n    log("hello", name)\n'

    term.type("/undo")
    screen = term.wait_for("Undid 'AST Edit: 1 replacement in 1 file': restored greet.py.")
    term.save("03-undo", screen)
    assert (project / "greet.py").read_text() == ORIGINAL
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")


def test_approve_ask_answered_no(term: TmuxXcsh, project: Path, xcsh_home: Path) -> None:
    apply = {"name": "resolve", "arguments": {"action": "apply", "reason": "renamed"}}
    script = steps(
        project.parent,
        "ask",
        [{"tool_calls": [EDIT]}, {"tool_calls": [apply]}, {"text": "Understood, left as is."}],
    )
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--approve", "ask", "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log", enter=False)
    term.keys("M-Enter")  # Alt+Enter: a new line, not a submit
    term.type("instead of print")
    screen = term.wait_for(
        "Apply p1 AST Edit: 1 replacement in 1 file? (model's reason: renamed) "
        "[a]pply / [d]iscard / [r]eview:"
    )
    term.save("04-approve-ask", screen)
    term.type("sure")  # not a clear answer: asked again
    term.wait_for("Please answer a to apply, d to discard")
    term.type("d keep print for now")
    screen = term.wait_for(
        "Discard: 1 replacement in 1 file", "Understood, left as is.", "no pending"
    )
    term.save("05-approve-ask-declined", screen)
    assert (project / "greet.py").read_text() == ORIGINAL
    sent = requests(script)
    assert sent[0]["messages"][0]["content"][0]["text"] == "use log\ninstead of print"
    results = [m for m in sent[-1]["messages"] if m["role"] == "tool_result"]
    refusal = results[-1]
    assert refusal["tool_name"] == "resolve" and not refusal["is_error"]
    assert (
        "The user declined to apply 'AST Edit: 1 replacement in 1 file'"
        in (refusal["content"][0]["text"])
    )
    assert "Reason: keep print for now" in refusal["content"][0]["text"]


def test_ctrl_c_during_a_slow_tool_then_continue(
    term: TmuxXcsh, project: Path, xcsh_home: Path
) -> None:
    slow = {"name": "bash", "arguments": {"command": "sleep 30"}}
    first = steps(project.parent, "slow", [{"tool_calls": [slow]}, {"text": "never sent"}])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--provider", "scripted", "--model", str(first))
    term.wait_for("no pending")
    term.type("run the slow thing")
    term.wait_for('bash {"command": "sleep 30"}')
    term.keys("C-c")
    screen = term.wait_for("Cancelled.", "(press Ctrl-C again to exit)", timeout=8)
    term.save("06-ctrl-c", screen)
    term.keys("C-c")
    term.wait_for("[xcsh exited 0]")

    [session_file] = (xcsh_home / "sessions").glob("*.jsonl")
    saved = load_session(session_file)
    assert repair_tool_pairs(saved.messages)[1] == 0  # every call has exactly one result
    last = saved.messages[-1]
    assert isinstance(last, ToolResultMessage) and last.tool_name == "bash" and last.is_error
    assert CANCELLED_TEXT in last.content[0].text  # type: ignore[union-attr]

    second = steps(project.parent, "resume", [{"text": "Picked up where we left off."}])
    term.start(project, env, "--continue", "--provider", "scripted", "--model", str(second))
    term.wait_for(f"Resumed session {saved.id}", "you: run the slow thing", "no pending")
    term.keys("Up")  # the prompt history survives across sessions
    term.wait_for("> run the slow thing")
    term.keys("C-c")  # clears the line
    term.type("go on")
    screen = term.wait_for("Picked up where we left off.")
    term.save("07-continue", screen)
    sent = requests(second)[0]["messages"]
    roles = [(m["role"], m.get("tool_name")) for m in sent if not m.get("hidden")]
    assert roles == [
        ("user", None),
        ("assistant", None),
        ("tool_result", "bash"),
        ("user", None),
    ]
    assert sent[0]["content"][0]["text"] == "run the slow thing"
    assert sent[-1]["content"][0]["text"] == "go on"


def test_a_pending_preview_rebuilt_on_continue_shows_its_new_diff(
    term: TmuxXcsh, project: Path, xcsh_home: Path
) -> None:
    script = steps(project.parent, "stage", [{"tool_calls": [EDIT]}, {"text": "Over to you."}])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log instead of print")
    term.wait_for("1 pending · top: AST Edit: 1 replacement in 1 file")
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")

    (project / "greet.py").write_text(ORIGINAL + 'print("bye")\n')  # a second match
    again = steps(project.parent, "again", [{"text": "unused"}])
    term.start(project, env, "--continue", "--provider", "scripted", "--model", str(again))
    screen = term.wait_for(
        "re-previewed against the current files (was: AST Edit: 1 replacement in 1 file):",
        "Preview: AST Edit: 2 replacements in 1 file",
        '+    log("hello", name)',
        '+log("bye")',
        "This preview differs from the one left pending",
        "1 pending · top: AST Edit: 2 replacements in 1 file",
    )
    term.save("09-continue-rebuilt", screen)
    term.type("/pending")
    term.wait_for("files: greet.py (2 replacements)")
    term.type("/apply seen both")
    term.wait_for("Accept: 2 replacements in 1 file", "no pending")
    assert (project / "greet.py").read_text() == (
        'def greet(name):\n    log("hello", name)\nlog("bye")\n'
    )
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")


def test_plain_ascii_without_colour(term: TmuxXcsh, project: Path, xcsh_home: Path) -> None:
    script = steps(project.parent, "plain", [{"tool_calls": [EDIT]}, {"text": "Over to you."}])
    env = {"XCSH_HOME": str(xcsh_home), "NO_COLOR": "1", "PYTHONIOENCODING": "ascii"}
    term.start(project, env, "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log instead of print")
    screen = term.wait_for("1 pending - top: AST Edit: 1 replacement in 1 file")
    assert "* Preview: AST Edit: 1 replacement in 1 file" in screen
    assert '-> ast_edit {"ops"' in screen
    coloured = term.tmux("capture-pane", "-p", "-e")
    assert colours(coloured) == set()
    term.save("08-plain-ascii", screen)


def test_a_session_that_cannot_open_says_why(
    term: TmuxXcsh, project: Path, xcsh_home: Path
) -> None:
    script = steps(project.parent, "none", [])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--continue", "--provider", "scripted", "--model", str(script))
    screen = term.wait_for("[xcsh exited 2]")
    assert "xcsh: no saved session for" in screen


def test_ctrl_c_at_the_approval_question_cancels_and_keeps_the_preview(
    term: TmuxXcsh, project: Path, xcsh_home: Path
) -> None:
    apply = {"name": "resolve", "arguments": {"action": "apply", "reason": "renamed"}}
    script = steps(project.parent, "askc", [{"tool_calls": [EDIT]}, {"tool_calls": [apply]}])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--approve", "ask", "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log instead of print")
    term.wait_for("[a]pply / [d]iscard / [r]eview:")
    term.keys("C-c")
    term.wait_for("Cancelled.", "1 pending · top: AST Edit: 1 replacement in 1 file")
    assert (project / "greet.py").read_text() == ORIGINAL
    term.keys("C-c")
    term.wait_for("[xcsh exited 0]")


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def xcsh_ancestor(pid: int) -> int:
    """The xcsh process above ``pid`` (bash runs under xcsh's process supervisor)."""
    while pid > 1:
        if b"--provider" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
        stat = Path(f"/proc/{pid}/stat").read_text()
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    raise AssertionError("no xcsh process above the command")


@pytest.mark.parametrize("sig", ["TERM", "HUP"])
def test_terminate_signal_during_a_run_cancels_it_then_exits(
    term: TmuxXcsh, project: Path, xcsh_home: Path, sig: str
) -> None:
    import os
    import signal
    import time

    pids = project / "pids"  # inside the workspace: the sandbox lets bash write only there
    # $! would be a pid of the sandbox's own PID namespace: the sleep is found by a token
    token = f"xcsh-sleep-{project.parent.name}"[-40:]
    command = f'(exec -a "{token}" sleep 20) & echo started > {pids}; wait'
    slow = {"name": "bash", "arguments": {"command": command}}
    script = steps(project.parent, "slow", [{"tool_calls": [slow]}, {"text": "never sent"}])
    term.start(
        project, {"XCSH_HOME": str(xcsh_home)}, "--provider", "scripted", "--model", str(script)
    )
    term.wait_for("no pending")
    term.type("run the slow thing")
    deadline = time.monotonic() + 10
    while not (pids.is_file() and pids.read_text().strip()):
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    sleep_pid = find_process(token)
    xcsh_pid = xcsh_ancestor(sleep_pid)
    time.sleep(0.5)  # let the bash tool reach its supervised wait (see tests/agent/test_signals.py)
    os.kill(xcsh_pid, getattr(signal, f"SIG{sig}"))
    code = 128 + int(getattr(signal, f"SIG{sig}"))
    term.wait_for(f"[xcsh exited {code}]", timeout=20)
    deadline = time.monotonic() + 10
    while running(sleep_pid):
        assert time.monotonic() < deadline, "the command's process group survived"
        time.sleep(0.05)
    [session_file] = (xcsh_home / "sessions").glob("*.jsonl")
    saved = load_session(session_file)
    assert repair_tool_pairs(saved.messages)[1] == 0  # every call has exactly one result
    last = saved.messages[-1]
    assert isinstance(last, ToolResultMessage) and CANCELLED_TEXT in last.content[0].text  # type: ignore[union-attr]
    records = [json.loads(x) for x in session_file.read_text().splitlines()]
    assert [r["reason"] for r in records if r["type"] == "run_end"] == ["cancelled"]


def test_review_applies_two_of_three_changes(
    term: TmuxXcsh, project: Path, xcsh_home: Path
) -> None:
    (project / "greet.py").write_text('print("a")\nprint("b")\nprint("c")\n')
    script = steps(project.parent, "review", [{"tool_calls": [EDIT]}, {"text": "Over to you."}])
    env = {"XCSH_HOME": str(xcsh_home)}
    term.start(project, env, "--provider", "scripted", "--model", str(script))
    term.wait_for("no pending")
    term.type("use log instead of print")
    term.wait_for("1 pending · top: AST Edit: 3 replacements in 1 file")
    term.type("/review")
    term.wait_for("c1 (1/3) greet.py:1:1", '- print("a")', '+ log("a")', "[y,n,a,d,q,?]")
    term.type("y")
    term.wait_for("c2 (2/3) greet.py:2:1")
    term.type("sure")  # not a key of the review: the keys are shown and it asks again
    term.wait_for("n - skip this change")
    term.type("n")
    term.wait_for("c3 (3/3) greet.py:3:1")
    term.type("y")
    screen = term.wait_for(
        "Accept: 2 of 3 changes in 1 file",  # headed with what was applied
        "applied 2 of 3 changes: c1, c3; discarded: c2",
        "no pending",
    )
    term.save("06-review", screen)
    assert (project / "greet.py").read_text() == 'log("a")\nprint("b")\nlog("c")\n'
    before = len(requests(script))
    term.type("what landed?")
    deadline = time.monotonic() + 10
    while len(requests(script)) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    sent = requests(script)[-1]["messages"]
    told = json.dumps(sent)
    assert (
        "Applied 2 of 3 changes of p1 (AST Edit: 3 replacements in 1 file): c1, c3 in "
        "greet.py. Discarded: c2 in greet.py." in told
    )
    term.keys("C-d")
    term.wait_for("[xcsh exited 0]")
