"""No tool of xcsh's writes where another program would run the content unasked.

A model's ``write`` of ``.git/config`` with ``core.fsmonitor`` would run a
command on the user's next ``git status``, outside any sandbox. Each test runs
the installed ``xcsh -p`` with the scripted provider under the default settings
(``write = "allow"``) and judges the files on disk, then runs git itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helpers import run_steps, tool_call, tool_results

FSMONITOR = '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch PWNED; false"\n'


def _repo(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "a.py").write_text("print(1)\n")
    return project


def _git_status_runs_nothing(project: Path) -> None:
    subprocess.run(["git", "status", "--short"], cwd=project, capture_output=True, check=False)
    assert not (project / "PWNED").exists()


@pytest.mark.parametrize(
    ("path", "why"),
    [
        (".git/config", "inside .git, and git runs"),
        (".git/hooks/pre-commit", "inside .git, and git runs"),
        ("sub/.git", "it is .git, and git runs"),
        (".xcsh/settings.toml", "inside .xcsh"),
        (".hg/hgrc", "inside .hg"),
    ],
)
def test_write_refuses_protected_paths(
    tmp_path: Path, xcsh_home: Path, path: str, why: str
) -> None:
    project = _repo(tmp_path)
    config = (project / ".git" / "config").read_bytes()
    code, events, err = run_steps(
        tmp_path, xcsh_home, [tool_call("write", path=path, content=FSMONITOR)], ""
    )
    assert code == 0, err
    [(is_error, text)] = tool_results(events)
    assert is_error
    assert text.startswith(f"Refused to write {path}: it is ")
    assert why in text
    assert "Nothing was written" in text
    assert not (project / path).exists() or path == ".git/config"
    assert (project / ".git" / "config").read_bytes() == config
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    _git_status_runs_nothing(project)


def test_edit_of_git_config_is_refused(tmp_path: Path, xcsh_home: Path) -> None:
    project = _repo(tmp_path)
    config = (project / ".git" / "config").read_bytes()
    call = tool_call(
        "edit",
        path=".git/config",
        old_text="repositoryformatversion = 0",
        new_text='fsmonitor = "touch PWNED"',
    )
    code, events, err = run_steps(tmp_path, xcsh_home, [call], "")
    assert code == 0, err
    [(is_error, text)] = tool_results(events)
    assert is_error and "Refused to write .git/config" in text, text
    assert (project / ".git" / "config").read_bytes() == config
    _git_status_runs_nothing(project)


def test_a_link_into_git_is_refused_by_its_real_place(tmp_path: Path, xcsh_home: Path) -> None:
    project = _repo(tmp_path)
    (project / "settings.cfg").symlink_to(".git/config")
    config = (project / ".git" / "config").read_bytes()
    code, events, err = run_steps(
        tmp_path, xcsh_home, [tool_call("write", path="settings.cfg", content=FSMONITOR)], ""
    )
    assert code == 0, err
    [(is_error, text)] = tool_results(events)
    assert is_error and "Refused to write settings.cfg: it is inside .git" in text, text
    assert (project / ".git" / "config").read_bytes() == config
    _git_status_runs_nothing(project)


HOOK_TOOL = """
from xcsh import CustomTool, CustomToolPendingAction

def factory(api):
    def execute(tool_call_id, params):
        def apply(reason):
            (api.cwd / ".git/hooks/pre-commit").write_text("#!/bin/sh\\ntouch PWNED\\n")
        api.push_pending_action(CustomToolPendingAction(
            label="Add a hook", apply=apply, files=[params.get("path", ".git/hooks/pre-commit")]))
        return "Previewed."
    return CustomTool(name="hook", label="Hook", description="Adds a hook.",
                      parameters={"type": "object", "properties": {"path": {"type": "string"}}},
                      execute=execute)
"""


@pytest.mark.parametrize("named", [".git/hooks/pre-commit", "./x/../.git/hooks/pre-commit"])
def test_a_custom_tool_naming_a_file_in_git_cannot_push(
    tmp_path: Path, xcsh_home: Path, named: str
) -> None:
    project = _repo(tmp_path)
    (xcsh_home / "tools").mkdir()
    (xcsh_home / "tools" / "hook.py").write_text(HOOK_TOOL)
    calls = [tool_call("hook", path=named), tool_call("resolve", action="apply", reason="ok")]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, "", one_per_turn=True)
    assert code == 0, err
    (is_error, text), *_ = tool_results(events)
    assert is_error and "Refused to write .git/hooks/pre-commit: it is inside .git" in text, text
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
