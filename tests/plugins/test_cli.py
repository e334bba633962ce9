"""``xcsh tools`` and ``xcsh trust`` run as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from plugin_helpers import write_tool

from xcsh.tools.registry import BUILTIN_TOOL_NAMES

TOOL = """
from xcsh import CustomTool
def factory(api):
    return CustomTool(name="{name}", label="{label}", description="Does {name}.",
                      parameters={{"type": "object"}}, execute=lambda i, p: "ok")
"""


def xcsh(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XCSH_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_tools_json_lists_builtins_custom_tools_and_errors(
    project: Path, user_tools: Path, project_tools: Path, xcsh_home: Path
) -> None:
    write_tool(user_tools, "mine.py", TOOL.format(name="mine", label="Mine"))
    write_tool(user_tools, "broken.py", "def factory(api):\n    raise ValueError('nope')\n")
    write_tool(project_tools, "proj.py", TOOL.format(name="proj", label="Proj"))

    proc = xcsh(project, xcsh_home, "tools", "--json")
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
    proc = xcsh(project, xcsh_home, "tools", "--json")
    assert proc.returncode == 0  # an untrusted folder is a notice, not a failure
    assert [e["kind"] for e in as_json(proc)["errors"]] == ["untrusted"]

    proc = xcsh(project, xcsh_home, "tools", "--json", "--trust-project")
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
    proc = xcsh(project, xcsh_home, "trust")
    assert proc.returncode == 0, proc.stderr
    real = project.resolve()
    assert proc.stdout == f"Trusted {real}: custom tools in {real / '.xcsh' / 'tools'} will load.\n"
    listed = xcsh(project, xcsh_home, "trust", "--list")
    assert listed.stdout.split("\t")[0] == str(real)

    data = as_json(xcsh(project, xcsh_home, "tools", "--json"))
    assert [c["name"] for c in data["custom"]] == ["proj"]

    removed = xcsh(project, xcsh_home, "trust", "--remove", str(project))
    assert removed.stdout == f"No longer trusted: {real}\n"
    assert as_json(xcsh(project, xcsh_home, "tools", "--json"))["custom"] == []

    bad = xcsh(project, xcsh_home, "trust", str(project / "missing"))
    assert bad.returncode == 2 and "not a folder" in bad.stderr


def test_tools_plain_output_when_not_a_terminal(
    project: Path, user_tools: Path, project_tools: Path, xcsh_home: Path
) -> None:
    write_tool(user_tools, "mine.py", TOOL.format(name="mine", label="Mine"))
    write_tool(project_tools, "proj.py", TOOL.format(name="proj", label="Proj"))
    proc = xcsh(project, xcsh_home, "tools")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b[" not in out
    assert "Built-in tools" in out and "resolve (hidden)" in out
    assert "mine" in out and str(user_tools / "mine.py") in out
    assert "Not loaded" in out and "--trust-project" in out
    assert "Load errors" not in out
