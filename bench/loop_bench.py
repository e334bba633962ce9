"""Agent loop overhead with the scripted model: round trips per second, peak memory.

One run of N turns; each turn the model calls one tool (a trivial read-only
tool, or a preview followed by ``resolve`` in the steering variant) and gets
its result back. The model costs nothing, so the numbers are the loop's own
cost: building requests, streaming events, executing calls, appending
history, notifying a subscriber, and (with ``--record``) writing the session
file. Peak memory is measured with tracemalloc (Python allocations only).

    python bench/loop_bench.py            # 1,000 turns, several variants
    python bench/loop_bench.py --turns 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from xcsh.agent import AgentEvent, AgentSession, SessionConfig, SessionRecorder
from xcsh.core import AgentTool, ToolCallContext, text_result
from xcsh.core.tool import AgentToolResult
from xcsh.pending import PendingAction, PendingActionStore
from xcsh.providers.scripted import ScriptedProvider

ECHO_SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def echo_tool() -> AgentTool[dict[str, Any]]:
    def run(params: dict[str, Any], ctx: ToolCallContext) -> AgentToolResult:
        return text_result(f"echo {params['n']}")

    return AgentTool(
        name="echo",
        label="Echo",
        description="Echo a number.",
        parameters=ECHO_SCHEMA,
        run=run,
        read_only=True,
    )


def stage_tool(store: PendingActionStore) -> AgentTool[dict[str, Any]]:
    def run(params: dict[str, Any], ctx: ToolCallContext) -> AgentToolResult:
        store.push(
            PendingAction(
                label=f"Stage: {params['n']}", source_tool_name="stage", apply=lambda r: None
            )
        )
        return text_result("staged")

    return AgentTool(
        name="stage", label="Stage", description="Stage a change.", parameters=ECHO_SCHEMA, run=run
    )


def steps_for(turns: int, steering: bool) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for n in range(turns):
        if steering and n % 2:
            steps.append(
                {
                    "tool_calls": [
                        {"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}
                    ]
                }
            )
        else:
            steps.append(
                {"tool_calls": [{"name": "stage" if steering else "echo", "arguments": {"n": n}}]}
            )
    steps.append({"text": "done"})
    return steps


async def one_run(
    turns: int, *, steering: bool, record: bool, log_requests: bool, folder: Path, trace: bool
) -> dict[str, Any]:
    """One run; ``trace`` measures peak memory (tracemalloc slows the run, so time it apart)."""
    tag = f"{steering}-{record}-{log_requests}-{trace}"
    steps_path = folder / f"steps-{tag}.json"
    steps_path.write_text(json.dumps(steps_for(turns, steering)))
    store = PendingActionStore()
    recorder = (
        SessionRecorder(
            folder / f"s-{tag}.jsonl",
            header={"id": "b", "cwd": str(folder)},
        )
        if record
        else None
    )
    session = AgentSession(
        provider=ScriptedProvider(steps_path, log_requests=log_requests),
        tools=[echo_tool(), stage_tool(store)],
        cwd=folder,
        store=store,
        config=SessionConfig(recorder=recorder, max_forced_turns=turns + 1),
    )
    events = 0

    def count(event: AgentEvent) -> None:
        nonlocal events
        events += 1

    session.subscribe(count)
    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    end = await session.prompt("bench")
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    tracemalloc.stop()
    session.close()
    assert end.reason == "stop", end
    return {
        "turns": turns,
        "seconds": elapsed,
        "round_trips_per_s": turns / elapsed,
        "us_per_turn": elapsed / turns * 1e6,
        "peak_mib": peak / 2**20,
        "events": events,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=1000)
    args = parser.parse_args()
    variants = [
        ("tool round trip, in memory", False, False, False),
        ("tool round trip, session file", False, True, False),
        ("preview + forced resolve, session file", True, True, False),
        ("tool round trip, session file + requests log", False, True, True),
    ]
    print(f"agent loop overhead, scripted model, {args.turns} turns per run")
    print(f"{'variant':44} {'trips/s':>9} {'us/turn':>9} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, steering, record, log_requests in variants:
            options = {"steering": steering, "record": record, "log_requests": log_requests}
            timed = asyncio.run(one_run(args.turns, **options, folder=Path(tmp), trace=False))
            traced = asyncio.run(one_run(args.turns, **options, folder=Path(tmp), trace=True))
            trips, per_turn = timed["round_trips_per_s"], timed["us_per_turn"]
            peak = traced["peak_mib"]
            print(f"{name:44} {trips:9.0f} {per_turn:9.0f} {peak:9.1f}")


if __name__ == "__main__":
    main()
