"""The reference filesystem server (``@modelcontextprotocol/server-filesystem``) through
``xcsh -p``: its read tools run when called, ``write_file`` and ``edit_file`` are previews,
apply writes (recorded for ``xcsh undo``), discard writes nothing, and ``edit_file`` is
previewed by its own dry run."""

from __future__ import annotations

from mcpclient_helpers import Agent, call, node_server, toml_list

from helpers import run_xcsh


def _settings(agent: Agent) -> None:
    agent.settings(
        f'[mcp_servers.fs]\ncommand = "{node_server("filesystem")}"\nargs = {toml_list(["."])}\n'
    )


def test_read_runs_write_previews_apply_writes_and_undo_takes_it_back(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_text("hello\nworld\n")
    _settings(agent)
    run = agent.run(
        [
            [call("fs__read_text_file", path="notes.txt")],
            [call("fs__write_file", path="notes.txt", content="hello\nthere\nworld\n")],
            [call("resolve", action="apply", reason="adds the line")],
        ]
    )
    assert run.code == 0, run.stderr
    read, write, resolve = run.results()
    assert read["text"] == "hello\nworld\n"  # ran when called: the server's own answer
    assert "Preview p1" in write["text"] and "was not made" in write["text"]
    (pushed,) = run.of("pending_pushed")
    assert pushed["source_tool_name"] == "fs__write_file"
    preview = pushed["preview"]
    assert "MCP server: fs" in preview and "Tool: write_file" in preview
    assert "destructiveHint: true" in preview
    assert "+there" in preview and "--- a/notes.txt" in preview  # the content as a diff
    assert not resolve["message"]["is_error"]
    assert "Successfully wrote to notes.txt" in resolve["text"]
    assert notes.read_text() == "hello\nthere\nworld\n"
    undo = run_xcsh(["undo"], cwd=agent.project, home=agent.home)
    assert undo.returncode == 0, undo.stderr
    assert notes.read_text() == "hello\nworld\n"


def test_discard_never_calls_and_edit_file_previews_its_own_dry_run(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    _settings(agent)
    edit = {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}
    run = agent.run(
        [
            [call("fs__write_file", path="notes.txt", content="replaced\n")],
            [call("resolve", action="discard", reason="not wanted")],
            [call("fs__edit_file", **edit)],
            [call("resolve", action="apply", reason="the rename is right")],
        ]
    )
    assert run.code == 0, run.stderr
    first, second = run.of("pending_pushed")
    assert "+replaced" in first["preview"]
    # edit_file takes dryRun: the preview is the server's own diff of the change
    assert "The server's dry run of this call:" in second["preview"]
    assert "-beta" in second["preview"] and "+gamma" in second["preview"]
    discard, apply = run.of("resolved")
    assert discard["action"] == "discard" and not discard["is_error"]
    assert apply["action"] == "apply" and not apply["is_error"]
    assert notes.read_text() == "alpha\ngamma\n"  # the discarded write never happened
    # the server wrote the file; the undo journal recorded it around the call
    undo = run_xcsh(["undo"], cwd=agent.project, home=agent.home)
    assert undo.returncode == 0, undo.stderr
    assert notes.read_text() == "alpha\nbeta\n"


def test_short_writes_and_moves_are_recorded_and_undone(agent: Agent) -> None:
    notes = agent.project / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    (agent.project / "old.txt").write_text("old")
    _settings(agent)
    apply = call("resolve", action="apply", reason="wanted")
    run = agent.run(
        [
            [call("fs__write_file", path="notes.txt", content="x")],
            [apply],
            [call("fs__write_file", path="new.txt", content="hi")],
            [apply],
            [call("fs__move_file", source="old.txt", destination="moved.txt")],
            [apply],
        ]
    )
    assert run.code == 0, run.stderr
    assert [r["is_error"] for r in run.of("resolved")] == [False, False, False]
    assert notes.read_text() == "x"
    assert (agent.project / "new.txt").read_text() == "hi"
    assert (agent.project / "moved.txt").read_text() == "old"
    assert not (agent.project / "old.txt").exists()
    listed = run_xcsh(["undo", "--list"], cwd=agent.project, home=agent.home)
    assert "old.txt" in listed.stdout and "moved.txt" in listed.stdout, listed.stdout
    for _ in range(3):
        undo = run_xcsh(["undo"], cwd=agent.project, home=agent.home)
        assert undo.returncode == 0, undo.stderr
    assert notes.read_text() == "alpha\nbeta\n"
    assert not (agent.project / "new.txt").exists()
    assert (agent.project / "old.txt").read_text() == "old"
    assert not (agent.project / "moved.txt").exists()
