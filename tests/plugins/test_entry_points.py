"""Tools from installed distributions: the entry-point group ``xcsh.tools`` (contract §5).

A real (tiny) distribution is laid out in a temporary folder put on
``sys.path``: a module plus ``<name>.dist-info/{METADATA,entry_points.txt}``,
which is what ``pip install`` leaves in site-packages.
"""

from __future__ import annotations

import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from xcsh import PendingActionStore, load_custom_tools
from xcsh.tools import create_resolve_tool


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    module = f"xcsh_ep_demo_{uuid.uuid4().hex[:8]}"
    (site / f"{module}.py").write_text(
        textwrap.dedent(
            """
            from xcsh import CustomTool, CustomToolPendingAction

            def make(api):
                def execute(tool_call_id, params):
                    api.push_pending_action(CustomToolPendingAction(
                        label="Installed: stage", apply=lambda reason: f"done: {reason}"))
                    return f"{api.source} tool in {api.cwd.name}"
                return CustomTool(name="installed_tool", label="Installed",
                                  description="From an installed package.",
                                  parameters={"type": "object"}, execute=execute)
            """
        ),
        encoding="utf-8",
    )
    dist = site / "xcsh_ep_demo-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: xcsh-ep-demo\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        f"[xcsh.tools]\ninstalled = {module}:make\nbroken = {module}_missing:factory\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(site))
    yield module
    sys.modules.pop(module, None)


async def test_entry_point_tool_loads_and_pushes(installed: str, project: Path) -> None:
    store = PendingActionStore()
    result = load_custom_tools(project, store=store)
    [entry] = result.loaded
    assert entry.source == "entry_point"
    assert entry.path == f"{installed}:make (entry point installed of xcsh-ep-demo)"
    assert (await entry.tool.execute("c", {})).text == "entry_point tool in project"
    out = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "fine"})
    assert out.text == "done: fine"
    assert out.details["source_tool_name"] == "custom_tool"

    [error] = result.errors
    assert error.source == "entry_point"
    assert error.path.endswith("(entry point broken of xcsh-ep-demo)")
    assert "ModuleNotFoundError" in error.error


def test_entry_points_can_be_switched_off(installed: str, project: Path) -> None:
    result = load_custom_tools(project, store=None, entry_points=False)
    assert result.loaded == [] and result.errors == []
