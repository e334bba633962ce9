"""contract §3 end to end: previews, forced resolve, the gate, the cap, R1."""

from __future__ import annotations

from agent_harness import MakeHarness, apply, call, discard

from xcsh.agent import (
    REMINDER_TEXT,
    PendingPushed,
    Resolved,
    RunEnd,
    ToolResult,
    TurnStart,
)
from xcsh.core import ToolResultMessage

RESOLVE = {"name": "resolve"}
NOTHING = "No pending action to resolve. Nothing to apply or discard."


def results_of(h_events: list[object]) -> list[ToolResultMessage]:
    return [e.message for e in h_events if isinstance(e, ToolResult)]


async def test_preview_forced_resolve_apply_changes_file(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {
                "text": "I'll write it.",
                "tool_calls": [call("preview_write", path="a.txt", content="new\n")],
            },
            {"tool_calls": [apply("matches the task")]},
            {"text": "Done: a.txt written."},
        ]
    )
    (h.root / "a.txt").write_text("old\n")

    end = await h.session.prompt("write new into a.txt")

    assert end.reason == "stop"
    assert end.final_text == "Done: a.txt written."
    assert (h.root / "a.txt").read_text() == "new\n"
    assert h.choices() == ["auto", RESOLVE, "auto"]
    assert all("resolve" in r["tools"] for r in h.requests())
    # the hidden reminder went out exactly with the forced request
    second = h.requests()[1]["messages"][-1]
    assert second["role"] == "user" and second["hidden"] is True
    assert [b["text"] for b in second["content"]] == [REMINDER_TEXT]
    assert not any(m["role"] == "user" and m["hidden"] for m in h.requests()[0]["messages"])
    pushed = h.of_type(PendingPushed)
    assert [p.label for p in pushed] == ["Write: a.txt"]
    assert "-old" in pushed[0].preview and "+new" in pushed[0].preview
    (resolved,) = h.of_type(Resolved)
    assert (resolved.action, resolved.reason, resolved.is_error) == (
        "apply",
        "matches the task",
        False,
    )
    assert [e.forced for e in h.of_type(TurnStart)] == [False, True, False]
    assert h.store.count == 0


async def test_preview_discard_leaves_file(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [discard("wrong file")]},
            {"text": "Left it alone."},
        ]
    )
    (h.root / "a.txt").write_text("old\n")

    end = await h.session.prompt("maybe change a.txt")

    assert end.reason == "stop"
    assert (h.root / "a.txt").read_text() == "old\n"
    assert h.choices() == ["auto", RESOLVE, "auto"]
    resolve_result = results_of(h.events)[-1]
    assert resolve_result.content[0].text == "Discarded: Write: a.txt. Reason: wrong file"  # type: ignore[union-attr]


async def test_two_previews_one_turn_resolved_lifo(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {
                "tool_calls": [
                    call("preview_write", path="first.txt", content="1\n"),
                    call("preview_write", path="second.txt", content="2\n"),
                ]
            },
            {"tool_calls": [apply()]},
            {"tool_calls": [discard()]},
            {"text": "ok"},
        ]
    )

    await h.session.prompt("two files")

    # LIFO: the second preview is resolved first (applied), the first is discarded
    assert (h.root / "second.txt").read_text() == "2\n"
    assert not (h.root / "first.txt").exists()
    assert [r.label for r in h.of_type(Resolved)] == ["Write: second.txt", "Write: first.txt"]
    assert h.choices() == ["auto", RESOLVE, RESOLVE, "auto"]
    # forced exactly while something was pending when the request went out
    pending = [e.pending for e in h.of_type(TurnStart)]
    assert pending == [0, 2, 1, 0]
    assert [c == RESOLVE for c in h.choices()] == [p > 0 for p in pending]


async def test_model_ignoring_forced_choice_is_gated(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="x\n")]},
            {"tool_calls": [call("preview_write", path="b.txt", content="y\n"), apply()]},
            {"text": "ok"},
        ]
    )

    await h.session.prompt("go")

    gated, resolved = results_of(h.events)[1:3]
    assert gated.is_error and gated.tool_name == "preview_write"
    text = gated.content[0].text  # type: ignore[union-attr]
    assert "must be resolved first" in text and "'Write: a.txt'" in text
    # the gated call was not executed: nothing was pushed for b.txt
    assert [p.label for p in h.of_type(PendingPushed)] == ["Write: a.txt"]
    assert resolved.is_error is False
    assert (h.root / "a.txt").read_text() == "x\n"
    assert not (h.root / "b.txt").exists()
    assert h.choices() == ["auto", RESOLVE, "auto"]


async def test_call_gated_after_the_store_emptied_in_the_same_batch(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="x\n")]},
            {"tool_calls": [apply(), call("preview_write", path="b.txt", content="y\n")]},
            {"text": "ok"},
        ]
    )

    await h.session.prompt("go")

    resolved, gated = results_of(h.events)[1:3]
    assert resolved.is_error is False and gated.is_error
    text = gated.content[0].text  # type: ignore[union-attr]
    assert "'the pending preview'" not in text
    assert text == (
        "Not executed: 'preview_write' was refused because this turn began with a pending "
        "preview to resolve, and calls made in such a turn wait for the next one. Nothing "
        "is pending now: call 'preview_write' again if you still need it."
    )
    assert not (h.root / "b.txt").exists()


async def test_looping_model_stopped_by_cap(make_harness: MakeHarness) -> None:
    steps = [{"tool_calls": [call("preview_write", path="a.txt", content="x\n")]}]
    steps += [{"tool_calls": [call("read", path="a.txt")]}] * 10
    h = make_harness(steps, max_forced_turns=3)

    end = await h.session.prompt("loop")

    assert end.reason == "forced_cap"
    assert "3 turns in a row" in end.message and "Write: a.txt" in end.message
    assert end.pending == 1 and h.store.count == 1
    assert h.choices() == ["auto", RESOLVE, RESOLVE, RESOLVE]
    assert not (h.root / "a.txt").exists()
    assert isinstance(h.events[-1], RunEnd)


async def test_cap_after_failed_applies_says_they_failed(make_harness: MakeHarness) -> None:
    steps = [{"tool_calls": [call("preview_write", path="missing/a.txt", content="x\n")]}]
    steps += [{"tool_calls": [apply()]}] * 5  # the folder does not exist: each apply fails
    h = make_harness(steps, max_forced_turns=3)

    end = await h.session.prompt("loop")

    assert end.reason == "forced_cap"
    assert "and did not" not in end.message
    assert end.message.startswith(
        "Stopped: the model's 3 `resolve` calls in the last 3 turns all failed "
        "(last error: Apply failed: "
    )
    assert "Still pending (newest first): Write: missing/a.txt." in end.message
    assert h.store.count == 1


async def test_silent_model_under_forcing_is_reminded_then_capped(
    make_harness: MakeHarness,
) -> None:
    # steps run out: the model answers with nothing while a preview is pending
    h = make_harness(
        [{"tool_calls": [call("preview_write", path="a.txt", content="x\n")]}],
        max_forced_turns=2,
    )

    end = await h.session.prompt("go")

    assert end.reason == "forced_cap"
    assert h.choices() == ["auto", RESOLVE, RESOLVE]
    last = h.requests()[-1]["messages"][-1]
    assert last["hidden"] is True and last["content"][0]["text"] == REMINDER_TEXT


async def test_resolve_on_empty_store_starts_no_forcing(make_harness: MakeHarness) -> None:
    h = make_harness([{"tool_calls": [apply()]}, {"text": "nothing to do"}])

    end = await h.session.prompt("resolve please")

    assert end.reason == "stop"
    (result,) = results_of(h.events)
    assert result.is_error and result.content[0].text == NOTHING  # type: ignore[union-attr]
    assert h.choices() == ["auto", "auto"]
    assert not any(m["role"] == "user" and m["hidden"] for m in h.requests()[1]["messages"])
    assert h.of_type(Resolved) == []


async def test_preview_and_resolve_in_one_batch_sends_no_reminder(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="x\n"), apply()]},
            {"text": "done"},
        ]
    )

    await h.session.prompt("go")

    assert (h.root / "a.txt").read_text() == "x\n"
    assert h.choices() == ["auto", "auto"]
    assert not any(m["role"] == "user" and m["hidden"] for m in h.requests()[1]["messages"])


async def test_apply_failure_keeps_forcing_and_action(make_harness: MakeHarness) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="missing/dir/a.txt", content="x\n")]},
            {"tool_calls": [apply()]},
            {"tool_calls": [discard("cannot write there")]},
            {"text": "gave up"},
        ]
    )

    end = await h.session.prompt("go")

    first, second = h.of_type(Resolved)
    assert first.is_error and "Apply failed" in first.text and first.pending == 1
    assert second.action == "discard" and not second.is_error
    assert h.choices() == ["auto", RESOLVE, RESOLVE, "auto"]
    assert end.reason == "stop" and end.pending == 0


async def test_soft_steering_reminds_first_and_forces_only_when_ignored(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(
        [
            {"tool_calls": [call("preview_write", path="a.txt", content="new\n")]},
            {"tool_calls": [call("read", path="a.txt")]},  # ignores the reminder: gated
            {"tool_calls": [apply()]},
            {"tool_calls": [call("preview_write", path="b.txt", content="b\n")]},
            {"tool_calls": [apply()]},  # heeds the reminder: never forced
            {"text": "done"},
        ],
        steering="soft",
    )
    (h.root / "a.txt").write_text("old\n")
    end = await h.session.prompt("write")
    assert end.reason == "stop"
    assert h.choices() == ["auto", "auto", RESOLVE, "auto", "auto", "auto"]
    gated = [r for r in results_of(h.events) if r.tool_name == "read"]
    assert gated[0].is_error and "must be resolved first" in gated[0].content[0].text
    assert (h.root / "a.txt").read_text() == "new\n" and (h.root / "b.txt").read_text() == "b\n"
    # the reminder sent without forcing says that other calls are refused
    reminder = h.requests()[1]["messages"][-1]
    assert reminder["hidden"] and reminder["content"][0]["text"] == REMINDER_TEXT
    assert "other tool calls are refused" in reminder["content"][1]["text"]


async def test_soft_steering_still_stops_at_the_cap(make_harness: MakeHarness) -> None:
    h = make_harness(
        [{"tool_calls": [call("preview_write", path="a.txt", content="x")]}] + [{"text": "no"}] * 5,
        steering="soft",
        max_forced_turns=3,
    )
    end = await h.session.prompt("write")
    assert end.reason == "forced_cap" and end.pending == 1
    assert h.choices() == ["auto", "auto", RESOLVE, RESOLVE]
