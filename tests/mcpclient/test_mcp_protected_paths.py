"""An MCP server's tool call that would write inside ``.git``, ``.hg`` or ``.xcsh`` of
the workspace is refused before the server is called, in ``preview`` and ``direct``
mode, whichever way the path gets there (``..``, absolute, a symlink); a read-only tool
may still read there. Driven through the installed ``xcsh -p`` with the reference
filesystem server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcpclient_helpers import Agent, call, node_server, toml_list

CONFIG = "[core]\n\trepositoryformatversion = 0\n"


def _settings(agent: Agent, mode: str) -> None:
    extra = f'mode = "{mode}"\n' if mode == "direct" else ""
    agent.settings(
        f'[mcp_servers.fs]\ncommand = "{node_server("filesystem")}"\n'
        f"args = {toml_list(['.'])}\n{extra}"
    )


def _repo(project: Path) -> dict[str, bytes]:
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text(CONFIG)
    (project / ".xcsh").mkdir()
    (project / "sub").mkdir()
    (project / "notes.txt").write_text("notes\n")
    (project / "link").symlink_to(".git")
    return _snapshot(project)


def _snapshot(project: Path) -> dict[str, bytes]:
    return {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in sorted(project.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def _calls(project: Path) -> list[dict[str, Any]]:
    hook = "#!/bin/sh\necho owned\n"
    return [
        call("fs__write_file", path=".git/config", content="[core]\n\tfsmonitor = evil\n"),
        call("fs__write_file", path=".git/hooks/pre-commit", content=hook),
        call("fs__write_file", path="sub/../.git/hooks/post-checkout", content=hook),
        call("fs__write_file", path=str(project / ".git" / "hooks" / "pre-push"), content=hook),
        call("fs__write_file", path="link/hooks/pre-rebase", content=hook),
        call("fs__write_file", path=".xcsh/settings.toml", content="x = 1\n"),
        call("fs__edit_file", path="link/config", edits=[{"oldText": "0", "newText": "1"}]),
        call("fs__move_file", source="notes.txt", destination=".git/hooks/pre-commit"),
        call("fs__create_directory", path=".git/hooks/sub"),
    ]


@pytest.mark.parametrize("mode", ["preview", "direct"])
def test_writes_into_git_or_xcsh_are_refused_before_the_server_is_called(
    agent: Agent, mode: str
) -> None:
    before = _repo(agent.project)
    _settings(agent, mode)
    calls = _calls(agent.project)
    run = agent.run([[c] for c in calls])
    assert run.code == 0, run.stderr
    results = run.results()
    assert len(results) == len(calls)
    for c, result in zip(calls, results, strict=True):
        text = result["text"]
        assert result["message"]["is_error"], (c, text)
        assert "was not made" in text and "Refused to write" in text, (c, text)
        assert "inside .git" in text or "inside .xcsh" in text, text
    assert "git runs what it holds" in results[0]["text"]
    assert not run.of("pending_pushed")  # nothing to apply: no preview, no dry run
    assert _snapshot(agent.project) == before
    assert not (agent.project / ".git" / "hooks" / "sub").exists()
    assert "Traceback" not in run.stderr


def test_a_read_only_tool_still_reads_inside_git(agent: Agent) -> None:
    _repo(agent.project)
    _settings(agent, "preview")
    run = agent.run([[call("fs__read_text_file", path=".git/config")]])
    assert run.code == 0, run.stderr
    (result,) = run.results()
    assert not result["message"]["is_error"]
    assert result["text"] == CONFIG
