from xcsh.ui.progress import PROGRESS_INTERVAL, ProgressGate


def test_a_flood_costs_a_line_per_percent_and_interval_and_100_percent_always_shows() -> None:
    now = [0.0]
    gate = ProgressGate(clock=lambda: now[0])
    shown = []
    for step in range(1, 3001):  # 3,000 reports, 1 ms apart
        now[0] = step / 1000
        text = f"{round(100 * step / 3000)}% ({step}/3000)"
        if gate.show("c1", text):
            shown.append(text)
    assert shown[0] == "0% (1/3000)" and shown[-1].startswith("100% ")
    assert len(shown) <= 3 / PROGRESS_INTERVAL + 2  # one per interval, and the last
    assert gate.show("c2", "0% (1/3000)")  # another call has its own
    assert not gate.show("c1", "100% (3000/3000)")  # the same again: nothing new
