"""Files written by xcsh 0.1.0 stay readable: a session file, an undo journal, MCP results.

``written_by_0_1/`` was produced by the 0.1.0 code itself, run as users run it:

- ``session.jsonl``: ``xcsh --provider scripted --model steps.json -p go`` in a folder
  holding ``a.py`` (``a.py.before``) and ``b.py``; the steps preview an edit of
  ``a.py`` and apply one of its two changes, read a file, run a command, preview and
  discard an edit of ``b.py``, then leave a preview of both files pending;
- ``journal/``: that run's undo journal (the partial apply of ``a.py``, which left
  ``a.py.after``);
- ``mcp_results.json``: the official MCP client's view of ``ast_edit`` and ``resolve``
  calls made against ``xcsh mcp`` (``print(1)\\nprint(2)\\n`` in ``app.py``).

The files name the folder they were written in (``/tmp/i25fx/proj``); each test puts
them where a user's home would hold them, with that folder replaced by its own.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from helpers import run_xcsh
from xcsh.agent.record.persistence import load_session
from xcsh.core import ToolResultMessage
from xcsh.fs.home import journal_folder
from xcsh.pending import ResolveOutcome
from xcsh.tools.coding.details import BashDetails, ReadDetails

DATA = Path(__file__).parent / "written_by_0_1"
WRITTEN_IN = "/tmp/i25fx/proj"
SESSION_ID = "20261202-132910-7a3c03"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copyfile(DATA / "a.py.after", project / "a.py")
    (project / "b.py").write_text('print("b")\n')
    return project


def _install_session(home: Path, project: Path) -> Path:
    sessions = home / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    text = (DATA / "session.jsonl").read_text(encoding="utf-8")
    target = sessions / f"{SESSION_ID}.jsonl"
    target.write_text(text.replace(WRITTEN_IN, str(project)), encoding="utf-8")
    return target


def test_the_session_file_reads_back_with_its_typed_outcomes(
    tmp_path: Path, xcsh_home: Path
) -> None:
    saved = load_session(_install_session(xcsh_home, _project(tmp_path)))
    results = [m for m in saved.messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_name for m in results] == [
        "ast_edit",
        "resolve",
        "read",
        "bash",
        "ast_edit",
        "resolve",
        "ast_edit",
    ]
    read, bash = (m.details for m in results if m.tool_name in ("read", "bash"))
    assert isinstance(read, ReadDetails) and (read.total_lines, read.truncated) == (3, False)
    assert isinstance(bash, BashDetails) and (bash.command, bash.exit_code) == ("echo hi", 0)
    applied, discarded = (m.details for m in results if m.tool_name == "resolve")
    assert isinstance(applied, ResolveOutcome) and isinstance(discarded, ResolveOutcome)
    assert (applied.status, applied.preview_id) == ("applied", "p1")
    assert [change.id for change in applied.applied] == ["c1"]
    assert [change.id for change in applied.dropped] == ["c2"]
    assert (discarded.status, discarded.reason) == ("discarded", "not wanted")
    assert [(r.tool_name, r.label) for r in saved.pending] == [
        ("ast_edit", "AST Edit: 2 replacements in 2 files")
    ]
    assert saved.pending[0].arguments is not None
    assert saved.pending[0].arguments["ops"] == [{"pat": "print($A)", "out": "trace($A)"}]


def test_a_resumed_session_previews_its_pending_edit_again_and_applies_it(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = _project(tmp_path)
    _install_session(xcsh_home, project)
    steps = tmp_path / "steps.json"
    apply = {"action": "apply", "reason": "finish the edit"}
    steps.write_text(json.dumps([{"tool_calls": [{"name": "resolve", "arguments": apply}]}]))
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(steps), "--session", SESSION_ID, "-p", "go"],
        cwd=tmp_path,
        home=xcsh_home,
    )
    assert done.returncode == 0, done.stderr
    assert (project / "a.py").read_text() == "def f(x):\n    log(x)\n    trace(x + 1)\n"
    assert (project / "b.py").read_text() == 'trace("b")\n'


def test_the_journal_lists_and_undoes_the_recorded_apply(tmp_path: Path, xcsh_home: Path) -> None:
    project = _project(tmp_path)
    folder = journal_folder(xcsh_home, project)
    shutil.copytree(DATA / "journal", folder)
    for record in (folder / "entries").glob("*.json"):
        text = record.read_text(encoding="utf-8")
        record.write_text(text.replace(WRITTEN_IN, str(project.resolve())), encoding="utf-8")
    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home)
    assert listed.returncode == 0, listed.stderr
    assert "AST Edit: 2 replacements in 1 file (only c1)" in listed.stdout
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert (project / "a.py").read_bytes() == (DATA / "a.py.before").read_bytes()


def _seen(result: Any) -> dict[str, Any]:
    return {
        "content": [{"type": b.type, "text": b.text} for b in result.content],
        "isError": result.is_error,
    }


async def test_mcp_results_of_ast_edit_and_resolve_are_the_ones_0_1_sent(
    tmp_path: Path,
) -> None:
    recorded = json.loads((DATA / "mcp_results.json").read_text(encoding="utf-8"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("print(1)\nprint(2)\n")
    calls = [
        ("ast_edit", {"ops": [{"pat": "print($A)", "out": "log($A)"}], "path": "app.py"}),
        ("resolve", {"action": "apply", "reason": "use log", "only": ["c1"]}),
        ("ast_edit", {"ops": [{"pat": "print($A)", "out": "emit($A)"}], "path": "app.py"}),
        ("resolve", {"action": "discard", "reason": "not now"}),
    ]
    names = ["ast_edit", "resolve_apply", "ast_edit_second", "resolve_discard"]
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "xcsh", "mcp", "--cwd", str(workspace)],
        env={"XCSH_HOME": os.environ["XCSH_HOME"]},
    )
    async with Client(server) as client:
        for name, (tool, arguments) in zip(names, calls, strict=True):
            result = await client.call_tool(tool, arguments)
            expected = {key: recorded[name][key] for key in ("content", "isError")}
            assert _seen(result) == expected
            assert result.structured_content == recorded[name].get("structuredContent")
    assert (workspace / "app.py").read_text() == "log(1)\nprint(2)\n"
