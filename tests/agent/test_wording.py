"""Counts in the agent's messages read correctly for one and for many."""

from __future__ import annotations

from xcsh.agent.run.steering import cap_message
from xcsh.core import text_result
from xcsh.core.wording import plural
from xcsh.pending import PendingAction, PendingActionStore


def store_with(*labels: str) -> PendingActionStore:
    store = PendingActionStore()
    for label in labels:
        store.push(
            PendingAction(label=label, source_tool_name="t", apply=lambda r: text_result("ok"))
        )
    return store


def test_plural() -> None:
    assert plural(1, "turn") == "1 turn"
    assert plural(0, "turn") == "0 turns"
    assert plural(3, "turn") == "3 turns"
    assert plural(2, "action waits", "actions wait") == "2 actions wait"


def test_cap_message_after_one_turn_has_no_false_plural() -> None:
    text = cap_message(1, store_with("Write: a.txt"))
    assert "1 turns" not in text and "turns in a row" not in text
    assert text == (
        "Stopped: the model was asked to resolve the pending preview in its last turn and "
        "did not. Still pending (newest first): Write: a.txt. Nothing was applied; the "
        "action stays pending."
    )


def test_cap_message_counts_turns_previews_and_calls() -> None:
    many = cap_message(3, store_with("Write: a.txt", "Write: b.txt"))
    assert "pending previews 3 turns in a row" in many and "the actions stay pending" in many
    one_failure = cap_message(1, store_with("Write: a.txt"), failed=1, last_error="boom")
    assert one_failure.startswith(
        "Stopped: the model's 1 `resolve` call in the last turn failed (last error: boom)."
    )
    failures = cap_message(2, store_with("Write: a.txt"), failed=2)
    assert failures.startswith(
        "Stopped: the model's 2 `resolve` calls in the last 2 turns all failed."
    )
