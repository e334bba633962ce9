"""A custom tool that proposes file changes through ``api.file_changes`` (the shipped
``license_header`` example), driven through the installed ``xcsh -p`` with the scripted
model: previewed with one diff per file, applied in part by file, undone with
``xcsh undo``; and, through the loader, a file changed behind the preview is refused as
stale."""

from __future__ import annotations

import shutil
from pathlib import Path

from plugin_helpers import EXAMPLES

from helpers import run_steps, run_xcsh, tool_call, tool_results
from xcsh import PendingActionStore
from xcsh import load_custom_tools as load
from xcsh.tools import create_resolve_tool

HEADER = "# SPDX-License-Identifier: MIT\n"


def _project(tmp_path: Path, home: Path) -> Path:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "a.py").write_text("print('a')\n")
    (project / "pkg" / "b.py").write_text("print('b')\n")
    (project / "pkg" / "done.py").write_text(HEADER + "print('done')\n")
    (home / "tools").mkdir()
    shutil.copy(EXAMPLES / "license_header.py", home / "tools")
    return project


def test_previewed_applied_by_file_and_undone(tmp_path: Path, xcsh_home: Path) -> None:
    project = _project(tmp_path, xcsh_home)
    calls = [
        tool_call("license_header", path="pkg"),
        tool_call("resolve", action="apply", reason="only a", only=["pkg/a.py"]),
    ]
    code, events, err = run_steps(tmp_path, xcsh_home, calls, "", one_per_turn=True)
    assert code == 0, err
    [pushed] = [e for e in events if e["type"] == "pending_pushed"]
    assert pushed["label"] == "License header: 2 files"
    assert [f["path"] for f in pushed["value"]["files"]] == ["pkg/a.py", "pkg/b.py"]
    assert "+# SPDX-License-Identifier: MIT\n" in pushed["value"]["diff"]
    (_, preview), (is_error, applied) = tool_results(events)
    assert preview.startswith("Previewed p1: a MIT header in pkg/a.py, pkg/b.py.")
    assert not is_error and applied.startswith("Applied 1 of 2 changes of p1"), applied
    assert "Files written: pkg/a.py." in applied
    assert (project / "pkg" / "a.py").read_text() == HEADER + "print('a')\n"
    assert (project / "pkg" / "b.py").read_text() == "print('b')\n"
    [resolved] = [e for e in events if e["type"] == "resolved"]
    assert resolved["outcome"]["written"] == ["pkg/a.py"]
    entry = resolved["outcome"]["journal_entry"]
    assert isinstance(entry, int)

    listed = run_xcsh(["undo", "--list"], cwd=project, home=xcsh_home)
    assert "License header: 2 files (only c1)" in listed.stdout, listed.stdout
    undone = run_xcsh(["undo"], cwd=project, home=xcsh_home)
    assert undone.returncode == 0, undone.stderr
    assert (project / "pkg" / "a.py").read_text() == "print('a')\n"


async def test_a_file_changed_behind_the_preview_is_refused_and_stays_pending(
    tmp_path: Path, xcsh_home: Path
) -> None:
    project = _project(tmp_path, xcsh_home)
    store = PendingActionStore()
    [tool] = load(project, store=store, entry_points=False).tools
    await tool.execute("call_1", {"path": "pkg"})
    (project / "pkg" / "b.py").write_text("print('b')\n# more\n")
    resolve = create_resolve_tool(store)
    result = await resolve.execute("r", {"action": "apply", "reason": "all"})
    assert result.is_error
    assert "These files changed since the preview: pkg/b.py." in result.text, result.text
    assert "still pending" in result.text and store.count == 1
    assert (project / "pkg" / "a.py").read_text() == "print('a')\n"
    assert (project / "pkg" / "b.py").read_text() == "print('b')\n# more\n"
