"""A custom tool that declares parts can be applied in part; one that does not refuses `only`."""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_helpers import write_tool

from xcsh import PendingActionStore, ToolError, load_custom_tools
from xcsh.tools import create_resolve_tool

RENAMER = """
from pathlib import Path
from xcsh import CustomTool, CustomToolPendingAction

SCHEMA = {"type": "object", "properties": {"names": {"type": "array"}}, "required": ["names"]}

def factory(api):
    root = Path(api.cwd)

    def stage(tool_call_id, params):
        names = params["names"]
        parts = [{"id": f"r{i}", "file": name, "summary": f"{name} -> {name}.bak"}
                 for i, name in enumerate(names, 1)]

        def rename(chosen):
            for part in parts:
                if part["id"] in chosen:
                    (root / part["file"]).rename(root / (part["file"] + ".bak"))
            return f"renamed {', '.join(chosen)}"

        preview_id = api.push_pending_action(CustomToolPendingAction(
            label=f"Rename {len(names)} files",
            apply=lambda reason: rename([p["id"] for p in parts]),
            parts=parts,
            apply_parts=lambda ids, reason: rename(ids),
        ))
        return f"preview {preview_id}: " + ", ".join(p["id"] for p in parts)

    def whole(tool_call_id, params):
        api.push_pending_action(CustomToolPendingAction(
            label="Whole", apply=lambda reason: "done", files=params["names"]))
        return "staged"

    return [
        CustomTool(name="rename", description="Rename.", parameters=SCHEMA, execute=stage),
        CustomTool(name="whole", description="Whole.", parameters=SCHEMA, execute=whole),
    ]
"""


async def test_parts_declared_by_a_custom_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    (project / ".xcsh" / "tools").mkdir(parents=True)
    for name in ("a.txt", "b.txt"):
        (project / name).write_text(name)
    write_tool(project / ".xcsh" / "tools", "renamer.py", RENAMER)
    store = PendingActionStore()
    loaded = load_custom_tools(project, store=store, trust_project=True)
    assert not loaded.errors, loaded.errors
    tools = {t.name: t for t in loaded.tools}
    staged = await tools["rename"].execute("c1", {"names": ["a.txt", "b.txt"]})
    assert staged.text == "preview p1: r1, r2"
    top = store.peek()
    assert top is not None and top.preview.paths == ["a.txt", "b.txt"]
    resolve = create_resolve_tool(store)
    done = await resolve.execute("r", {"action": "apply", "reason": "b only", "only": ["r2"]})
    assert done.text == (
        "Applied 1 of 2 changes of p1 (Rename 2 files): r2 in b.txt. Discarded: r1 in a.txt.\n"
        "renamed r2"
    )
    assert sorted(p.name for p in project.glob("*.txt*")) == ["a.txt", "b.txt.bak"]

    await tools["whole"].execute("c2", {"names": ["a.txt"]})
    with pytest.raises(ToolError, match=r"p2 \(Whole\) cannot be applied in parts"):
        await resolve.execute("r2", {"action": "apply", "reason": "x", "only": ["a.txt"]})
    top = store.peek()
    assert top is not None and top.preview.paths == ["a.txt"]  # files shown and journaled
