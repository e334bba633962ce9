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

from xcsh.agent import REMINDER_TEXT, AgentSession, RunEnd, TurnStart
from xcsh.cli.agent_cmd import terminal_approval
from xcsh.core import ForcedTool, ModelRequest, TextContent, UsageError, UserMessage
from xcsh.pending import PendingAction, PendingActionStore
from xcsh.providers.base import ResponseDone, TextChunk
from xcsh.providers.scripted import ScriptedProvider, requests_log_path


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
        max_forced_turns=1,
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
    decision = await asyncio.wait_for(hook(action, "rename"), timeout=10)
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
