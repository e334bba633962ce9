"""The ``[mcp_servers]`` settings: bad tables named with their fix, approval rules by name,
a project's servers behind its trust fingerprint, the compact profile's ``mcp_tools`` and its
schema-size warning, and ``xcsh mcp-servers``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcpclient_helpers import Agent, call, fault_table, new_tag

from helpers import run_xcsh
from xcsh.core import UsageError
from xcsh.mcpclient import McpKeys, read_mcp_settings


def _read(table: object, tools: object = "auto") -> object:
    keys = McpKeys.from_file({"mcp_servers": table, "mcp_tools": tools}, "settings.toml")
    return read_mcp_settings(keys, "settings.toml")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"fs": {}}, "settings.toml: mcp_servers.fs needs either command (stdio) or url (HTTP)"),
        (
            {"fs": {"command": "x", "url": "http://a"}},
            "settings.toml: mcp_servers.fs needs either command (stdio) or url (HTTP)",
        ),
        ({"fs": {"command": "x", "timout": 3}}, "settings.toml: mcp_servers.fs.timout: Extra"),
        ({"fs": {"command": "x", "args": "-y"}}, "settings.toml: mcp_servers.fs.args: "),
        ({"fs": {"command": "x", "mode": "maybe"}}, "settings.toml: mcp_servers.fs.mode: "),
        ({"fs": {"command": "x", "timeout": 0}}, "mcp_servers.fs.timeout must be a number"),
        ({"a__b": {"command": "x"}}, "mcp_servers.a__b: a server's name must be"),
        ({"fs": {"url": "ftp://x"}}, "mcp_servers.fs.url must start with http:// or https://"),
        ("fs", "settings.toml: mcp_servers must be a table of servers"),
    ],
)
def test_bad_tables_are_named_with_the_key(table: object, message: str) -> None:
    with pytest.raises(UsageError) as info:
        _read(table)
    assert message in str(info.value), str(info.value)
    assert info.value.hint


def test_mcp_tools_takes_three_values() -> None:
    with pytest.raises(UsageError, match='mcp_tools must be "auto", "all" or "none"'):
        _read({}, "some")


def test_a_typo_in_settings_is_refused_before_anything_starts(agent: Agent) -> None:
    agent.settings('[mcp_servers.fs]\ncommand = "x"\nenv = { A = 1 }\n')
    run = agent.run([])
    assert run.code == 2
    assert "mcp_servers.fs.env.A: Input should be a valid string (got 1)" in run.stderr


def test_approval_rules_apply_to_mcp_tools_by_name(agent: Agent) -> None:
    tag = new_tag()
    notes = agent.tmp / "notes.txt"
    agent.settings(
        '[approval]\nok__write_note = "deny"\nabsent__anything = "deny"\n\n'
        + fault_table("ok", "ok", tag, env=f'{{ NOTE_FILE = "{notes}" }}')
        + fault_table("absent", "exit", tag)
    )
    run = agent.run([[call("ok__write_note", text="x")], [call("ok__echo", text="fine")]])
    assert run.code == 0, run.stderr
    denied, echoed = run.texts()
    assert denied.startswith("Denied by the user's approval rules (ok__write_note = 'deny'")
    assert echoed == "echo: fine"
    assert not run.of("pending_pushed") and not notes.exists()


def test_project_servers_need_trust_and_editing_them_needs_it_again(agent: Agent) -> None:
    tag = new_tag()
    project_settings = agent.project / ".xcsh" / "settings.toml"
    project_settings.parent.mkdir()
    project_settings.write_text(fault_table("proj", "ok", tag))
    untrusted = agent.run([[call("proj__echo", text="hi")]])
    assert untrusted.code == 0, untrusted.stderr
    assert any(
        n.startswith(f"MCP servers in {project_settings} were not started: the folder")
        for n in untrusted.header["notices"]
    )
    assert untrusted.texts()[0].startswith("Unknown tool 'proj__echo'")
    assert run_xcsh(["trust"], cwd=agent.project, home=agent.home).returncode == 0
    trusted = agent.run([[call("proj__echo", text="hi")]])
    assert trusted.texts() == ["echo: hi"]
    project_settings.write_text(fault_table("proj", "ok", tag, timeout="5"))
    edited = agent.run([[call("proj__echo", text="hi")]])
    assert edited.texts()[0].startswith("Unknown tool 'proj__echo'")  # trust it again first


def test_a_project_server_never_replaces_the_users(agent: Agent) -> None:
    tag = new_tag()
    agent.settings(fault_table("same", "ok", tag))
    project_settings = agent.project / ".xcsh" / "settings.toml"
    project_settings.parent.mkdir()
    project_settings.write_text(fault_table("same", "exit", tag))
    run = agent.run([[call("same__echo", text="mine")]], args=("--trust-project",))
    assert run.texts() == ["echo: mine"]
    assert any("a server of that name" in n for n in run.header["notices"])


def test_compact_profile_offers_mcp_tools_only_when_asked_and_warns_past_the_limit(
    agent: Agent,
) -> None:
    tag = new_tag()
    table = fault_table("big", "huge", tag)
    agent.settings('profile = "compact"\n' + table)
    quiet = agent.run([[call("big__echo", text="x")]])
    assert quiet.code == 0, quiet.stderr
    assert not any(name.startswith("big__") for name in quiet.requests[0]["tools"])
    assert quiet.header["notices"] == []
    agent.settings('profile = "compact"\nmcp_tools = "all"\n' + table)
    offered = agent.run([[call("big__echo", text="x")]])
    assert offered.texts() == ["echo: x"]
    assert "big__huge" in offered.requests[0]["tools"]
    (warning,) = [n for n in offered.header["notices"] if "bytes of JSON, past" in n]
    assert "past the 100,000 at which llama.cpp's grammar builder was reported to fail" in warning


def test_with_the_window_known_the_warning_weighs_the_tools_against_it(agent: Agent) -> None:
    tag = new_tag()
    table = fault_table("big", "huge", tag)
    agent.settings('profile = "compact"\nmcp_tools = "all"\ncontext_window = 32768\n' + table)
    small = agent.run([[call("big__echo", text="x")]])
    assert small.code == 0, small.stderr
    (warning,) = [n for n in small.header["notices"] if "prompt tokens" in n]
    assert "more than half of the server's context window of 32,768 tokens" in warning
    assert not any("grammar" in n for n in small.header["notices"])
    agent.settings('profile = "compact"\nmcp_tools = "all"\ncontext_window = 400000\n' + table)
    roomy = agent.run([[call("big__echo", text="x")]])
    assert roomy.texts() == ["echo: x"]
    assert not any("prompt tokens" in n or "grammar" in n for n in roomy.header["notices"])


def test_mcp_servers_lists_each_server_with_its_state_and_tools(agent: Agent) -> None:
    tag = new_tag()
    agent.settings(
        fault_table("ok", "ok", tag, tools='["echo", "write_note", "bad_schema"]')
        + fault_table("broken", "exit", tag)
        + '[mcp_servers.off]\ncommand = "nothing"\nenabled = false\n'
    )
    listed = run_xcsh(["mcp-servers"], cwd=agent.project, home=agent.home)
    assert listed.returncode == 1  # one enabled server did not start
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("ok: ready (stdio: ")
    assert lines[1:4] == ["  2 tools:", "    ok__echo  direct", "    ok__write_note  preview"]
    assert "tool 'bad_schema' is left out" in lines[4]
    assert lines[5].startswith("broken: failed (stdio: ")
    assert "exited or closed the connection before answering" in lines[6]
    assert lines[7] == "off: disabled (stdio: nothing)"
    as_json = run_xcsh(["mcp-servers", "--json"], cwd=agent.project, home=agent.home)
    records = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [r["state"] for r in records] == ["ready", "failed", "disabled"]
    assert records[0]["tools"] == [
        {"name": "ok__echo", "mode": "direct"},
        {"name": "ok__write_note", "mode": "preview"},
    ]


def test_mcp_servers_says_when_none_is_configured(tmp_path: Path) -> None:
    listed = run_xcsh(["mcp-servers"], cwd=tmp_path, home=tmp_path / "home")
    assert listed.returncode == 0
    assert "no MCP server is configured" in listed.stderr


def test_the_terminal_asks_trust_for_a_project_that_only_names_servers(tmp_path: Path) -> None:
    from xcsh.plugins import ask_trust

    project = tmp_path / "proj"
    (project / ".xcsh").mkdir(parents=True)
    home = tmp_path / "home"
    asked: list[str] = []

    def prompt(question: str) -> str:
        asked.append(question)
        return "once"

    assert ask_trust(project, prompt, home=home) is False  # nothing to trust: not asked
    (project / ".xcsh" / "settings.toml").write_text('[mcp_servers.x]\ncommand = "x"\n')
    assert ask_trust(project, prompt, home=home) is True
    (question,) = asked
    assert "starts MCP servers: programs this repository names" in question
