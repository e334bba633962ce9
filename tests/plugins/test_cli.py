"""``xcsh tools`` and ``xcsh trust`` run as real subprocesses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from plugin_helpers import write_tool

from helpers import run_xcsh
from xcsh.tools.registry import BUILTIN_TOOL_NAMES

TOOL = """
from xcsh import CustomTool
def factory(api):
    return CustomTool(name="{name}", label="{label}", description="Does {name}.",
                      parameters={{"type": "object"}}, execute=lambda i, p: "ok")
"""


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_tools_json_lists_builtins_custom_tools_and_errors(
    project: Path, user_tools: Path, project_tools: Path, xcsh_home: Path
) -> None:
    write_tool(user_tools, "mine.py", TOOL.format(name="mine", label="Mine"))
    write_tool(user_tools, "broken.py", "def factory(api):\n    raise ValueError('nope')\n")
    write_tool(project_tools, "proj.py", TOOL.format(name="proj", label="Proj"))

    proc = run_xcsh(["tools", "--json"], cwd=project, home=xcsh_home, inherit=True)
    assert proc.returncode == 1, proc.stderr  # a module failed to load
    data = as_json(proc)
    assert data["cwd"] == str(project)
    assert [b["name"] for b in data["builtin"]] == list(BUILTIN_TOOL_NAMES)
    assert [b["name"] for b in data["builtin"] if b["hidden"]] == ["resolve"]
    assert data["custom"] == [
        {
            "name": "mine",
            "label": "Mine",
            "description": "Does mine.",
            "source": "user",
            "path": str(user_tools / "mine.py"),
        }
    ]
    errors = {(e["source"], e["kind"]): e for e in data["errors"]}
    assert set(errors) == {("user", "error"), ("project", "untrusted")}
    assert errors[("user", "error")]["error"].startswith("factory raised ValueError: nope")
    assert f"xcsh trust {project.resolve()}" in errors[("project", "untrusted")]["error"]

    (user_tools / "broken.py").unlink()
    proc = run_xcsh(["tools", "--json"], cwd=project, home=xcsh_home, inherit=True)
    assert proc.returncode == 0  # an untrusted folder is a notice, not a failure
    assert [e["kind"] for e in as_json(proc)["errors"]] == ["untrusted"]

    proc = run_xcsh(
        ["tools", "--json", "--trust-project"], cwd=project, home=xcsh_home, inherit=True
    )
    assert proc.returncode == 0
    data = as_json(proc)
    assert [(c["name"], c["source"]) for c in data["custom"]] == [
        ("mine", "user"),
        ("proj", "project"),
    ]
    assert data["errors"] == []


def test_trust_then_tools_loads_project_tools(
    project: Path, project_tools: Path, xcsh_home: Path
) -> None:
    write_tool(project_tools, "proj.py", TOOL.format(name="proj", label="Proj"))
    proc = run_xcsh(["trust"], cwd=project, home=xcsh_home, inherit=True)
    assert proc.returncode == 0, proc.stderr
    real = project.resolve()
    assert proc.stdout == f"Trusted {real}: custom tools in {real / '.xcsh' / 'tools'} will load.\n"
    listed = run_xcsh(["trust", "--list"], cwd=project, home=xcsh_home, inherit=True)
    assert listed.stdout.split("\t")[0] == str(real)

    data = as_json(run_xcsh(["tools", "--json"], cwd=project, home=xcsh_home, inherit=True))
    assert [c["name"] for c in data["custom"]] == ["proj"]

    removed = run_xcsh(
        ["trust", "--remove", str(project)], cwd=project, home=xcsh_home, inherit=True
    )
    assert removed.stdout == f"No longer trusted: {real}\n"
    assert (
        as_json(run_xcsh(["tools", "--json"], cwd=project, home=xcsh_home, inherit=True))["custom"]
        == []
    )

    bad = run_xcsh(["trust", str(project / "missing")], cwd=project, home=xcsh_home, inherit=True)
    assert bad.returncode == 2 and "not a folder" in bad.stderr


def test_tools_plain_output_when_not_a_terminal(
    project: Path, user_tools: Path, project_tools: Path, xcsh_home: Path
) -> None:
    write_tool(user_tools, "mine.py", TOOL.format(name="mine", label="Mine"))
    write_tool(project_tools, "proj.py", TOOL.format(name="proj", label="Proj"))
    proc = run_xcsh(["tools"], cwd=project, home=xcsh_home, inherit=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b[" not in out
    assert "Built-in tools" in out and "resolve (hidden)" in out
    assert "mine" in out and str(user_tools / "mine.py") in out
    assert "Not loaded" in out and "--trust-project" in out
    assert "Load errors" not in out
