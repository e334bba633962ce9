"""Untrusted code stays out: ``python -m xcsh`` never imports from the current
folder first, an entry point committed inside the project needs trust, and trust
covers the exact tools that were trusted (changed tools ask again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from plugin_helpers import write_tool

from xcsh.plugins import load_custom_tools, trust_folder, trust_state

HOSTILE = 'open({marker!r}, "a").write("{name} ran\\n")\n'

TOOL = """
from xcsh import CustomTool

def factory(api):
    return CustomTool(name="{name}", description="d", parameters={{"type": "object"}},
                      execute=lambda tool_call_id, params: "ok")
"""


def _run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


def test_python_m_xcsh_does_not_import_the_current_folders_modules(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    marker = tmp_path / "ran.log"
    for name in ("rich", "pydantic", "json", "anyio"):
        (repo / f"{name}.py").write_text(HOSTILE.format(marker=str(marker), name=name))
    (repo / "app.py").write_text("print(1)\n")
    done = _run(repo, "ast-grep", "-p", "print($A)", "-l", "py", "--json", ".")
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), marker.read_text()
    assert [json.loads(line)["file"] for line in done.stdout.splitlines()] == ["app.py"]


def test_an_entry_point_inside_the_project_needs_trust(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    info = repo / "evil-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[xcsh.tools]\nevil = evil_tool:factory\n")
    marker = tmp_path / "ran.log"
    (repo / "evil_tool.py").write_text(
        HOSTILE.format(marker=str(marker), name="evil_tool") + TOOL.format(name="evil")
    )
    # the folder is on sys.path (as with PYTHONPATH=. or an old `python -m`)
    listed = _run(repo, "tools", "--json", PYTHONPATH=str(repo))
    assert not marker.exists()
    data = json.loads(listed.stdout)
    assert [tool["name"] for tool in data["custom"]] == []
    (error,) = [e for e in data["errors"] if e["source"] == "entry_point"]
    assert error["kind"] == "untrusted" and "inside the project folder" in error["error"]
    trusted = _run(repo, "tools", "--json", "--trust-project", PYTHONPATH=str(repo))
    assert [tool["name"] for tool in json.loads(trusted.stdout)["custom"]] == ["evil"]
    assert marker.exists()


def test_a_changed_trusted_tool_is_not_loaded_until_trusted_again(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    tools = repo / ".xcsh" / "tools"
    write_tool(tools, "greet.py", TOOL.format(name="greet"))
    trust_folder(repo)
    assert trust_state(repo) == "trusted"
    assert [t.name for t in load_custom_tools(repo).tools] == ["greet"]

    write_tool(tools, "greet.py", TOOL.format(name="greet") + "\nprint('new code')\n")
    assert trust_state(repo) == "changed"
    result = load_custom_tools(repo)
    assert result.tools == [] and result.untrusted
    (notice,) = [e for e in result.errors if e.kind == "untrusted"]
    assert "they changed since you trusted" in notice.error and "xcsh trust" in notice.error

    # a new file counts as a change too, and so does another checkout at the same path
    trust_folder(repo)
    assert [t.name for t in load_custom_tools(repo).tools] == ["greet"]
    write_tool(tools, "extra.py", TOOL.format(name="extra"))
    assert load_custom_tools(repo).tools == []
    trust_folder(repo)
    assert sorted(t.name for t in load_custom_tools(repo).tools) == ["extra", "greet"]


def _plant_bytecode(source: Path, hostile: str) -> Path:
    """Compile ``hostile`` as the unchecked-hash bytecode of ``source``: Python would
    use it without looking at the source."""
    import importlib.util
    import py_compile

    evil = source.with_name("evil_src.py")
    evil.write_text(hostile)
    target = Path(importlib.util.cache_from_source(str(source)))
    py_compile.compile(
        str(evil),
        cfile=str(target),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        doraise=True,
    )
    evil.unlink()
    return target


def test_bytecode_planted_in_a_trusted_folder_counts_as_a_change(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    tools = repo / ".xcsh" / "tools"
    tool = write_tool(tools, "greet.py", TOOL.format(name="greet"))
    trust_folder(repo)
    marker = tmp_path / "ran.log"
    _plant_bytecode(tool, HOSTILE.format(marker=str(marker), name="pyc"))
    assert trust_state(repo) == "changed"
    result = load_custom_tools(repo)
    assert result.tools == [] and result.untrusted
    assert not marker.exists()


def test_loading_never_runs_bytecode_only_the_source(tmp_path: Path) -> None:
    # Even trusted as it is now (the planted file included), the source runs.
    repo = tmp_path / "repo"
    tools = repo / ".xcsh" / "tools"
    tool = write_tool(tools, "greet.py", TOOL.format(name="greet"))
    marker = tmp_path / "ran.log"
    _plant_bytecode(tool, HOSTILE.format(marker=str(marker), name="pyc") + TOOL.format(name="e"))
    trust_folder(repo)
    assert [t.name for t in load_custom_tools(repo).tools] == ["greet"]
    assert not marker.exists()
