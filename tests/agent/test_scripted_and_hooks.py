"""The scripted provider's contract, providers without forced choice, the terminal approval hook."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import call, preview_write_tool

from xcsh.agent import REMINDER_TEXT, AgentSession, Approval, Resolved, RunEnd, TurnStart
from xcsh.agent.session.config import SessionConfig
from xcsh.cli.terminal_ask import terminal_approval
from xcsh.core import ForcedTool, ModelRequest, TextContent, UsageError, UserMessage
from xcsh.pending import PendingAction, PendingActionStore, Preview, PreviewChange, PreviewFile
from xcsh.providers.base import ResponseDone, TextChunk
from xcsh.providers.scripted import ScriptedProvider, requests_log_path
from xcsh.tools import create_ast_edit_tool


def test_requests_log_sits_beside_steps(tmp_path: Path) -> None:
    assert requests_log_path(tmp_path / "steps.json") == tmp_path / "steps.requests.jsonl"
    assert requests_log_path(tmp_path / "a.b.json") == tmp_path / "a.b.requests.jsonl"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "cannot read"),
        ('{"text": "x"}', "must hold a JSON list"),
        ('[{"txt": "x"}]', "step 1 must be"),
        ('[{"text": "ok"}, {"tool_calls": [{"arguments": {}}]}]', "step 2, tool call 1"),
        ('[{"tool_calls": {"name": "x"}}]', "'tool_calls' must be a list"),
    ],
)
def test_malformed_steps_are_usage_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "steps.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=message):
        ScriptedProvider(path)


async def test_playback_ids_log_and_running_out(tmp_path: Path) -> None:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([{"text": "hi", "tool_calls": [call("a", x=1), call("b")]}]))
    provider = ScriptedProvider(path)
    request = ModelRequest(
        system="sys",
        messages=[UserMessage(content=[TextContent("task")])],
        tools=[],
        tool_choice=ForcedTool(name="resolve"),
    )
    first = [event async for event in provider.stream(request)]
    assert isinstance(first[0], TextChunk) and first[0].text == "hi"
    assert [type(e) for e in first] == [TextChunk, ResponseDone]
    done = first[-1]
    assert isinstance(done, ResponseDone)
    calls = done.message.tool_calls
    assert [c.name for c in calls] == ["a", "b"] and calls[0].arguments == {"x": 1}
    assert len({c.id for c in calls}) == 2
    assert done.message.stop_reason == "tool_use" and done.message.text == "hi"

    second = [event async for event in provider.stream(request)]
    (only,) = second
    assert isinstance(only, ResponseDone)
    assert only.message.content == [] and only.message.stop_reason == "stop"

    log = [json.loads(x) for x in (tmp_path / "steps.requests.jsonl").read_text().splitlines()]
    assert [r["index"] for r in log] == [1, 2]
    assert log[0]["tool_choice"] == {"name": "resolve"} and log[0]["tools"] == []
    assert log[0]["messages"][0]["content"][0]["text"] == "task"
    assert log[0]["system"] == "sys"


class NoForcing(ScriptedProvider):
    supports_forced_tool_choice = False


async def test_provider_without_named_choice_is_forced_with_required_and_only_resolve(
    tmp_path: Path,
) -> None:
    path = tmp_path / "steps.json"
    path.write_text(json.dumps([{"tool_calls": [call("preview_write", path="a", content="x")]}]))
    store = PendingActionStore()
    session = AgentSession(
        provider=NoForcing(path),
        tools=[preview_write_tool(tmp_path, store)],
        cwd=tmp_path,
        store=store,
        config=SessionConfig(
            max_forced_turns=1,
        ),
    )
    events: list[Any] = []
    session.subscribe(events.append)
    await session.prompt("go")
    log = [json.loads(x) for x in (tmp_path / "steps.requests.jsonl").read_text().splitlines()]
    # the strongest mode such a server has: "required", with resolve the only tool offered
    assert log[0]["tool_choice"] == "auto" and log[0]["tools"] == ["preview_write", "resolve"]
    assert log[1]["tool_choice"] == "required" and log[1]["tools"] == ["resolve"]
    blocks = [b["text"] for b in log[1]["messages"][-1]["content"]]
    assert blocks == [REMINDER_TEXT]
    assert [e.forced for e in events if isinstance(e, TurnStart)] == [False, True]
    assert isinstance(events[-1], RunEnd)


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("typed", "approved", "reason"), [("y\n", True, ""), ("n keep foo\n", False, "keep foo")]
)
async def test_terminal_approval_asks_on_stderr(typed: str, approved: bool, reason: str) -> None:
    asked = io.StringIO()
    hook = terminal_approval(FakeTty(typed), asked)
    action = PendingAction(
        label="AST Edit: 1 replacement in 1 file", source_tool_name="ast_edit", apply=print
    )
    decision = await asyncio.wait_for(hook(action, "rename", None), timeout=10)
    assert (decision.approved, decision.reason) == (approved, reason)
    assert "Apply AST Edit: 1 replacement in 1 file?" in asked.getvalue()
    assert "rename" in asked.getvalue()


def test_help_imports_no_provider_sdk() -> None:
    code = (
        "import sys\n"
        "from xcsh.cli import agent_cmd\n"
        "agent_cmd.build_parser().format_help()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'anthropic')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def test_terminal_approval_asks_again_then_reviews_part_by_part() -> None:
    asked = io.StringIO()
    # an empty Enter and "sure" are not answers; then review: keep c1, skip c2
    hook = terminal_approval(FakeTty("\nsure\nr\ny\nn\n"), asked)
    changes = (
        PreviewChange(id="c1", file="a.py", old="f(1)", new="g(1)"),
        PreviewChange(id="c2", file="a.py", old="f(2)", new="g(2)"),
    )
    action = PendingAction(
        label="AST Edit: 2 replacements in 1 file",
        source_tool_name="ast_edit",
        apply=print,
        preview=Preview(
            id="p1", files=(PreviewFile(path="a.py", changes=("c1", "c2")),), changes=changes
        ),
        apply_parts=lambda subset, reason: None,
    )
    decision = await asyncio.wait_for(hook(action, "rename", None), timeout=10)
    assert decision == Approval(approved=True, only=("c1",))
    shown = asked.getvalue()
    assert shown.count("Please answer a to apply, d to discard") == 2
    assert (
        "Apply p1 AST Edit: 2 replacements in 1 file? (model's reason: rename) "
        "[a]pply / [d]iscard / [r]eview: " in shown
    )
    assert "c2 (2/2) a.py" in shown


async def test_review_starts_from_the_changes_the_model_chose() -> None:
    asked = io.StringIO()
    hook = terminal_approval(FakeTty("r\ny\nn\n"), asked)
    changes = tuple(
        PreviewChange(id=f"c{n}", file="a.py", old=f"f({n})", new=f"g({n})") for n in (1, 2, 3)
    )
    action = PendingAction(
        label="AST Edit: 3 replacements in 1 file",
        source_tool_name="ast_edit",
        apply=print,
        preview=Preview(
            id="p1", files=(PreviewFile(path="a.py", changes=("c1", "c2", "c3")),), changes=changes
        ),
        apply_parts=lambda subset, reason: None,
    )
    decision = await asyncio.wait_for(hook(action, "two of them", ("c2", "c3")), timeout=10)
    assert decision == Approval(approved=True, only=("c2",))
    shown = asked.getvalue()
    assert (
        "Apply p1 AST Edit: 3 replacements in 1 file, only the model's choice: 2 of 3 changes "
        "(c2, c3 in a.py)? (model's reason: two of them)" in shown
    )
    # the walk covers the model's choice alone: c1 is never offered
    assert "c2 (1/2) a.py" in shown and "c3 (2/2) a.py" in shown
    assert "c1 (" not in shown


async def test_input_closed_at_the_question_declines() -> None:
    hook = terminal_approval(FakeTty(""), io.StringIO())
    action = PendingAction(label="L", source_tool_name="t", apply=print)
    decision = await asyncio.wait_for(hook(action, "why", None), timeout=10)
    assert not decision.approved and decision.reason == "input closed before an answer"


async def test_an_approval_that_keeps_some_changes_applies_just_those(tmp_path: Path) -> None:
    async def review(action: PendingAction, reason: str, only: tuple[str, ...] | None) -> Approval:
        return Approval(approved=True, only=("c2",))

    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    steps = tmp_path / "steps.json"
    edit = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
    resolve = {"name": "resolve", "arguments": {"action": "apply", "reason": "both"}}
    steps.write_text(
        json.dumps([{"tool_calls": [edit]}, {"tool_calls": [resolve]}, {"text": "ok"}])
    )
    store = PendingActionStore()
    session = AgentSession(
        provider=ScriptedProvider(steps),
        tools=[create_ast_edit_tool(str(root), store)],
        cwd=root,
        store=store,
        config=SessionConfig(
            approval=review,
        ),
    )
    events: list[Any] = []
    session.subscribe(events.append)
    await session.prompt("go")
    assert (root / "a.py").read_text() == "print(1)\nlog(2)\n"
    log = [json.loads(x) for x in (tmp_path / "steps.requests.jsonl").read_text().splitlines()]
    told = log[2]["messages"][-1]["content"][0]["text"]
    assert told.startswith(
        "Applied 1 of 2 changes of p1 (AST Edit: 2 replacements in 1 file): c2 in a.py. "
        "Discarded: c1 in a.py."
    )
    (resolved,) = [e for e in events if isinstance(e, Resolved)]
    assert [c.id for c in resolved.outcome.applied] == ["c2"]


async def test_the_approval_hook_is_told_the_models_only_and_applies_it(tmp_path: Path) -> None:
    told: list[tuple[str, ...] | None] = []

    async def approve(action: PendingAction, reason: str, only: tuple[str, ...] | None) -> Approval:
        told.append(only)
        return Approval(approved=True)

    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    steps = tmp_path / "steps.json"
    edit = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
    resolve = {"name": "resolve", "arguments": {"action": "apply", "reason": "r", "only": ["c2"]}}
    every = {"name": "resolve", "arguments": {"action": "apply", "reason": "r", "only": ["a.py"]}}
    steps.write_text(
        json.dumps(
            [
                {"tool_calls": [edit]},
                {"tool_calls": [resolve]},
                {"tool_calls": [edit]},
                {"tool_calls": [every]},
                {"text": "ok"},
            ]
        )
    )
    store = PendingActionStore()
    session = AgentSession(
        provider=ScriptedProvider(steps),
        tools=[create_ast_edit_tool(str(root), store)],
        cwd=root,
        store=store,
        config=SessionConfig(
            approval=approve,
        ),
    )
    await session.prompt("go")
    # the first apply named one change of two; the second named the whole file: all of it
    assert told == [("c2",), None]
    assert (root / "a.py").read_text() == "log(1)\nlog(2)\n"


async def test_a_rebuilt_preview_keeps_the_call_that_made_it(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    steps = tmp_path / "steps.json"
    first = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
    second = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print(2)", "out": "out(2)"}]}}
    apply = {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}
    steps.write_text(
        json.dumps(
            [{"tool_calls": [first, second]}, {"tool_calls": [apply]}, {"tool_calls": [apply]}]
        )
    )
    store = PendingActionStore()
    session = AgentSession(
        provider=ScriptedProvider(steps),
        tools=[create_ast_edit_tool(str(root), store)],
        cwd=root,
        store=store,
        config=SessionConfig(
            max_forced_turns=1,
        ),
    )
    await session.prompt("go")
    top = store.peek()
    assert store.count == 1 and top is not None
    assert (top.id, top.preview.rebuilt_from) == ("p3", "p1")
    (record,) = session.pending.records()
    # a resumed session can preview it again with the arguments of the call that made p1
    assert record.tool_name == "ast_edit" and record.arguments == first["arguments"]
