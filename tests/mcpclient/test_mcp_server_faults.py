"""Servers that misbehave: one exits at start, one never answers ``initialize``, one dies in a
call, one floods notifications, one lists a tool with an invalid schema. Each is named once,
none stops the session, none leaves a process behind, and a server that died is started again
on its next call. ``tools/list_changed`` is picked up between turns."""

from __future__ import annotations

import os
import signal
import time

from mcpclient_helpers import Agent, call, fault_table, new_tag, processes_with

from helpers import run_xcsh


def test_each_fault_is_named_and_the_session_goes_on(agent: Agent) -> None:
    tag = new_tag()
    notes = agent.tmp / "notes.txt"
    agent.settings(
        fault_table("exiter", "exit", tag)
        + fault_table("silent", "silent", tag, timeout="3")
        + fault_table(
            "ok",
            "ok",
            tag,
            env=f'{{ NOTE_FILE = "{notes}" }}',
            tool_modes='{ add_tool = "direct", no_type = "direct" }',  # else previewed
        )
    )
    run = agent.run(
        [
            [call("ok__die")],
            [call("ok__echo", text="after the restart")],
            [call("ok__flood", count=3000)],
            [call("ok__add_tool")],
            [call("ok__extra", text="new tool"), call("ok__no_type", text="repaired")],
            [call("ok__bad_schema", x=1), call("ok__echo", text="y" * 60_000)],
        ]
    )
    assert run.code == 0, run.stderr
    notices = run.header["notices"]
    assert any(
        n.startswith("MCP server exiter did not start: it exited or closed the connection")
        and "fault-server: refusing to start (exit mode)" in n
        for n in notices
    ), notices
    assert any(
        "MCP server silent did not start: it did not answer initialize within 3 s" in n
        for n in notices
    ), notices
    assert any(
        "tool 'bad_schema' is left out: its input schema is not valid JSON Schema" in n
        for n in notices
    ), notices
    assert any('tool \'no_type\': added "type": "object"' in n for n in notices), notices
    texts = run.texts()
    assert "MCP server ok went away during the call" in texts[0]
    assert texts[1] == "echo: after the restart"  # started again on the next call
    assert texts[2] == "flooded 3000"
    assert texts[3] == "added extra"
    assert texts[4] == "echo: new tool"  # listed by tools/list_changed, offered next turn
    assert texts[5] == "echo: repaired"
    assert texts[6].startswith("Unknown tool 'ok__bad_schema'")
    # a result past the output cap is cut, head and tail kept, and says so
    assert "characters cut" in texts[7] and "more than the 50000 shown" in texts[7]
    assert texts[7].startswith("echo: yyy") and len(texts[7]) < 51_000
    said = [e["message"] for e in run.of("notice") if e["kind"] == "mcp"]
    assert sum("MCP server ok stopped" in m for m in said) == 1, said
    offered = [r["tools"] for r in run.requests]
    assert "ok__extra" not in offered[3] and "ok__extra" in offered[4]
    assert all("exiter__" not in " ".join(t) and "silent__" not in " ".join(t) for t in offered)
    assert _gone(tag)


def test_a_server_that_dies_twice_stays_stopped_and_says_so(agent: Agent) -> None:
    tag = new_tag()
    agent.settings(fault_table("ok", "ok", tag))
    run = agent.run([[call("ok__die")], [call("ok__die")], [call("ok__echo", text="x")]])
    assert run.code == 0, run.stderr
    texts = run.texts()
    assert "it is started again on the next call" in texts[0]
    assert "went away during the call" in texts[1]
    assert texts[2].startswith("MCP server ok stopped")  # its one restart is used
    assert "nothing was called" in texts[2]
    assert _gone(tag)


def test_ctrl_c_and_sigterm_cancel_a_call_with_notifications_cancelled(agent: Agent) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        tag = new_tag()
        cancels = agent.tmp / f"cancel-{sig.name}.jsonl"
        agent.settings(fault_table("ok", "ok", tag, env=f'{{ CANCEL_FILE = "{cancels}" }}'))
        proc = agent.start([[call("ok__slow", seconds=60)]])
        assert proc.stdout is not None
        for line in proc.stdout:  # wait until the call runs and reports progress
            if '"tool_progress"' in line:
                break
        os.kill(proc.pid, sig)
        proc.communicate(timeout=60)
        assert proc.returncode in (130, 128 + int(sig)), proc.returncode
        assert cancels.exists(), f"the server got no notifications/cancelled after {sig.name}"
        assert "caller cancelled" in cancels.read_text()
        assert _gone(tag)


def _gone(tag: str) -> bool:
    """No process of ``tag`` is alive (waiting a little for the last ones to be reaped)."""
    for _ in range(50):
        if not processes_with(tag):
            return True
        time.sleep(0.1)
    return False


def test_lines_that_are_no_json_rpc_on_stdout_go_to_the_servers_log(agent: Agent) -> None:
    tag = new_tag()
    agent.settings(fault_table("noisy", "noisy", tag))
    run = agent.run([[call("noisy__echo", text="one")], [call("noisy__echo", text="two")]])
    assert run.code == 0, run.stderr
    assert run.texts() == ["echo: one", "echo: two"]  # the session went on
    assert "Traceback" not in run.stderr and "Failed to parse" not in run.stderr, run.stderr
    assert "debug output" not in run.stderr
    log = (agent.home / "logs" / "mcp" / "noisy.log").read_text()
    assert "[stdout, not JSON-RPC] fault-server: debug output on stdout\n" in log
    assert '[stdout, not JSON-RPC] {"not": "a JSON-RPC message"}\n' in log
    assert "[stdout, not JSON-RPC] ^[]0;retitled^G plain text" in log and "\x1b" not in log
    listed = run_xcsh(["mcp-servers"], cwd=agent.project, home=agent.home)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("noisy: ready") and "Traceback" not in listed.stderr
    assert not processes_with(tag)
