"""An MCP client cancelling its ``resolve`` while the apply writes (in process).

The apply is never cut short: the cancelled call waits for every file to be
written, and the action is no longer pending, so a later ``resolve`` neither
applies it again nor finds it waiting.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from xcsh.fs import confined
from xcsh.mcp import McpSession
from xcsh.pending import NOTHING_PENDING_MESSAGE

FILES = 40


async def test_a_cancelled_resolve_lets_the_apply_finish_and_leaves_nothing_pending(
    tmp_path: Path, xcsh_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xcsh.cli.mcp_cmd import tool_factory
    from xcsh.journal import Journal, undoable

    for i in range(FILES):
        (tmp_path / f"m{i:02}.py").write_text(f"print({i})\n")
    session = McpSession.create(tool_factory(tmp_path, trust_project=False), max_pending=3)
    edited = await session.call("ast_edit", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    assert not edited.is_error
    real = confined._write_all
    writing, go_on = threading.Event(), threading.Event()
    count = 0

    def write(fd: int, data: bytes) -> None:
        nonlocal count
        count += 1
        if count == FILES // 2:  # half way through: the client cancels now
            writing.set()
            go_on.wait(10)
        real(fd, data)

    monkeypatch.setattr(confined, "_write_all", write)
    call = asyncio.create_task(session.call("resolve", {"action": "apply", "reason": "ok"}))
    assert await asyncio.to_thread(writing.wait, 10)
    call.cancel()
    await asyncio.sleep(0.05)
    assert not call.done()  # the cancelled call waits for the apply
    go_on.set()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert all((tmp_path / f"m{i:02}.py").read_text() == f"log({i})\n" for i in range(FILES))
    assert session.store.count == 0
    again = await session.call("resolve", {"action": "apply", "reason": "ok"})
    assert again.is_error and again.content[0].text.startswith(NOTHING_PENDING_MESSAGE)  # type: ignore[union-attr]
    labels = [s.label for s in undoable(Journal.for_root(xcsh_home, tmp_path))]
    assert labels == [f"AST Edit: {FILES} replacements in {FILES} files"]
