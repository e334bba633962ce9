"""McpSession in-process: steering line, stack limit, errors, discard on close."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from xcsh.core import AgentTool, ToolCallContext, ToolError, text_result
from xcsh.mcp import McpSession, max_pending_message, mcp_tool, pending_notice, tool_annotations
from xcsh.pending import NOTHING_PENDING_MESSAGE, PendingAction, PendingActionStore
from xcsh.tools import create_resolve_tool

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}


def make_session(folder: Path, max_pending: int = 3) -> McpSession:
    def factory(store: PendingActionStore) -> list[AgentTool[Any]]:
        def write(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            target = folder / params["path"]

            def apply(reason: str) -> str:
                target.write_text(params["content"])
                return f"wrote {params['path']}"

            def reject(reason: str) -> None:
                with (folder / "rejected.log").open("a") as log:
                    log.write(f"{params['path']}|{reason}\n")

            store.push(
                PendingAction(
                    label=f"Write: {params['path']}",
                    source_tool_name="write_file",
                    apply=apply,
                    reject=reject,
                )
            )
            return text_result(f"preview {params['path']}")

        def count(params: dict[str, Any], ctx: ToolCallContext) -> Any:
            if params.get("fail"):
                raise ToolError("asked to fail")
            return text_result(str(len(list(folder.iterdir()))))

        return [
            AgentTool("write_file", "Write", "Preview a write.", SCHEMA, write),
            AgentTool("count", "Count", "Count files.", {"type": "object"}, count, read_only=True),
            create_resolve_tool(store),
        ]

    return McpSession.create(factory, max_pending=max_pending)


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


async def test_preview_result_ends_with_the_pending_line_until_resolved(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    first = await session.call("write_file", {"path": "a.txt", "content": "A"})
    assert texts(first) == [
        "preview a.txt",
        'Preview p1 is pending (resolve id "p1").',
        pending_notice(1),
    ]
    second = await session.call("write_file", {"path": "b.txt", "content": "B"})
    assert texts(second)[-1] == pending_notice(2)
    assert "2 actions wait" in pending_notice(2) and "1 action waits" in pending_notice(1)
    applied = await session.call("resolve", {"action": "apply", "reason": "ok"})
    # LIFO: the last preview is applied first; one is still pending.
    assert texts(applied) == ["wrote b.txt", pending_notice(1)]
    # Something did just change, so the footer must not claim that nothing has.
    assert "Nothing has changed" not in pending_notice(1)
    assert pending_notice(1).startswith("Pending: 1 action waits for resolve and has not been")
    assert (tmp_path / "b.txt").read_text() == "B" and not (tmp_path / "a.txt").exists()
    discarded = await session.call("resolve", {"action": "discard", "reason": "no"})
    assert texts(discarded) == ["Discarded: Write: a.txt. Reason: no"]
    assert (tmp_path / "rejected.log").read_text() == "a.txt|no\n"
    assert not (tmp_path / "a.txt").exists()


async def test_empty_store_error_is_exact(tmp_path: Path) -> None:
    result = await make_session(tmp_path).call("resolve", {"action": "apply", "reason": "x"})
    assert result.is_error
    assert texts(result) == [NOTHING_PENDING_MESSAGE]


async def test_stack_limit_refuses_previews_but_not_reads_or_resolve(tmp_path: Path) -> None:
    session = make_session(tmp_path, max_pending=2)
    for name in ("a", "b"):
        assert not (await session.call("write_file", {"path": name, "content": name})).is_error
    refused = await session.call("write_file", {"path": "c", "content": "c"})
    assert refused.is_error
    assert texts(refused) == [max_pending_message("write_file", 2, 2), pending_notice(2)]
    assert session.store.count == 2
    read = await session.call("count", {})
    assert not read.is_error and texts(read)[-1] == pending_notice(2)
    await session.call("resolve", {"action": "discard", "reason": "later"})
    assert not (await session.call("write_file", {"path": "c", "content": "c"})).is_error


async def test_tool_errors_and_unknown_tools_become_error_results(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    failed = await session.call("count", {"fail": True})
    assert failed.is_error and texts(failed) == ["asked to fail"]
    bad = await session.call("write_file", {"path": "a"})
    assert bad.is_error and "content" in texts(bad)[0]
    unknown = await session.call("rm", {})
    assert unknown.is_error
    known = "count, resolve, write_file"
    assert texts(unknown) == [f"Unknown tool 'rm'. Tools on this server: {known}."]


async def test_close_discards_newest_first_and_never_applies(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    await session.call("write_file", {"path": "a.txt", "content": "A"})
    await session.call("write_file", {"path": "b.txt", "content": "B"})
    assert await session.close("bye") == 2
    assert (tmp_path / "rejected.log").read_text() == "b.txt|bye\na.txt|bye\n"
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()
    assert await session.close() == 0
    after = await session.call("count", {})
    assert after.is_error and "closed" in texts(after)[0]


async def test_close_keeps_discarding_when_one_reject_fails(tmp_path: Path) -> None:
    store = PendingActionStore()
    seen: list[str] = []

    def boom(reason: str) -> None:
        raise RuntimeError("clean-up broke")

    store.push(
        PendingAction(label="first", source_tool_name="t", apply=lambda r: None, reject=seen.append)
    )
    store.push(
        PendingAction(label="second", source_tool_name="t", apply=lambda r: None, reject=boom)
    )
    session = McpSession(tools=[create_resolve_tool(store)], store=store)
    assert await session.close("gone") == 2
    assert seen == ["gone"]


def test_session_rejects_bad_configuration() -> None:
    store = PendingActionStore()
    with pytest.raises(ValueError, match="max_pending"):
        McpSession(tools=[], store=store, max_pending=0)
    with pytest.raises(ValueError, match="resolve"):
        McpSession(tools=[create_resolve_tool(store), create_resolve_tool(store)], store=store)


def test_annotations_and_schema(tmp_path: Path) -> None:
    session = make_session(tmp_path)
    by_name = {tool.name: tool for tool in session.tools}
    resolve = mcp_tool(by_name["resolve"])
    assert resolve.annotations is not None and resolve.annotations.destructive_hint is True
    assert resolve.input_schema["required"] == ["action", "reason"]
    assert resolve.input_schema["properties"]["action"]["enum"] == ["apply", "discard"]
    assert tool_annotations(by_name["count"]).read_only_hint is True
    custom = tool_annotations(by_name["write_file"])
    # Code xcsh did not write is not declared harmless.
    assert custom.read_only_hint is False and custom.destructive_hint is None
    assert mcp_tool(by_name["write_file"]).input_schema == SCHEMA


def test_cli_tools_put_custom_tools_beside_the_builtins_and_report_load_errors(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from xcsh.cli.mcp_cmd import tool_factory

    (workspace / ".xcsh" / "tools" / "broken.py").write_text("def factory(api):\n    return 42\n")
    factory = tool_factory(workspace, trust_project=True)
    names = [tool.name for tool in factory(PendingActionStore())]
    assert names == ["ast_grep", "ast_edit", "resolve", "write_note"]
    factory(PendingActionStore())  # a second session reports nothing new
    err = capsys.readouterr().err
    assert err.count("xcsh mcp: custom tool ") == 1 and "broken.py" in err

    untrusted = tool_factory(workspace, trust_project=False)
    assert [tool.name for tool in untrusted(PendingActionStore())] == [
        "ast_grep",
        "ast_edit",
        "resolve",
    ]
    assert "xcsh trust" in capsys.readouterr().err


async def test_huge_results_are_capped(tmp_path: Path) -> None:
    from xcsh.core import MAX_RESULT_CHARS

    def huge(params: dict[str, Any], ctx: ToolCallContext) -> Any:
        return text_result("a" * 1000 + "z" * 5_000_000 + "END")

    session = McpSession.create(
        lambda store: [AgentTool("huge", "Huge", "A lot of text.", {"type": "object"}, huge)]
    )
    result = await session.call("huge", {})
    text = result.content[0].text  # type: ignore[union-attr]
    assert len(text) < MAX_RESULT_CHARS + 200
    assert text.startswith("a" * 1000) and text.endswith("zEND")
    assert "4951003 characters cut" in text and "5001003 characters" in text


def test_max_pending_message_counts_one_action() -> None:
    assert "because 1 pending action waits for resolve" in max_pending_message("w", 1, 1)
    assert "because 3 pending actions wait for resolve" in max_pending_message("w", 3, 3)


async def test_mcp_sessions_record_applies_in_the_workspace_journal(
    tmp_path: Path, xcsh_home: Path
) -> None:
    """``xcsh mcp`` composes its sessions with the folder's journal: ``xcsh undo`` sees MCP
    clients' applies (built-in and custom) like the terminal's."""
    from xcsh.cli.mcp_cmd import tool_factory
    from xcsh.journal import Journal, undo, undoable
    from xcsh.pending import Preview, PreviewFile

    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "notes.md").write_text("one\n")
    session = McpSession.create(tool_factory(tmp_path, trust_project=False), max_pending=3)
    await session.call("ast_edit", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    await session.call("resolve", {"action": "apply", "reason": "ok"})

    def apply(reason: str) -> str:
        (tmp_path / "notes.md").write_text("two\n")
        return "wrote notes.md"

    session.store.push(
        PendingAction(
            label="Write: notes.md",
            source_tool_name="custom_tool",
            apply=apply,
            preview=Preview(files=(PreviewFile(path="notes.md"),)),
        )
    )
    await session.call("resolve", {"action": "apply", "reason": "ok"})
    journal = Journal.for_root(xcsh_home, tmp_path)
    assert [s.label for s in undoable(journal)] == [
        "AST Edit: 1 replacement in 1 file",
        "Write: notes.md",
    ]
    undo(journal)
    undo(journal)
    assert (tmp_path / "a.py").read_text() == "print(1)\n"
    assert (tmp_path / "notes.md").read_text() == "one\n"


async def test_a_single_pattern_string_and_a_single_op_object_are_accepted(
    tmp_path: Path,
) -> None:
    """MCP clients such as the Inspector send one pattern as a string, one op as an object."""
    from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool

    (tmp_path / "a.py").write_text("print(1)\nprint(2)\n")

    def factory(store: PendingActionStore) -> list[AgentTool[Any]]:
        return [
            create_ast_grep_tool(str(tmp_path)),
            create_ast_edit_tool(str(tmp_path), store),
            create_resolve_tool(store),
        ]

    session = McpSession.create(factory, max_pending=3)
    found = await session.call("ast_grep", {"pat": "print($A)", "lang": "python"})
    assert not found.is_error
    assert "a.py:1:1" in texts(found)[0] and "a.py:2:1" in texts(found)[0]
    edited = await session.call("ast_edit", {"ops": {"pat": "print($A)", "out": "log($A)"}})
    assert not edited.is_error, texts(edited)
    await session.call("resolve", {"action": "apply", "reason": "ok"})
    assert (tmp_path / "a.py").read_text() == "log(1)\nlog(2)\n"
    wrong = await session.call("ast_grep", {"pat": 3})
    assert wrong.is_error and "pat" in texts(wrong)[0]
