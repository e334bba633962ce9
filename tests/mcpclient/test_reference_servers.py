"""Reference servers nobody here wrote, through the installed ``xcsh -p``: the memory server's
state changes exactly once on apply and never on discard, the git server's writes are
previews, and the everything server's progress, images and structured content reach the
model and the front end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from mcpclient_helpers import (
    Agent,
    call,
    git_server,
    new_tag,
    node_server,
    processes_with,
    toml_list,
)


def _entities(memory: Path) -> list[dict[str, object]]:
    if not memory.exists():
        return []
    lines = [json.loads(line) for line in memory.read_text().splitlines() if line.strip()]
    return [line for line in lines if line.get("type") == "entity"]


def test_memory_server_deferred_write_changes_its_state_once_and_discard_never(
    agent: Agent,
) -> None:
    memory = agent.tmp / "memory.jsonl"
    agent.settings(
        "[mcp_servers.memory]\n"
        f'command = "{node_server("memory")}"\n'
        'env = { MEMORY_FILE_PATH = "${XCSH_TEST_MEMORY}" }\n'
    )
    entity = {"name": "xcsh", "entityType": "tool", "observations": ["previews writes"]}
    run = agent.run(
        [
            [call("memory__create_entities", entities=[entity])],
            [call("resolve", action="apply", reason="record it")],
            [call("memory__create_entities", entities=[{**entity, "name": "other"}])],
            [call("resolve", action="discard", reason="not needed")],
            [call("memory__read_graph")],
        ],
        env={"XCSH_TEST_MEMORY": str(memory)},
    )
    assert run.code == 0, run.stderr
    create, applied, _, discarded, graph = run.results()
    assert "was not made" in create["text"]
    first, second = run.of("pending_pushed")
    assert "Tool: create_entities" in first["preview"]
    assert '"name": "xcsh"' in first["preview"] and "readOnlyHint: false" in first["preview"]
    assert '"name": "other"' in second["preview"]
    assert not applied["message"]["is_error"] and not discarded["message"]["is_error"]
    # the applied call changed the server's state exactly once; the discarded one never
    assert [e["name"] for e in _entities(memory)] == ["xcsh"]
    assert '"xcsh"' in graph["text"] and '"other"' not in graph["text"]
    # the variable's value reached the server and nothing else: not the session file
    assert str(memory) not in run.session_text()


def test_git_server_status_runs_and_add_is_a_preview_that_stages_on_apply(agent: Agent) -> None:
    repo = agent.project
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("new\n")
    agent.settings(
        f'[mcp_servers.git]\ncommand = "{git_server()}"\n'
        f"args = {toml_list(['--repository', str(repo)])}\ntimeout = 90\n"
    )
    run = agent.run(
        [
            [call("git__git_status", repo_path=str(repo))],
            [call("git__git_add", repo_path=str(repo), files=["new.txt"])],
            [call("resolve", action="apply", reason="stage it")],
        ]
    )
    assert run.code == 0, run.stderr
    status, add, resolve = run.results()
    assert "new.txt" in status["text"]
    assert "was not made" in add["text"]
    assert not resolve["message"]["is_error"], resolve["text"]
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only"], cwd=repo, capture_output=True, text=True
    )
    assert staged.stdout.split() == ["new.txt"]


def test_everything_server_progress_image_and_structured_content(agent: Agent) -> None:
    agent.settings(f'[mcp_servers.ev]\ncommand = "{node_server("everything")}"\n')
    run = agent.run(
        [
            [
                call("ev__trigger-long-running-operation", duration=1, steps=4),
                call("ev__get-tiny-image"),
                call("ev__get-structured-content", location="New York"),
            ]
        ]
    )
    assert run.code == 0, run.stderr
    progress = [e["text"] for e in run.of("tool_progress")]
    assert progress[:4] == ["25% (1/4)", "50% (2/4)", "75% (3/4)", "100% (4/4)"]
    # the three read-only calls ran at once: their results come as each finished
    by_tool = {r["message"]["tool_name"]: r for r in run.results()}
    long_run = by_tool["ev__trigger-long-running-operation"]
    image = by_tool["ev__get-tiny-image"]
    structured = by_tool["ev__get-structured-content"]
    assert "Long running operation completed" in long_run["text"]
    kinds = [block["type"] for block in image["message"]["content"]]
    assert "image" in kinds
    png = next(b for b in image["message"]["content"] if b["type"] == "image")
    assert png["mime_type"] == "image/png" and png["data"]
    assert "temperature" in structured["text"]
    # the model got the image: the next request carries it in the tool result
    last = run.requests[-1]["messages"]
    assert any("image" in json.dumps(m) and "image/png" in json.dumps(m) for m in last)


def test_everything_servers_long_operation_cancelled_by_ctrl_c_and_sigterm(agent: Agent) -> None:
    for sig in (signal.SIGINT, signal.SIGTERM):
        tag = new_tag()  # the server ignores a second argument: it marks its process
        agent.settings(
            f'[mcp_servers.ev]\ncommand = "{node_server("everything")}"\n'
            f"args = {toml_list(['stdio', tag])}\n"
        )
        proc = agent.start([[call("ev__trigger-long-running-operation", duration=60, steps=60)]])
        assert proc.stdout is not None
        for line in proc.stdout:  # the operation runs and reports its first step
            if '"tool_progress"' in line:
                break
        os.kill(proc.pid, sig)
        out, _ = proc.communicate(timeout=60)
        assert proc.returncode in (130, 128 + int(sig)), proc.returncode
        events = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        (result,) = [e for e in events if e["type"] == "tool_result"]
        assert result["message"]["is_error"]  # the call was cancelled, not completed
        for _ in range(50):
            if not processes_with(tag):
                break
            time.sleep(0.1)
        assert not processes_with(tag)
