"""``resolve`` with ``only`` and ``check: true``: the kept subset is checked before it lands."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from xcsh.checks import Checker, CheckSettings
from xcsh.core import ToolError
from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.structural import create_ast_edit_tool

MOD = "def helper():\n    return 1\n\n\ndef use():\n    return helper()\n"
TEST = "from mod import use\n\n\ndef test_use():\n    assert use() == 1\n"

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="staging needs Linux")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "mod.py").write_text(MOD)
    (folder / "test_mod.py").write_text(TEST)
    return folder


async def test_a_subset_that_newly_fails_is_not_applied_and_stays_pending(
    project: Path, xcsh_home: Path
) -> None:
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_mod.py"
    checker = Checker(CheckSettings(command=command), workspace=project, home=xcsh_home)
    store = PendingActionStore()
    edit = create_ast_edit_tool(str(project), store, checker=checker)
    resolve = create_resolve_tool(store)
    try:
        # renaming the definition and its one use: the whole passes
        preview = await edit.execute(
            "c1", {"ops": [{"pat": "helper", "out": "helper2"}], "path": "mod.py", "check": True}
        )
        top = store.peek()
        assert top is not None and top.preview.check is not None
        assert top.preview.check.status == "passes"
        assert "Check `" in preview.text and "`: passes." in preview.text
        definition = top.preview.changes[0].id
        # only the definition: use() now calls a name that is gone
        with pytest.raises(ToolError) as refused:
            await resolve.execute(
                "r1",
                {"action": "apply", "reason": "r", "only": [definition], "check": True},
            )
        assert "newly fails: test_mod.py::test_use" in str(refused.value)
        assert store.peek() is top  # still pending, nothing written
        assert (project / "mod.py").read_text() == MOD
        # the whole, checked: applied, and the result repeats the verdict
        applied = await resolve.execute("r2", {"action": "apply", "reason": "all of it"})
        assert not applied.is_error
        assert applied.text.endswith("`: passes.")
        assert "helper2()" in (project / "mod.py").read_text()
    finally:
        checker.close()


TOOL = """
from xcsh import CustomTool, CustomToolPendingAction

SCHEMA = {"type": "object", "properties": {"declare": {"type": "boolean"}}}


def factory(api):
    async def execute(tool_call_id, params):
        new = (api.cwd / "mod.py").read_text().replace("return 1", "return 2")
        files = {"mod.py": new} if params.get("declare") else ["mod.py"]
        preview_id = await api.apush_pending_action(
            CustomToolPendingAction(label="Bump", apply=lambda reason: "done", files=files),
            check=True,
        )
        return f"preview {preview_id}"

    return CustomTool(name="bump", description="Bump.", parameters=SCHEMA, execute=execute)
"""


async def test_a_custom_tool_that_declares_its_files_is_checked_and_one_that_does_not_is_not(
    project: Path, xcsh_home: Path
) -> None:
    from xcsh.plugins import aload_custom_tools

    (xcsh_home / "tools").mkdir()
    (xcsh_home / "tools" / "bump.py").write_text(TOOL)
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider test_mod.py"
    checker = Checker(CheckSettings(command=command), workspace=project, home=xcsh_home)
    store = PendingActionStore()
    try:
        loaded = await aload_custom_tools(project, store=store, checker=checker)
        [tool] = [t for t in loaded.tools if t.name == "bump"]
        await tool.execute("t1", {"declare": True})
        declared = store.pop()
        assert declared is not None and declared.preview.check is not None
        assert declared.preview.check.status == "newly_fails"
        assert declared.preview.check.new_failures == ("test_mod.py::test_use",)
        assert declared.preview.paths == ["mod.py"]
        await tool.execute("t2", {"declare": False})
        undeclared = store.pop()
        assert undeclared is not None and undeclared.preview.check is not None
        assert undeclared.preview.check.status == "not_checked"
        assert "not checked" in undeclared.preview.check.summary()
        assert (project / "mod.py").read_text() == MOD
    finally:
        checker.close()
