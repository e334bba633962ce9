"""Long fault runs (``make stress-mcp-client``; skipped in ``make test``): many sessions whose
server dies and is started again, floods of notifications, and cancels, none leaving a process
behind."""

from __future__ import annotations

import os
import signal

import pytest
from mcpclient_helpers import Agent, call, fault_table, new_tag, processes_with

ROUNDS = int(os.environ.get("XCSH_MCP_STRESS_ROUNDS", "20"))

pytestmark = pytest.mark.skipif(
    not os.environ.get("XCSH_MCP_STRESS"), reason="a long run: make stress-mcp-client"
)


def test_stress_restarts_and_floods(agent: Agent) -> None:
    tag = new_tag()
    agent.settings(fault_table("ok", "ok", tag))
    for _ in range(ROUNDS):
        run = agent.run(
            [[call("ok__die")], [call("ok__echo", text="back")], [call("ok__flood", count=50000)]]
        )
        assert run.code == 0, run.stderr
        assert run.texts()[1:] == ["echo: back", "flooded 50000"]
        assert not processes_with(tag)


def test_stress_cancels(agent: Agent) -> None:
    for index in range(ROUNDS):
        tag = new_tag()
        cancels = agent.tmp / f"cancel-{index}.jsonl"
        agent.settings(fault_table("ok", "ok", tag, env=f'{{ CANCEL_FILE = "{cancels}" }}'))
        proc = agent.start([[call("ok__slow", seconds=60)]])
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"tool_progress"' in line:
                break
        os.kill(proc.pid, signal.SIGINT if index % 2 else signal.SIGTERM)
        proc.communicate(timeout=60)
        assert cancels.exists()
        assert not processes_with(tag)
