"""Hostile calls to ``xcsh mcp``: each is an error result, and the server keeps serving."""

from __future__ import annotations

from pathlib import Path

from mcp import Client
from mcp_helpers import texts, xcsh_mcp

BOOM_TOOL = """
from xcsh import CustomTool


def factory(api):
    def execute(tool_call_id, params):
        def down(n):
            return down(n + 1)

        return down(0)

    return CustomTool(
        name="recurse",
        description="Recurses forever.",
        parameters={"type": "object", "properties": {}},
        execute=execute,
    )
"""


def nested(terms: int) -> str:
    return "print(" + "+".join(["1"] * terms) + ")"


async def test_hostile_patterns_paths_and_tool_bugs_are_error_results(workspace: Path) -> None:
    (workspace / ".xcsh" / "tools" / "boom.py").write_text(BOOM_TOOL)
    async with Client(xcsh_mcp(workspace, "--trust-project")) as client:
        # ~40 KB, 20,000 levels: crashed ast-grep-py (and the server) before.
        long = await client.call_tool("ast_grep", {"pat": [nested(20_000)]})
        assert long.is_error and "characters long; the limit is" in texts(long)[0]
        # 2,000 levels: a RecursionError, reported as a JSON-RPC error with code 0 before.
        deep = await client.call_tool("ast_edit", {"ops": [{"pat": nested(2_000), "out": "x"}]})
        assert deep.is_error and "nested more than" in texts(deep)[0]
        nul = await client.call_tool("ast_grep", {"pat": ["print($A)"], "path": "app\0.py"})
        assert nul.is_error and "contains a NUL character" in texts(nul)[0]
        bug = await client.call_tool("recurse", {})
        assert bug.is_error and "failed" in texts(bug)[0] and "RecursionError" in texts(bug)[0]
        # Still serving.
        found = await client.call_tool("ast_grep", {"pat": ["print($A)"]})
        assert not found.is_error and "app.py:1:1" in texts(found)[0]
