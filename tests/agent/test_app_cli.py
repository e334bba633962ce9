"""The composition root and print mode: settings, sessions on disk, output, approval."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import apply, call, preview_write_tool, read_tool

from helpers import run_xcsh
from xcsh.app import AppOptions, open_session
from xcsh.cli.agent_cmd import build_parser, run_print
from xcsh.cli.terminal_ask import NO_TERMINAL_MESSAGE
from xcsh.core import AgentTool, UsageError
from xcsh.pending import PendingActionStore

HAS_BUILTIN_TOOLS = importlib.util.find_spec("xcsh.structural") is not None


def tools_for(cwd: Path, store: PendingActionStore) -> list[AgentTool[Any]]:
    return [read_tool(cwd), preview_write_tool(cwd, store)]


def steps_file(folder: Path, steps: list[dict[str, Any]], name: str = "steps.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(steps))
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    monkeypatch.chdir(root)
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    return root


async def test_new_session_then_continue_sees_history(project: Path, xcsh_home: Path) -> None:
    steps = steps_file(project.parent, [{"text": "first answer"}, {"text": "second answer"}])
    options = AppOptions(cwd=project, provider="scripted", model=str(steps))
    opened = await open_session(options, tools=tools_for)
    assert opened.path.parent == xcsh_home / "sessions" and opened.resumed is None
    end = await opened.session.prompt("one")
    assert end.final_text == "first answer"

    again = await open_session(
        AppOptions(cwd=project, provider="scripted", model=str(steps), continue_latest=True),
        tools=tools_for,
    )
    assert again.path == opened.path and again.session.id == opened.session.id
    await again.session.prompt("two")
    log = [
        json.loads(x) for x in (project.parent / "steps.requests.jsonl").read_text().splitlines()
    ]
    texts = [m["content"][0]["text"] for m in log[-1]["messages"] if m["role"] == "user"]
    assert texts == ["one", "two"]
    by_id = await open_session(
        AppOptions(
            cwd=project, provider="scripted", model=str(steps), session_id=opened.session.id
        ),
        tools=tools_for,
    )
    assert len(by_id.session.messages) == 4


async def test_resume_errors_are_usage_errors(project: Path) -> None:
    steps = steps_file(project.parent, [])
    with pytest.raises(UsageError, match="no saved session"):
        await open_session(
            AppOptions(cwd=project, provider="scripted", model=str(steps), continue_latest=True),
            tools=tools_for,
        )
    with pytest.raises(UsageError, match="no session with id 'nope'"):
        await open_session(
            AppOptions(cwd=project, provider="scripted", model=str(steps), session_id="nope"),
            tools=tools_for,
        )


async def test_settings_toml_configures_provider_and_cap(project: Path, xcsh_home: Path) -> None:
    steps = steps_file(
        project.parent, [{"tool_calls": [call("preview_write", path="a", content="x")]}]
    )
    (xcsh_home / "settings.toml").write_text(
        f'provider = "scripted"\nmodel = "{steps}"\nmax_forced_turns = 2\n'
    )
    opened = await open_session(AppOptions(cwd=project), tools=tools_for)
    end = await opened.session.prompt("go")
    assert end.reason == "forced_cap" and "2 turns in a row" in end.message

    (xcsh_home / "settings.toml").write_text("provider = [unclosed\n")
    with pytest.raises(UsageError, match=r"settings\.toml is not valid TOML"):
        await open_session(AppOptions(cwd=project), tools=tools_for)


async def test_print_json_mode_prints_every_event(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = steps_file(
        project.parent,
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [apply("ok")]},
            {"text": "done"},
        ],
    )
    args = build_parser().parse_args(
        ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
    )
    out = io.StringIO()
    code = await run_print(args, stdout=out, tools=tools_for)

    assert code == 0
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert lines[0]["type"] == "session" and lines[0]["resumed"] is None
    kinds = [x["type"] for x in lines[1:]]
    assert kinds[0] == "turn_start" and kinds[-1] == "run_end"
    assert {"pending_pushed", "resolved", "tool_call_start", "tool_result", "turn_end"} <= set(
        kinds
    )
    assert lines[-1]["final_text"] == "done" and lines[-1]["reason"] == "stop"
    assert (project / "a.txt").read_text() == "new\n"


async def test_print_text_mode_answer_on_stdout_blocks_on_stderr(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = steps_file(
        project.parent,
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [apply("matches the request")]},
            {"text": "Wrote a.txt."},
        ],
    )
    args = build_parser().parse_args(["--provider", "scripted", "--model", str(steps), "-p", "go"])
    out = io.StringIO()
    code = await run_print(args, stdout=out, tools=tools_for)

    assert code == 0 and out.getvalue() == "Wrote a.txt.\n"
    err = capsys.readouterr().err
    assert "Preview: Write: a.txt" in err and "+new" in err
    assert "Accept: a.txt  [Write]" in err and "reason: matches the request" in err
    assert "\x1b[" not in err  # not a terminal: no colour


async def test_approve_ask_without_terminal_is_refused_at_start_up(
    project: Path, monkeypatch: pytest.MonkeyPatch, xcsh_home: Path
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))  # not a tty
    steps = steps_file(
        project.parent,
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [apply()]},
            {"text": "understood"},
        ],
    )
    args = build_parser().parse_args(
        ["--provider", "scripted", "--model", str(steps), "--approve", "ask", "-p", "go"]
    )
    out = io.StringIO()
    with pytest.raises(UsageError) as info:
        await run_print(args, stdout=out, tools=tools_for)
    assert str(info.value).startswith(NO_TERMINAL_MESSAGE)
    assert "stdin is not a terminal" in str(info.value) and "Hint: " in str(info.value)
    assert out.getvalue() == ""
    assert not (project / "a.txt").exists()
    assert not (project.parent / "steps.requests.jsonl").exists()  # no model request
    assert not (xcsh_home / "sessions").exists()  # no session recorded a fake decline


def test_cli_usage_errors(project: Path, xcsh_home: Path) -> None:
    no_task = run_xcsh([], cwd=project, home=xcsh_home)
    assert no_task.returncode == 2 and 'xcsh -p "TASK"' in no_task.stderr
    bad = run_xcsh(
        ["--provider", "scripted", "--model", "missing.json", "-p", "x"],
        cwd=project,
        home=xcsh_home,
    )
    assert bad.returncode == 2
    assert "steps file not found: missing.json" in bad.stderr and "Traceback" not in bad.stderr
    nothing = run_xcsh(["-p", "x"], cwd=project, home=xcsh_home)
    assert nothing.returncode == 2 and "ANTHROPIC_API_KEY" in nothing.stderr
    assert not (xcsh_home / "sessions").exists()


@pytest.mark.skipif(not HAS_BUILTIN_TOOLS, reason="the built-in structural tools are not installed")
def test_cli_print_runs_a_task_as_a_subprocess(project: Path, xcsh_home: Path) -> None:
    (project / "notes.txt").write_text("hello from disk\n")
    steps = steps_file(
        project.parent,
        [{"tool_calls": [call("read", path="notes.txt")]}, {"text": "The file says hello."}],
    )
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "-p", "read notes"],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The file says hello.\n"
    log = [
        json.loads(x) for x in (project.parent / "steps.requests.jsonl").read_text().splitlines()
    ]
    assert "hello from disk" in json.dumps(log[1]["messages"][-1])
    (saved,) = (xcsh_home / "sessions").glob("*.jsonl")
    assert json.loads(saved.read_text().splitlines()[0])["cwd"] == str(project.resolve())


@pytest.mark.skipif(not HAS_BUILTIN_TOOLS, reason="the built-in structural tools are not installed")
def test_json_mode_prints_tool_details_in_the_shape_scripts_read(
    project: Path, xcsh_home: Path
) -> None:
    # Scripts read `--mode json`'s tool results: ast_edit's details keep the keys
    # earlier releases printed (id, files, diff, ...), resolve's keep its fields.
    (project / "m.py").write_text("x = foo(1)\n")
    edit = call("ast_edit", ops=[{"pat": "foo($A)", "out": "bar($A)"}], lang="python", path="m.py")
    steps = steps_file(
        project.parent, [{"tool_calls": [edit]}, {"tool_calls": [apply("ok")]}, {"text": "done"}]
    )
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "-p", "go", "--mode", "json"],
        cwd=project,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    results = {
        event["message"]["tool_name"]: event["message"]["details"]
        for event in map(json.loads, done.stdout.splitlines())
        if event["type"] == "tool_result"
    }
    preview = results["ast_edit"]
    assert {"id", "label", "total", "files", "diff", "skipped", "arguments"} <= set(preview)
    assert preview["total"] == 1 and preview["id"].startswith("p")
    assert preview["files"][0]["file"] == "m.py" and "+x = bar(1)" in preview["diff"]
    outcome = results["resolve"]
    assert outcome["action"] == "apply" and outcome["status"] == "applied"
    assert outcome["preview_id"] == preview["id"]
    assert (project / "m.py").read_text() == "x = bar(1)\n"


def test_a_session_resumed_from_another_folder_works_in_its_own(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # The preview is rebuilt, and applied, in the folder the session started in;
    # the folder xcsh is started from is left alone, and stderr says so.
    started, other = tmp_path / "started", tmp_path / "other"
    for folder in (started, other):
        folder.mkdir()
        (folder / "a.py").write_text("x = foo(1)\n")
    edit = {"name": "ast_edit", "arguments": {"ops": [{"pat": "foo($A)", "out": "bar($A)"}]}}
    first = steps_file(tmp_path, [{"tool_calls": [edit]}], "first.json")
    opened = run_xcsh(
        ["--provider", "scripted", "--model", str(first), "-p", "go", "--mode", "json"],
        cwd=started,
        home=xcsh_home,
    )
    header = json.loads(opened.stdout.splitlines()[0])
    assert header["cwd"] == str(started.resolve())
    apply_step = {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}
    second = steps_file(tmp_path, [{"tool_calls": [apply_step]}, {"text": "done"}], "second.json")
    resumed = run_xcsh(
        ["--provider", "scripted", "--model", str(second), "-p", "go", "--session", header["id"]],
        cwd=other,
        home=xcsh_home,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert (started / "a.py").read_text() == "x = bar(1)\n"
    assert (other / "a.py").read_text() == "x = foo(1)\n"
    assert (
        f"xcsh: session {header['id']} works in {started.resolve()}, the folder it was "
        f"started in (not the current folder {other.resolve()})"
    ) in resumed.stderr


async def test_a_session_whose_folder_is_gone_is_refused(
    project: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    steps = steps_file(tmp_path, [{"text": "hi"}])
    opened = await open_session(
        AppOptions(cwd=gone, provider="scripted", model=str(steps)), tools=tools_for
    )
    await opened.session.prompt("one")
    opened.session.close()
    gone.rmdir()
    with pytest.raises(UsageError) as info:
        await open_session(
            AppOptions(
                cwd=project, provider="scripted", model=str(steps), session_id=opened.session.id
            ),
            tools=tools_for,
        )
    assert str(info.value).startswith(
        f"session {opened.session.id} ran in {gone.resolve()}, which is no longer a folder"
    )
