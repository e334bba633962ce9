"""End to end with the real built-in tools: ast_edit previews, resolve, resume; custom tools."""

from __future__ import annotations

import io
import json
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from agent_harness import apply, call, discard

from helpers import STAMP_TOOL, run_xcsh, start_xcsh
from xcsh.app import AppOptions, open_session
from xcsh.cli.agent_cmd import build_parser, run_print

RESOLVE = {"name": "resolve"}
SOURCE = "x = foo(1)\ny = foo(2)\n"
EDIT = call("ast_edit", ops=[{"pat": "foo($A)", "out": "bar($A)"}], lang="python", path="m.py")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "custom_tools"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text(SOURCE)
    monkeypatch.chdir(root)
    return root


def write_steps(project: Path, steps: list[dict[str, Any]]) -> Path:
    path = project.parent / "steps.json"
    path.write_text(json.dumps(steps))
    return path


def requests(project: Path) -> list[dict[str, Any]]:
    log = project.parent / "steps.requests.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


async def print_run(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = await run_print(build_parser().parse_args(args), stdout=out)
    return code, out.getvalue()


async def test_ast_edit_forced_resolve_apply(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = write_steps(
        project, [{"tool_calls": [EDIT]}, {"tool_calls": [apply("rename")]}, {"text": "Renamed."}]
    )

    code, out = await print_run(
        ["--provider", "scripted", "--model", str(steps), "-p", "foo -> bar"]
    )

    assert code == 0 and out == "Renamed.\n"
    assert (project / "m.py").read_text() == "x = bar(1)\ny = bar(2)\n"
    log = requests(project)
    assert [r["tool_choice"] for r in log] == ["auto", RESOLVE, "auto"]
    assert {"ast_edit", "ast_grep", "read", "resolve"} <= set(log[0]["tools"])
    err = capsys.readouterr().err
    assert "Preview: AST Edit: 2 replacements in 1 file" in err
    assert "Accept: 2 replacements in 1 file  [AST Edit]" in err and "reason: rename" in err


async def test_ast_edit_forced_resolve_discard(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = write_steps(
        project,
        [{"tool_calls": [EDIT]}, {"tool_calls": [discard("not now")]}, {"text": "Left it."}],
    )

    code, _ = await print_run(["--provider", "scripted", "--model", str(steps), "-p", "maybe"])

    assert code == 0
    assert (project / "m.py").read_text() == SOURCE
    assert [r["tool_choice"] for r in requests(project)] == ["auto", RESOLVE, "auto"]
    assert "Discard: 2 replacements in 1 file  [AST Edit]" in capsys.readouterr().err


async def test_pending_ast_edit_is_repreviewed_on_continue(project: Path, xcsh_home: Path) -> None:
    (xcsh_home / "settings.toml").write_text("max_forced_turns = 1\n")
    steps = write_steps(project, [{"tool_calls": [EDIT]}])
    first = await open_session(AppOptions(cwd=project, provider="scripted", model=str(steps)))
    end = await first.session.prompt("stage it")
    first.session.close()
    assert end.reason == "forced_cap" and end.pending == 1

    # the file grows a third call before the session is resumed
    (project / "m.py").write_text(SOURCE + "z = foo(3)\n")
    steps = write_steps(project, [{"tool_calls": [apply("still right")]}, {"text": "Applied."}])
    resumed = await open_session(
        AppOptions(cwd=project, provider="scripted", model=str(steps), continue_latest=True)
    )
    assert resumed.resumed is not None
    assert resumed.resumed.repreviewed == ["AST Edit: 3 replacements in 1 file"]
    end = await resumed.session.prompt("go on")
    resumed.session.close()

    assert end.final_text == "Applied."
    assert (project / "m.py").read_text() == "x = bar(1)\ny = bar(2)\nz = bar(3)\n"
    first_request = requests(project)[-2]
    assert first_request["tool_choice"] == RESOLVE
    sent = json.dumps(first_request["messages"])
    assert "The session was resumed." in sent and "bar(3)" in sent
    assert "This preview differs from the one left pending" in sent


async def test_print_mode_shows_a_rebuilt_preview_before_the_model_resolves_it(
    project: Path, xcsh_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (xcsh_home / "settings.toml").write_text("max_forced_turns = 1\n")
    steps = write_steps(project, [{"tool_calls": [EDIT]}])
    code, _ = await print_run(["--provider", "scripted", "--model", str(steps), "-p", "stage"])
    assert code == 1
    capsys.readouterr()

    (project / "m.py").write_text(SOURCE + "z = foo(3)\n")
    steps = write_steps(project, [{"tool_calls": [discard("changed")]}, {"text": "Left it."}])
    argv = ["--provider", "scripted", "--model", str(steps), "--continue", "-p", "go on"]
    code, out = await print_run(argv)

    assert code == 0 and out == "Left it.\n"
    err = capsys.readouterr().err
    shown = err.index("Preview: AST Edit: 3 replacements in 1 file")
    assert "(was: AST Edit: 2 replacements in 1 file)" in err[:shown]
    assert "+z = bar(3)" in err[shown:]
    assert (
        'This preview differs from the one left pending: it was "AST Edit: 2 replacements '
        'in 1 file" and is now "AST Edit: 3 replacements in 1 file"'
    ) in err
    assert shown < err.index("Discard: 3 replacements in 1 file")
    assert (project / "m.py").read_text() == SOURCE + "z = foo(3)\n"


def test_custom_tool_tested_offline_through_the_cli(project: Path, xcsh_home: Path) -> None:
    tools = project / ".xcsh" / "tools"
    tools.mkdir(parents=True)
    shutil.copy(EXAMPLES / "two_previews.py", tools / "two_previews.py")
    (project / "VERSION").write_text("1.0.0\n")
    steps = write_steps(
        project,
        [
            {"tool_calls": [call("release_bump_preview", version="1.1.0", note="Faster loop.")]},
            {"tool_calls": [discard("changelog later")]},
            {"tool_calls": [apply("bump")]},
            {"text": "Bumped to 1.1.0."},
        ],
    )
    argv = ["--provider", "scripted", "--model", str(steps), "--trust-project", "--mode", "json"]
    done = run_xcsh([*argv, "-p", "release 1.1.0"], cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "session" and events[0]["load_errors"] == []
    resolved = [e for e in events if e["type"] == "resolved"]
    # LIFO: the changelog entry (pushed second) is decided first
    assert [(e["action"], e["label"]) for e in resolved] == [
        ("discard", "Release: CHANGELOG entry for 1.1.0"),
        ("apply", "Release: VERSION -> 1.1.0"),
    ]
    assert (project / "VERSION").read_text() == "1.1.0\n"
    assert not (project / "CHANGELOG.md").exists()
    assert [r["tool_choice"] for r in requests(project)] == ["auto", RESOLVE, RESOLVE, "auto"]
    assert events[-1] == {
        **events[-1],
        "type": "run_end",
        "reason": "stop",
        "final_text": "Bumped to 1.1.0.",
    }


def test_a_custom_tools_resolution_is_badged_with_the_tools_label(
    project: Path, xcsh_home: Path
) -> None:
    tools = project / ".xcsh" / "tools"
    tools.mkdir(parents=True)
    (tools / "stamp.py").write_text(STAMP_TOOL)
    steps = write_steps(
        project, [{"tool_calls": [call("stamp")]}, {"tool_calls": [apply("ok")]}, {"text": "x"}]
    )
    argv = ["--provider", "scripted", "--model", str(steps), "--trust-project", "-p", "stamp"]
    done = run_xcsh(argv, cwd=project, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    assert (project / "stamp.txt").read_text() == "stamped\n"
    # the label names no source and the action keeps the generic source_tool_name:
    # the badge is the pushing tool's label, not "custom_tool"
    assert "Accept: Write stamp.txt  [Stamp File]" in done.stderr
    assert "[custom_tool]" not in done.stderr


def test_ctrl_c_mid_tool_leaves_paired_history(project: Path, xcsh_home: Path) -> None:
    steps = write_steps(
        project,
        [{"tool_calls": [call("read", path="m.py"), call("bash", command="sleep 30")]}],
    )
    argv = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "run it"]
    proc = start_xcsh(argv, cwd=project, home=xcsh_home)
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(json.loads(line))
        if seen[-1]["type"] == "tool_call_start" and seen[-1]["name"] == "bash":
            break
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    events = seen + [json.loads(line) for line in rest.splitlines()]

    assert proc.returncode == 130, err
    assert events[-1]["type"] == "run_end" and events[-1]["reason"] == "cancelled"
    (saved,) = (xcsh_home / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in saved.read_text().splitlines()]
    messages = [r["message"] for r in records if r["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool_result", "tool_result"]
    calls = [b["id"] for b in messages[1]["content"] if b["type"] == "tool_call"]
    assert [m["tool_call_id"] for m in messages[2:]] == calls
    assert messages[2]["is_error"] is False and messages[3]["is_error"] is True
