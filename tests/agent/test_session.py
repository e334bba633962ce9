"""The session API front ends use: approval, user resolves, saving and resuming."""

from __future__ import annotations

import json
from pathlib import Path

from agent_harness import MakeHarness, apply, call, preview_write_tool, read_tool

from xcsh.agent import (
    DECLINED_TEXT,
    AgentSession,
    Approval,
    PendingPushed,
    Resolved,
    SessionRecorder,
    latest_session_for,
    load_session,
    new_session_id,
    sessions_dir,
)
from xcsh.agent.session.config import SessionConfig
from xcsh.core import TextContent, UserMessage
from xcsh.pending import PendingAction, PendingActionStore
from xcsh.providers.scripted import ScriptedProvider


async def test_declined_apply_leaves_file_and_tells_model(make_harness: MakeHarness) -> None:
    asked: list[tuple[str, str]] = []

    async def deny(action: PendingAction, reason: str, only: tuple[str, ...] | None) -> Approval:
        asked.append((action.label, reason))
        return Approval(approved=False, reason="use tabs")

    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [apply("fits")]},
            {"text": "ok, will redo"},
        ],
        approval=deny,
    )
    (h.root / "a.txt").write_text("old\n")

    end = await h.session.prompt("go")

    assert asked == [("Write: a.txt", "fits")]
    assert (h.root / "a.txt").read_text() == "old\n"
    assert h.store.count == 0 and end.reason == "stop"
    seen = h.requests()[2]["messages"][-1]
    assert seen["role"] == "tool_result" and seen["is_error"] is False
    assert seen["content"][0]["text"] == DECLINED_TEXT.format(
        label="Write: a.txt", reason="use tabs"
    )
    (resolved,) = h.of_type(Resolved)
    assert resolved.action == "discard" and "use tabs" in resolved.reason


async def test_approved_apply_goes_ahead(make_harness: MakeHarness) -> None:
    async def allow(action: PendingAction, reason: str, only: tuple[str, ...] | None) -> Approval:
        return Approval(approved=True)

    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [apply()]},
        ],
        approval=allow,
    )
    await h.session.prompt("go")
    assert (h.root / "a.txt").read_text() == "new\n"


async def test_user_resolves_top_between_runs(make_harness: MakeHarness) -> None:
    h = make_harness(
        [{"tool_calls": [call("preview_write", path="a.txt", content="new\n")]}],
        max_forced_turns=1,
    )
    end = await h.session.prompt("go")
    assert end.reason == "forced_cap" and h.store.count == 1

    result = await h.session.pending.resolve_top("apply", "I checked it")

    assert not result.is_error
    assert (h.root / "a.txt").read_text() == "new\n"
    resolved = h.of_type(Resolved)[-1]
    assert (resolved.action, resolved.label, resolved.pending) == ("apply", "Write: a.txt", 0)
    note = h.session.messages[-1]
    assert isinstance(note, UserMessage) and note.hidden
    assert "apply" in note.text and "Wrote a.txt." in note.text
    # nothing left: the same resolve tool answers with contract §2's text
    again = await h.session.pending.resolve_top("discard", "x")
    assert again.is_error
    assert again.content[0].text == "No pending action to resolve. Nothing to apply or discard."  # type: ignore[union-attr]


def make_session(
    tmp_path: Path,
    root: Path,
    steps: list[object],
    recorder: SessionRecorder,
    messages: list[object] | None = None,
) -> tuple[AgentSession, PendingActionStore, list[object]]:
    steps_path = tmp_path / f"steps-{len(list(tmp_path.glob('steps-*')))}.json"
    steps_path.write_text(json.dumps(steps))
    store = PendingActionStore()
    session = AgentSession(
        provider=ScriptedProvider(steps_path),
        tools=[read_tool(root), preview_write_tool(root, store), _opaque_tool(store)],
        cwd=root,
        store=store,
        config=SessionConfig(
            recorder=recorder,
            messages=messages or [],  # type: ignore[arg-type]
            rebuildable_tools=frozenset({"preview_write"}),
            max_forced_turns=1,
        ),
    )
    events: list[object] = []
    session.subscribe(events.append)
    return session, store, events


def _opaque_tool(store: PendingActionStore):  # type: ignore[no-untyped-def]
    from xcsh.core import AgentTool, text_result

    def run(params: dict[str, object], ctx: object) -> object:
        store.push(
            PendingAction(label="Deploy: prod", source_tool_name="deploy", apply=lambda r: None)
        )
        return text_result("deploy staged")

    return AgentTool(
        name="deploy",
        label="Deploy",
        description="Stage a deploy.",
        parameters={"type": "object"},
        run=run,
    )


async def test_session_saved_and_resumed_with_pending_rebuilt(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("old\n")
    sid = new_session_id()
    path = sessions_dir(xcsh_home) / f"{sid}.jsonl"
    recorder = SessionRecorder(path, header={"id": sid, "cwd": str(root.resolve())})
    session, store, _ = make_session(
        tmp_path,
        root,
        [{"tool_calls": [call("deploy"), call("preview_write", path="a.txt", content="new\n")]}],
        recorder,
    )
    end = await session.prompt("stage things")
    assert end.reason == "forced_cap" and store.count == 2

    header = json.loads(path.read_text().splitlines()[0])
    assert header["type"] == "session" and header["version"] == 1 and header["id"] == sid
    kinds = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    assert {"message", "pending_pushed", "pending", "run_end"} <= set(kinds)
    assert latest_session_for(xcsh_home, root) == path

    # the file changes in between: the re-preview is made against the current file
    (root / "a.txt").write_text("changed\n")
    saved = load_session(path)
    assert [r.label for r in saved.pending] == ["Deploy: prod", "Write: a.txt"]
    resumed, store2, events = make_session(
        tmp_path,
        root,
        [{"tool_calls": [apply()]}, {"text": "applied"}],
        SessionRecorder(path),
        messages=saved.messages,  # type: ignore[arg-type]
    )
    report = await resumed.pending.restore(saved.pending)

    assert report.repreviewed == ["Write: a.txt"]
    # Same label, but it no longer replaces the same line: the report says so.
    [rebuilt] = report.rebuilt
    assert rebuilt.label == rebuilt.previous_label == "Write: a.txt"
    assert rebuilt.changes == [
        "the lines it replaces, or what it puts in their place, are not the same"
    ]
    assert "-changed\n+new" in rebuilt.preview
    # the first session was never ended (as after a crash): the resume says so
    assert report.dropped == [
        "Deploy: prod (it cannot be rebuilt from its tool's arguments, and xcsh stopped "
        "before discarding it, so its clean-up never ran)"
    ]
    assert [e.label for e in events if isinstance(e, PendingPushed)] == ["Write: a.txt"]
    pushed = next(e for e in events if isinstance(e, PendingPushed))
    assert "-changed" in pushed.preview
    end2 = await resumed.prompt("apply it")
    assert end2.final_text == "applied"
    assert (root / "a.txt").read_text() == "new\n"
    assert store2.count == 0
    notes = [m.text for m in resumed.messages if isinstance(m, UserMessage) and m.hidden]
    note = next(n for n in notes if n.startswith("The session was resumed."))
    assert "Deploy: prod" in note and "rebuilt" in note
    # the model learns that the rebuilt preview is not the one it staged, and what it is now
    assert "- Write: a.txt: This preview differs from the one left pending" in note
    assert "-changed\n+new" in note
    # the whole conversation is in the file: both runs
    texts = [
        m.text for m in load_session(path).messages if isinstance(m, UserMessage) and not m.hidden
    ]
    assert texts == ["stage things", "apply it"]


def test_truncated_last_line_is_tolerated(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": "/x"})
    recorder.message(UserMessage(content=[TextContent("hello")]))
    with path.open("a") as fh:
        fh.write('{"type": "message", "mess')
    saved = load_session(path)
    assert [m.text for m in saved.messages] == ["hello"]  # type: ignore[union-attr]


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"type": "session", "version": 99, "id": "s"}) + "\n")
    import pytest

    from xcsh.core import UsageError

    with pytest.raises(UsageError, match="version 99"):
        load_session(path)


def test_pending_records_keep_files_and_digest_and_old_files_still_load(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    recorder = SessionRecorder(path, header={"id": "s", "cwd": "/x"})
    stack = [
        {"tool_name": "t", "arguments": {}, "label": "Old", "source_tool_name": "t"},
        {
            "tool_name": "t",
            "arguments": {},
            "label": "New",
            "source_tool_name": "t",
            "files": ["a.py (1 replacement)"],
            "digest": "abc",
            "field_from_a_newer_xcsh": 1,
        },
    ]
    recorder.write({"type": "pending", "stack": stack})
    recorder.close()
    old, new = load_session(path).pending
    assert old.files is None and old.digest is None
    assert new.files == ["a.py (1 replacement)"] and new.digest == "abc"
