"""The interactive session in-process: real session, tools and files; a scripted model."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from xcsh.tui.app import InteractiveApp, InteractiveOptions
from xcsh.ui import TerminalStyle, make_console

EDIT = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
ORIGINAL = 'def f():\n    print("hi")\n'


@pytest.fixture
def project(tmp_path: Path, xcsh_home: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text(ORIGINAL)
    (xcsh_home / "settings.toml").write_text("max_forced_turns = 1\n")
    return root


def make_app(
    project: Path, steps: list[dict[str, Any]], *, unicode: bool = True, **options: Any
) -> tuple[InteractiveApp, io.StringIO, Path]:
    steps_path = project.parent / "steps.json"
    steps_path.write_text(json.dumps(steps))
    out = io.StringIO()
    style = TerminalStyle(color=False, unicode=unicode)
    console: Console = make_console(out, style)
    app = InteractiveApp(
        InteractiveOptions(cwd=project, provider="scripted", model=str(steps_path), **options),
        console=console,
        style=style,
    )
    return app, out, steps_path


def requests(steps_path: Path) -> list[dict[str, Any]]:
    log = steps_path.with_name("steps.requests.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


async def test_preview_status_apply_undo(project: Path) -> None:
    app, out, steps = make_app(
        project, [{"tool_calls": [EDIT]}, {"text": "Waiting."}, {"text": "noted"}]
    )
    assert app.status() == "starting..."
    await app.open()
    assert app.status().startswith("no pending ·")
    await app.run_prompt("rename print to log")
    screen = out.getvalue()
    assert '→ ast_edit {"ops": [{"pat": "print($A)", "out": "log($A)"}]}' in screen
    assert "◆ Preview: AST Edit: 1 replacement in 1 file" in screen
    assert '-    print("hi")' in screen and '+    log("hi")' in screen
    assert app.status().startswith("1 pending · top: AST Edit: 1 replacement in 1 file · ")
    assert (project / "a.py").read_text() == ORIGINAL

    await app.command("pending", "")
    assert "1. p1  AST Edit: 1 replacement in 1 file  [ast_edit]  <- top" in out.getvalue()
    await app.command("apply", "looks right")
    assert (project / "a.py").read_text() == 'def f():\n    log("hi")\n'
    assert "✔ Accept: 1 replacement in 1 file  [AST Edit]\n  reason: looks right" in out.getvalue()
    assert app.status().startswith("no pending ·")

    await app.run_prompt("thanks")  # the model sees the user's apply in its history
    last = requests(steps)[-1]["messages"]
    notes = [m["content"][0]["text"] for m in last if m["role"] == "user" and m["hidden"]]
    assert any("themselves (apply)" in n and "Applied 1 replacement" in n for n in notes)

    await app.command("undo", "")
    assert (project / "a.py").read_text() == ORIGINAL
    assert "Undid 'AST Edit: 1 replacement in 1 file': restored a.py." in out.getvalue()
    await app.command("undo", "")
    assert "Nothing to undo" in out.getvalue()
    await app.run_prompt("and now?")  # the model learns about the undo with the next prompt
    note, typed = [m for m in requests(steps)[-1]["messages"] if m["role"] == "user"][-2:]
    assert note["hidden"] and not typed["hidden"]  # the message stays what the user typed
    assert note["content"][0]["text"].startswith("[xcsh: the user ran /undo. Undid 'AST Edit")
    assert typed["content"][0]["text"] == "and now?"


async def test_undo_refuses_when_the_file_changed_since(project: Path) -> None:
    app, out, _ = make_app(project, [{"tool_calls": [EDIT]}, {"text": "Waiting."}])
    await app.open()
    await app.run_prompt("rename")
    await app.command("apply", "")
    assert "reason: applied by the user" in out.getvalue()
    (project / "a.py").write_text("edited by hand\n")
    await app.command("undo", "")
    assert "these files changed since it was applied: a.py. Nothing was restored." in out.getvalue()
    assert (project / "a.py").read_text() == "edited by hand\n"


async def test_discard_and_nothing_pending(project: Path) -> None:
    app, out, _ = make_app(project, [{"tool_calls": [EDIT]}, {"text": "Waiting."}], unicode=False)
    await app.open()
    await app.run_prompt("rename")
    assert app.status().startswith("1 pending - top: AST Edit: 1 replacement in 1 file - ")
    await app.command("discard", "wrong file")
    assert "- Discard: 1 replacement in 1 file  [AST Edit]\n  reason: wrong file" in out.getvalue()
    assert (project / "a.py").read_text() == ORIGINAL
    await app.command("apply", "")
    assert "No pending action to resolve. Nothing to apply or discard." in out.getvalue()


async def test_informational_commands(project: Path) -> None:
    app, out, steps = make_app(project, [])
    await app.open()
    assert await app.command("help", "") is None
    assert await app.command("nope", "") is None
    await app.command("model", "")
    await app.command("tools", "")
    await app.command("session", "")
    assert await app.command("exit", "") == "exit"
    text = out.getvalue()
    assert "/apply [reason]" in text and "Unknown command /nope. Type /help" in text
    assert f"model: {steps}" in text and "provider: scripted" in text
    # names padded to one column, so the labels line up
    width = max(len(name) for name in app.session.tools) if app.session else 0
    assert f"  {'ast_edit'.ljust(width)}  AST Edit\n" in text
    assert f"  {'read'.ljust(width)}  Read\n" in text
    assert f"  {'resolve'.ljust(width)}  Resolve  (hidden" in text
    assert app.session is not None and f"session: {app.session.id}" in text


async def test_open_failure_is_reported(project: Path) -> None:
    app, _, _ = make_app(project, [], continue_latest=True)
    await app.open()
    assert app.session is None and app.error is not None and "no saved session" in app.error
    assert app.status().startswith("error: no saved session")


async def test_a_model_apply_is_journaled_too(project: Path) -> None:
    apply = {"name": "resolve", "arguments": {"action": "apply", "reason": "done"}}
    app, out, _ = make_app(
        project, [{"tool_calls": [EDIT]}, {"tool_calls": [apply]}, {"text": "ok"}]
    )
    await app.open()
    await app.run_prompt("rename")
    assert "✔ Accept: 1 replacement in 1 file  [AST Edit]\n  reason: done" in out.getvalue()
    assert (project / "a.py").read_text() == 'def f():\n    log("hi")\n'
    await app.command("undo", "")
    assert (project / "a.py").read_text() == ORIGINAL


async def test_resumed_preview_applies_and_undoes(project: Path) -> None:
    first, _, _ = make_app(project, [{"tool_calls": [EDIT]}, {"text": "Waiting."}])
    await first.open()
    await first.run_prompt("rename")
    assert first.session is not None
    first.session.close()

    again, out, _ = make_app(project, [], continue_latest=True)
    await again.open()
    screen = out.getvalue()
    # contract §6: the rebuilt preview is shown with its label and diff before /apply.
    assert "◆ Preview: AST Edit: 1 replacement in 1 file" in screen
    assert '-    print("hi")\n+    log("hi")' in screen
    assert "differs" not in screen
    assert "you: rename" in screen
    await again.command("apply", "after resuming")
    assert (project / "a.py").read_text() == 'def f():\n    log("hi")\n'
    await again.command("undo", "")
    assert (project / "a.py").read_text() == ORIGINAL


async def test_a_preview_that_changed_before_resume_shows_its_new_diff(project: Path) -> None:
    first, _, _ = make_app(project, [{"tool_calls": [EDIT]}, {"text": "Waiting."}])
    await first.open()
    await first.run_prompt("rename")
    assert first.session is not None
    first.session.close()
    (project / "a.py").write_text(ORIGINAL + 'print("two")\n')  # a second match appears

    again, out, _ = make_app(project, [], continue_latest=True)
    await again.open()
    screen = out.getvalue()
    assert "re-previewed against the current files (was: AST Edit: 1 replacement in 1 file)" in (
        screen
    )
    assert "◆ Preview: AST Edit: 2 replacements in 1 file" in screen
    assert '-print("two")\n+log("two")' in screen
    assert (
        'This preview differs from the one left pending: it was "AST Edit: 1 replacement '
        'in 1 file" and is now "AST Edit: 2 replacements in 1 file"; it touched a.py '
        "(1 replacement); it now touches a.py (2 replacements). Review its diff before "
        "applying it."
    ) in screen
    assert (project / "a.py").read_text() == ORIGINAL + 'print("two")\n'


async def test_pending_lists_each_action_with_its_files_and_tool(project: Path) -> None:
    (project / "b.py").write_text('print("b")\nprint("c")\n')
    edit_a = {"name": "ast_edit", "arguments": {**EDIT["arguments"], "path": "a.py"}}
    edit_b = {"name": "ast_edit", "arguments": {**EDIT["arguments"], "path": "b.py"}}
    app, out, _ = make_app(project, [{"tool_calls": [edit_a, edit_b]}, {"text": "Waiting."}])
    await app.open()
    await app.run_prompt("rename in both")
    before = len(out.getvalue())
    await app.command("pending", "")
    listing = out.getvalue()[before:]
    assert listing == (
        "  1. p2  AST Edit: 2 replacements in 1 file  [ast_edit]  <- top\n"
        "     files: b.py (2 replacements)\n"
        "  2. p1  AST Edit: 1 replacement in 1 file  [ast_edit]\n"
        "     files: a.py (1 replacement)\n"
    )


async def test_instructions_command_lists_the_files_read(project: Path, xcsh_home: Path) -> None:
    (project / "AGENTS.md").write_text("Keep functions short.\n")
    app, out, _ = make_app(project, [])
    await app.open()
    await app.command("instructions", "")
    assert f"  1. {project / 'AGENTS.md'}  (21 characters)" in out.getvalue()
    off, out_off, _ = make_app(project, [], instructions=False)
    await off.open()
    await off.command("instructions", "")
    assert "No AGENTS.md instructions were read (--no-instructions)." in out_off.getvalue()


async def test_model_command_switches_the_model_for_the_next_turn(project: Path) -> None:
    app, out, steps = make_app(project, [{"text": "first model"}])
    await app.open()
    await app.run_prompt("one")
    other = project.parent / "other.json"
    other.write_text(json.dumps([{"text": "second model"}]))
    await app.command("model", f"scripted {other}")
    await app.run_prompt("two")
    text = out.getvalue()
    assert f"note: Now using scripted: {other}." in text and "second model" in text
    assert app.session is not None and app.session.provider.model == str(other)
    # the new model got the whole history
    log = other.with_name("other.requests.jsonl").read_text().splitlines()
    (request,) = [json.loads(line) for line in log]
    said = [m["content"][0]["text"] for m in request["messages"]]
    assert said == ["one", "first model", "two"]
    assert len(requests(steps)) == 1
    session_file = app.opened.path if app.opened else None
    assert session_file is not None
    records = [json.loads(line) for line in session_file.read_text().splitlines()]
    assert {"type": "model", "provider": "scripted", "model": str(other)} in records
    await app.command("model", "nosuch provider name")
    assert "xcsh: give a model: /model NAME, or /model PROVIDER NAME" in out.getvalue()
