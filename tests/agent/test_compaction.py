"""Long sessions: older turns become a summary the model writes; --continue resumes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_harness import apply, call, preview_write_tool, read_tool

from xcsh.agent import AgentSession, Notice, SessionRecorder, load_session, repair_tool_pairs
from xcsh.agent.run.compaction import SUMMARY_HEADER, SUMMARY_REQUEST
from xcsh.agent.session.config import SessionConfig
from xcsh.app import AppOptions, open_session
from xcsh.core import AgentTool, ToolResultMessage, UserMessage
from xcsh.pending import PendingActionStore

BIG = "filler line for the context window\n" * 60  # about 500 tokens
LONG_PROMPT = "apply it. " + "Some context about the task. " * 95  # about 700 tokens


def tools_for(cwd: Path, store: PendingActionStore) -> list[AgentTool[Any]]:
    return [read_tool(cwd), preview_write_tool(cwd, store)]


def requests(steps: Path) -> list[dict[str, Any]]:
    log = steps.with_name(steps.stem + ".requests.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def texts(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"])


async def test_compaction_keeps_pending_previews_and_resumes_compacted(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "big.txt").write_text(BIG)
    # 80% of 2,000 tokens: the first request past it is the one with the long prompt
    (xcsh_home / "settings.toml").write_text("context_window = 2000\nmax_forced_turns = 1\n")
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [
                # run 1: read a big file, answer
                {"tool_calls": [call("read", path="big.txt")]},
                {"text": "It is filler."},
                # run 2: a preview left pending (the cap stops the run)
                {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
                {"text": "not now"},
                # run 3: the history is past 80% of 2,000 tokens: the summary step first
                {"text": "SUMMARY: read big.txt (filler); a write of a.txt is pending."},
                {"tool_calls": [apply("ok")]},
                {"text": "Applied."},
            ]
        )
    )
    options = AppOptions(cwd=project, provider="scripted", model=str(steps))
    opened = await open_session(options, tools=tools_for)
    session = opened.session
    events: list[Any] = []
    session.subscribe(events.append)
    assert (await session.prompt("what is in big.txt?")).final_text == "It is filler."
    assert (await session.prompt("write a.txt")).reason == "forced_cap"
    end = await session.prompt(LONG_PROMPT)
    assert end.final_text == "Applied." and (project / "a.txt").read_text() == "new\n"

    sent = requests(steps)
    summary_request = sent[4]
    assert summary_request["tool_choice"] == "none"
    assert summary_request["messages"][-1]["content"][0]["text"] == SUMMARY_REQUEST
    assert "filler line" in texts(summary_request)
    after = sent[5]
    first = after["messages"][0]
    assert first["hidden"] and first["content"][0]["text"].startswith(SUMMARY_HEADER)
    assert "SUMMARY: read big.txt" in first["content"][0]["text"]
    assert "filler line" not in texts(after)  # the big result went into the summary
    # the pending preview kept its call and its result
    kept = [m for m in after["messages"] if m["role"] == "assistant"]
    assert kept[0]["content"][0]["name"] == "preview_write"
    result = next(m for m in after["messages"] if m["role"] == "tool_result")
    assert result["tool_call_id"] == kept[0]["content"][0]["id"]
    assert after["tool_choice"] == {"name": "resolve"}
    assert repair_tool_pairs(session.messages)[1] == 0
    notices = [e for e in events if isinstance(e, Notice)]
    assert [n.kind for n in notices] == ["compaction"] and "2,000-token" in notices[0].message
    session.close()

    saved = load_session(opened.path)
    assert saved.messages[0].text.startswith(SUMMARY_HEADER)  # type: ignore[union-attr]
    (xcsh_home / "settings.toml").write_text("context_window = 100000\n")
    later = tmp_path / "later.json"
    later.write_text(json.dumps([{"text": "after resume"}]))
    resumed = await open_session(
        AppOptions(cwd=project, provider="scripted", model=str(later), continue_latest=True),
        tools=tools_for,
    )
    assert resumed.session.messages == session.messages
    assert (await resumed.session.prompt("anything else?")).final_text == "after resume"
    (last,) = requests(later)
    assert last["messages"][0]["content"][0]["text"].startswith(SUMMARY_HEADER)
    assert "filler line" not in texts(last)


async def test_compact_on_demand_and_a_failed_summary_changes_nothing(tmp_path: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [{"text": "one"}, {"text": "two"}, {"error": "overloaded"}, {"text": "the summary"}]
        )
    )
    from xcsh.providers.scripted import ScriptedProvider

    path = tmp_path / "s.jsonl"
    session = AgentSession(
        provider=ScriptedProvider(steps),
        tools=[read_tool(tmp_path)],
        cwd=tmp_path,
        store=PendingActionStore(),
        config=SessionConfig(
            recorder=SessionRecorder(path, header={"id": "s", "cwd": str(tmp_path)}),
        ),
    )
    events: list[Any] = []
    session.subscribe(events.append)
    assert not await session.compact()  # nothing older than the newest turn yet
    await session.prompt("first")
    await session.prompt("second")
    before = session.messages
    assert not await session.compact()  # the summary request fails
    assert session.messages == before
    assert await session.compact()
    history = session.messages
    assert isinstance(history[0], UserMessage) and "the summary" in history[0].text
    assert [m.text for m in history[1:]] == ["two"]  # type: ignore[union-attr]
    assert not any(isinstance(m, ToolResultMessage) for m in history)
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert notes[0] == "Nothing older to compact yet."
    assert notes[1].startswith("Could not compact: scripted model: overloaded")
    assert notes[2].startswith("Compacted 3 older messages")
    session.close()
    assert load_session(path).messages == history
