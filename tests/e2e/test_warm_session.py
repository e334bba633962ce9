"""A warm session through the installed ``xcsh``: over MCP stdio (the official client)
and in ``xcsh -p`` (the scripted model), files are changed behind the session's back
between two searches, and every warm answer is compared with a cold search's."""

from __future__ import annotations

import asyncio
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from e2e_run import XCSH_BIN, env, newest_session, print_mode, tool_results, write_steps
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from warm_scenario import CHANGES, PATTERN, SETTLE_SECONDS, make_workspace, run_change
from xcsh import PendingActionStore
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool

REWRITE = [{"pat": PATTERN, "out": "h($A)"}]


def text_of(result: Any) -> str:
    return "".join(block.text for block in result.content)


async def cold_search(root: Path) -> str:
    """What a search with no index answers now."""
    return str((await create_ast_grep_tool(str(root)).execute("cold", {"pat": [PATTERN]})).text)


async def cold_apply(root: Path) -> str:
    """A cold preview of :data:`REWRITE`, applied; returns the preview's text."""
    store = PendingActionStore()
    preview = await create_ast_edit_tool(str(root), store).execute("cold", {"ops": REWRITE})
    applied = await create_resolve_tool(store).execute("r", {"action": "apply", "reason": "t"})
    assert not applied.is_error, applied.text
    return str(preview.text)


async def test_mcp_stdio_session_sees_every_change_a_cold_search_sees(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    server = StdioServerParameters(
        command=XCSH_BIN, args=["mcp", "--cwd", str(root)], env=env(xcsh_home)
    )
    async with Client(server) as client:

        async def search() -> str:
            found = await client.call_tool("ast_grep", {"pat": [PATTERN]})
            assert not found.is_error, text_of(found)
            return text_of(found)

        time.sleep(SETTLE_SECONDS)
        assert await search() == await cold_search(root)
        assert await search() == await cold_search(root)
        for name, source in CHANGES:
            run_change(source, root)
            assert await search() == await cold_search(root), name
        twin = make_workspace(tmp_path / "twin")
        for _, source in CHANGES:
            run_change(source, twin)
        preview = await client.call_tool("ast_edit", {"ops": REWRITE})
        assert preview.content[0].text == await cold_apply(twin)  # then the pending notice
        applied = await client.call_tool("resolve", {"action": "apply", "reason": "e2e"})
        assert not applied.is_error, text_of(applied)
        assert await search() == await cold_search(root) == await cold_search(twin)
        assert "No matches" in await search()


def _bash(source: str) -> dict[str, object]:
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(source)}"
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def test_print_mode_session_sees_every_change_a_cold_search_sees(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = make_workspace(tmp_path / "ws")
    grep = {"tool_calls": [{"name": "ast_grep", "arguments": {"pat": [PATTERN]}}]}
    steps: list[dict[str, object]] = [_bash(f"import time; time.sleep({SETTLE_SECONDS})")]
    steps += [grep, grep]
    for _, source in CHANGES:
        steps += [_bash(source), grep]
    steps += [
        {"tool_calls": [{"name": "ast_edit", "arguments": {"ops": REWRITE}}]},
        {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "e2e"}}]},
        grep,
        {"text": "done"},
    ]
    done = print_mode(write_steps(tmp_path, "warm", steps), root, xcsh_home)
    assert done.returncode == 0, done.stderr
    results = tool_results(newest_session(xcsh_home))
    assert all(not is_error for _, is_error, _ in results), results
    warm = [(name, text) for name, _, text in results if name != "bash"]

    # The same changes, replayed on a twin of the workspace, searched cold after each.
    twin = make_workspace(tmp_path / "twin")
    expected = [("ast_grep", asyncio.run(cold_search(twin)))] * 2
    for _, source in CHANGES:
        run_change(source, twin)
        expected.append(("ast_grep", asyncio.run(cold_search(twin))))
    expected.append(("ast_edit", asyncio.run(cold_apply(twin))))
    expected.append(("resolve", warm[-2][1]))
    expected.append(("ast_grep", asyncio.run(cold_search(twin))))
    assert [name for name, _ in warm] == [name for name, _ in expected]
    for index, ((name, got), (_, want)) in enumerate(zip(warm, expected, strict=True)):
        assert got == want, (index, name)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")) == sorted(
        p.relative_to(twin).as_posix() for p in twin.rglob("*.py")
    )
