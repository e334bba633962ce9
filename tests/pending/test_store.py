"""PendingActionStore: contract §1."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from xcsh import PendingAction, PendingActionStore


def make(label: str) -> PendingAction:
    return PendingAction(label=label, source_tool_name="test", apply=lambda reason: None)


def test_empty_store() -> None:
    store = PendingActionStore()
    assert store.count == 0
    assert store.has_pending is False
    assert store.peek() is None
    assert store.pop() is None


def test_lifo_over_three_pushes() -> None:
    store = PendingActionStore()
    a, b, c = (store.push(make(label)) for label in "abc")
    assert store.count == 3
    assert store.has_pending
    assert store.peek() is c
    assert [store.pop(), store.pop(), store.pop()] == [c, b, a]
    assert store.pop() is None
    assert not store.has_pending


def test_clear_returns_actions_top_first() -> None:
    store = PendingActionStore()
    a, b = store.push(make("a")), store.push(make("b"))
    assert store.clear() == [b, a]
    assert store.count == 0


def test_push_listener_receives_action_and_count_synchronously() -> None:
    store = PendingActionStore()
    seen: list[tuple[str, int]] = []
    unsubscribe = store.subscribe_push(lambda action, count: seen.append((action.label, count)))
    store.push(make("first"))
    assert seen == [("first", 1)]  # already called when push returns
    store.push(make("second"))
    assert seen == [("first", 1), ("second", 2)]
    unsubscribe()
    unsubscribe()
    store.push(make("third"))
    assert len(seen) == 2


def test_listener_may_read_the_store() -> None:
    store = PendingActionStore()
    tops: list[str | None] = []
    store.subscribe_push(lambda action, count: tops.append(getattr(store.peek(), "label", None)))
    store.push(make("x"))
    assert tops == ["x"]


def test_concurrent_pushes_from_threads_lose_nothing() -> None:
    store = PendingActionStore()
    counts: list[int] = []
    lock = threading.Lock()

    def listener(action: PendingAction, count: int) -> None:
        with lock:
            counts.append(count)

    store.subscribe_push(listener)
    per_thread, threads = 500, 8
    barrier = threading.Barrier(threads)

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(per_thread):
            store.push(make(f"{n}-{i}"))

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    total = per_thread * threads
    assert store.count == total
    assert sorted(counts) == list(range(1, total + 1))
    labels = {store.pop().label for _ in range(total)}  # type: ignore[union-attr]
    assert len(labels) == total


def test_a_pending_action_is_a_frozen_keyword_only_value() -> None:
    action = make("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        action.apply = lambda reason: None  # type: ignore[misc]
    with pytest.raises(TypeError):
        PendingAction("a", "test", lambda reason: None)  # type: ignore[misc]


def test_a_composed_wrapper_keeps_its_value_for_every_push_and_leaves_the_pushed_one_alone() -> (
    None
):
    store = PendingActionStore()
    below = make("below")
    store.push(below)

    def wrap(action: PendingAction) -> PendingAction:
        return dataclasses.replace(action, label=f"wrapped {action.label}")

    store.compose(wrap)
    top = make("top")
    kept = store.push(top)
    assert [a.label for a in store.snapshot()] == ["wrapped top", "wrapped below"]
    assert kept is store.peek() and (top.label, below.label) == ("top", "below")
    assert kept.id == "p2" and top.id == ""  # a stamped copy was wrapped; top never changes
    with pytest.raises(RuntimeError):
        store.compose(wrap)
