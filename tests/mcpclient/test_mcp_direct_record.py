"""A direct-mode MCP tool call is recorded in the undo journal like a ``bash`` command:
what the reference filesystem server writes when ``mode = "direct"`` (or ``tool_modes``)
lets it run is one journal entry, which ``xcsh undo`` and ``xcsh rewind`` take back."""

from __future__ import annotations

from mcpclient_helpers import Agent, call, node_server, toml_list

from helpers import run_xcsh


def _settings(agent: Agent, how: str, top: str = "") -> None:
    agent.settings(
        f'{top}[mcp_servers.fs]\ncommand = "{node_server("filesystem")}"\n'
        f"args = {toml_list(['.'])}\n{how}\n"
    )


def test_direct_writes_are_recorded_and_undo_takes_each_back(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_bytes(b"alpha\nbeta\n")
    _settings(agent, 'mode = "direct"')
    run = agent.run(
        [
            [call("fs__read_text_file", path="notes.txt")],
            [call("fs__write_file", path="notes.txt", content="replaced\n")],
            [call("fs__write_file", path="fresh.txt", content="new file\n")],
        ]
    )
    assert run.code == 0, run.stderr
    assert not run.of("pending_pushed")  # direct: the calls ran, nothing was previewed
    read, first, second = run.results()
    assert read["text"] == "alpha\nbeta\n"
    assert "Successfully wrote to notes.txt" in first["text"], first["text"]
    assert "[undo]" not in first["text"] + second["text"]
    assert notes.read_bytes() == b"replaced\n"
    assert (agent.project / "fresh.txt").read_bytes() == b"new file\n"
    listed = run_xcsh(["undo", "--list"], cwd=agent.project, home=agent.home)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 2, listed.stdout  # the read wrote nothing: no entry
    assert "applied  MCP: fs__write_file notes.txt: notes.txt" in lines[0], listed.stdout
    assert "applied  MCP: fs__write_file fresh.txt: fresh.txt" in lines[1], listed.stdout
    undo = run_xcsh(["undo"], cwd=agent.project, home=agent.home)
    assert undo.returncode == 0, undo.stderr
    assert not (agent.project / "fresh.txt").exists()
    assert notes.read_bytes() == b"replaced\n"  # the newest entry only
    undo = run_xcsh(["undo"], cwd=agent.project, home=agent.home)
    assert undo.returncode == 0, undo.stderr
    assert notes.read_bytes() == b"alpha\nbeta\n"
    assert sorted(p.name for p in agent.project.iterdir()) == ["notes.txt"]


def test_rewind_takes_back_direct_writes_of_two_turns(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_bytes(b"one\n")
    _settings(agent, 'tool_modes = { write_file = "direct" }')
    first = agent.run([[call("fs__write_file", path="notes.txt", content="two\n")]])
    assert first.code == 0, first.stderr
    second = agent.run(
        [
            [call("fs__write_file", path="made.txt", content="made\n")],
            [call("fs__write_file", path="notes.txt", content="three\n")],
        ],
        args=("--continue",),
    )
    assert second.code == 0, second.stderr
    assert notes.read_bytes() == b"three\n"
    assert (agent.project / "made.txt").read_bytes() == b"made\n"
    rewound = run_xcsh(["rewind", "1"], cwd=agent.project, home=agent.home)
    assert rewound.returncode == 0, rewound.stdout + rewound.stderr
    assert notes.read_bytes() == b"one\n"
    assert sorted(p.name for p in agent.project.iterdir()) == ["notes.txt"]


def test_a_write_that_cannot_be_recorded_is_named_in_the_result(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_bytes(b"ok\n")
    _settings(agent, 'mode = "direct"', top="bash_record_max_bytes = 8\n")
    run = agent.run([[call("fs__write_file", path="notes.txt", content="far too long\n")]])
    assert run.code == 0, run.stderr
    (result,) = run.results()
    assert "Successfully wrote to notes.txt" in result["text"], result["text"]
    assert (
        "[undo] Not recorded (over the 8 bytes size cap, bash_record_max_bytes): notes.txt; "
        "xcsh undo cannot revert it." in result["text"]
    ), result["text"]
