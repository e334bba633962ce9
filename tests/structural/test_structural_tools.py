"""The ast_grep and ast_edit tools: arguments, scope, skipped files, preview, apply.

Contract §4.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from sgcli import cli_json

from xcsh import AgentToolResult, PendingActionStore, ToolError
from xcsh.providers._common import text_tool_calls
from xcsh.structural import EditOp, EditSpec, MatchSpec, ScopeSpec, edit_label, preview_edit, search
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool


async def grep(ws: Path, **params: Any) -> AgentToolResult:
    return await create_ast_grep_tool(str(ws)).execute("g", params)


async def edit(ws: Path, store: PendingActionStore, **params: Any) -> AgentToolResult:
    return await create_ast_edit_tool(str(ws), store).execute("e", params)


async def small_model_edit(ws: Path, store: PendingActionStore, **params: Any) -> AgentToolResult:
    """``ast_edit`` as the compact profile builds it for small models."""
    tool = create_ast_edit_tool(str(ws), store, widen_renames=True)
    return await tool.execute("e", params)


async def resolve(store: PendingActionStore, action: str = "apply") -> AgentToolResult:
    return await create_resolve_tool(store).execute("r", {"action": action, "reason": "test"})


def op(pat: str, out: str) -> dict[str, str]:
    return {"pat": pat, "out": out}


# Arguments.


async def test_mixed_language_scope_searches_each_file_in_its_own_language(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    (ws / "b.js").write_text("print(1);\n")
    (ws / "c.json").write_text('{"print": 1}\n')  # the pattern matches nothing here
    result = await grep(ws, pat=["print($A)"])
    expected = sorted(cli_json(ws, "-p", "print($A)", "."), key=lambda m: m["file"])
    assert result.details["matches"] == expected
    assert [m["language"] for m in expected] == ["Python", "JavaScript"]
    # A rewrite is written for one language: edits that would land in two are refused.
    store = PendingActionStore()
    with pytest.raises(ToolError) as info:
        await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert "python: a.py" in str(info.value) and "javascript: b.js" in str(info.value)
    assert "`lang`" in str(info.value) and not store.has_pending
    await edit(ws, store, ops=[op("print($A)", "log($A)")], lang="python")
    await resolve(store)
    assert (ws / "a.py").read_text() == "log(1)\n"
    assert (ws / "b.js").read_text() == "print(1);\n"


async def test_ts_and_tsx_project_edited_in_one_run_as_the_cli(ws: Path) -> None:
    (ws / "package.json").write_text('{"name": "app"}\n')
    (ws / "a.ts").write_text("console.log(1 as number);\n")
    (ws / "b.tsx").write_text("const x = <div>{console.warn(2)}</div>;\n")
    result = await grep(ws, pat=["console.$M($$$A)"])
    expected = sorted(cli_json(ws, "-p", "console.$M($$$A)"), key=lambda m: m["file"])
    assert result.details["matches"] == expected and len(expected) == 2
    store = PendingActionStore()
    await edit(ws, store, ops=[op("console.$M($$$A)", "logger.$M($$$A)")])
    await resolve(store)
    assert (ws / "a.ts").read_text() == "logger.log(1 as number);\n"
    assert (ws / "b.tsx").read_text() == "const x = <div>{logger.warn(2)}</div>;\n"


async def test_unknown_language_lists_supported(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError) as info:
        await grep(ws, pat=["print($A)"], lang="klingon")
    message = str(info.value)
    assert "Unknown language 'klingon'" in message
    for name in ("python", "javascript", "typescript", "rust", "go"):
        assert name in message


async def test_malformed_pattern_is_an_error_not_silence(ws: Path) -> None:
    (ws / "a.py").write_text("def f():\n    pass\n")
    with pytest.raises(ToolError) as info:
        await grep(ws, pat=["def ($A"])
    assert "def ($A" in str(info.value) and "sel" in str(info.value)
    with pytest.raises(ToolError):
        await edit(ws, PendingActionStore(), ops=[op("def ($A", "x")])


async def test_unknown_selector_reports_ast_grep_reason(ws: Path) -> None:
    (ws / "a.py").write_text("f(1)\n")
    with pytest.raises(ToolError, match="nope_kind"):
        await grep(ws, pat=["f($A)"], sel="nope_kind")


async def test_empty_ops_and_empty_pat_refused(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError, match="ops"):
        await edit(ws, PendingActionStore(), ops=[])
    with pytest.raises(ToolError, match="pat"):
        await grep(ws, pat=[])
    with pytest.raises(ToolError, match="ops"):
        preview_edit(EditSpec(ops=()), ScopeSpec(root=ws))


@pytest.mark.parametrize("limit", [0, -3])
async def test_non_positive_limit_refused(ws: Path, limit: int) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError, match="limit"):
        await grep(ws, pat=["print($A)"], limit=limit)
    with pytest.raises(ToolError, match="limit"):
        await edit(ws, PendingActionStore(), ops=[op("print($A)", "x")], limit=limit)
    with pytest.raises(ToolError, match="limit"):
        preview_edit(
            EditSpec(ops=(EditOp(pat="print($A)", out="x"),), limit=limit), ScopeSpec(root=ws)
        )


async def test_rewrite_naming_unbound_metavariable_is_an_error(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError, match=r"\$B"):
        await edit(ws, PendingActionStore(), ops=[op("print($A)", "log($B)")])
    with pytest.raises(ToolError, match=r"\$\$\$A"):
        await edit(ws, PendingActionStore(), ops=[op("print($A)", "log($$$A)")])
    with pytest.raises(ToolError, match="capture nothing"):
        await edit(ws, PendingActionStore(), ops=[op("print($_)", "log($_)")])
    store = PendingActionStore()  # `$_` matches without capturing; a literal `$x` is text
    await edit(ws, store, ops=[op("print($_)", "log('$x')")])
    await resolve(store)
    assert (ws / "a.py").read_text() == "log('$x')\n"


# Paths.


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.py").write_text("print('secret')\n")
    return folder


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink", "dangling"])
async def test_path_outside_workspace_refused(ws: Path, outside: Path, kind: str) -> None:
    (ws / "a.py").write_text("print(1)\n")
    if kind == "dotdot":
        path = "../outside/secret.py"
    elif kind == "absolute":
        path = str(outside / "secret.py")
    elif kind == "symlink":
        (ws / "link.py").symlink_to(outside / "secret.py")
        path = "link.py"
    else:
        (ws / "dangling.py").symlink_to(outside / "not-yet.py")
        path = "dangling.py"
    store = PendingActionStore()
    with pytest.raises(ToolError, match="outside the workspace"):
        await grep(ws, pat=["print($A)"], path=path)
    with pytest.raises(ToolError, match="outside the workspace"):
        await edit(ws, store, ops=[op("print($A)", "log($A)")], path=path)
    assert store.count == 0
    assert (outside / "secret.py").read_text() == "print('secret')\n"
    assert not (outside / "not-yet.py").exists()


async def test_walk_does_not_follow_symlinked_files(ws: Path, outside: Path) -> None:
    """As the CLI: a linked file is neither followed out nor edited twice."""
    (ws / "a.py").write_text("print(1)\nprint(2)\n")
    (ws / "alias.py").symlink_to(ws / "a.py")
    (ws / "link.py").symlink_to(outside / "secret.py")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert [f["file"] for f in result.details["files"]] == ["a.py"]
    assert store.peek().label == "AST Edit: 2 replacements in 1 file"  # type: ignore[union-attr]
    await resolve(store)
    assert (ws / "a.py").read_text() == "log(1)\nlog(2)\n"
    assert (outside / "secret.py").read_text() == "print('secret')\n"
    assert (ws / "link.py").is_symlink() and (ws / "alias.py").is_symlink()


async def test_symlink_inside_workspace_written_through_not_replaced(ws: Path) -> None:
    (ws / "real.py").write_text("print(1)\n")
    (ws / "alias.py").symlink_to(ws / "real.py")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("print($A)", "log($A)")], path="alias.py")
    await resolve(store)
    assert (ws / "alias.py").is_symlink()
    assert (ws / "real.py").read_text() == "log(1)\n"


async def test_missing_path_and_glob_path(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("print(1)\n")
    (ws / "b.py").write_text("print(2)\n")
    with pytest.raises(ToolError, match="does not exist"):
        await grep(ws, pat=["print($A)"], path="nope")
    result = await grep(ws, pat=["print($A)"], path="src/*.py")
    assert [m["file"] for m in result.details["matches"]] == ["src/a.py"]
    result = await grep(ws, pat=["print($A)"], glob="b.py")
    assert [m["file"] for m in result.details["matches"]] == ["b.py"]


async def test_gitignore_honoured(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n")
    (ws / "build").mkdir()
    (ws / "build" / "gen.py").write_text("print(1)\n")
    (ws / "a.py").write_text("print(2)\n")
    result = await grep(ws, pat=["print($A)"])
    assert [m["file"] for m in result.details["matches"]] == ["a.py"]


# Files that are skipped.


async def test_binary_and_latin1_files_skipped_and_listed(ws: Path) -> None:
    (ws / "good.py").write_text("print(1)\n")
    (ws / "blob.py").write_bytes(b"print(2)\n\x00\x01\x02")
    latin = "print('caf\xe9')\n".encode("latin-1")
    (ws / "latin.py").write_bytes(latin)
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert "blob.py (binary)" in result.text
    assert "latin.py (not UTF-8)" in result.text
    assert {"file": "latin.py", "reason": "not UTF-8"} in result.details["skipped"]
    assert store.peek() is not None and store.peek().label == edit_label(1, 1)  # type: ignore[union-attr]
    await resolve(store)
    assert (ws / "latin.py").read_bytes() == latin
    assert (ws / "blob.py").read_bytes() == b"print(2)\n\x00\x01\x02"
    found = await grep(ws, pat=["log($A)"])
    assert "latin.py (not UTF-8)" in found.text


async def test_parse_error_files_skipped_by_edit_searched_by_grep(ws: Path) -> None:
    (ws / "ok.py").write_text("print(1)\n")
    (ws / "half.py").write_text("print(2)\ndef broken(:\n")
    result = await grep(ws, pat=["print($A)"])
    assert result.details["total"] == 2  # as the CLI: files with errors are searched
    assert len(cli_json(ws, "-p", "print($A)", "half.py")) == 1
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert "half.py (parse errors)" in result.text
    assert [f["file"] for f in result.details["files"]] == ["ok.py"]


# Previews, labels and pending actions.


async def test_labels_singular_and_plural(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\nprint(2)\n")
    (ws / "b.py").write_text("print(3)\n")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("print($A)", "log($A)")], path="b.py")
    await edit(ws, store, ops=[op("print($A)", "log($A)")], path="a.py")
    await edit(ws, store, ops=[op("print($A)", "log($A)")])
    labels = [a.label for a in store.snapshot()]
    assert labels == [
        "AST Edit: 3 replacements in 2 files",
        "AST Edit: 2 replacements in 1 file",
        "AST Edit: 1 replacement in 1 file",
    ]
    top = store.peek()
    assert top is not None and top.source_tool_name == "ast_edit" and top.reject is None


async def test_preview_text_details_and_nothing_on_disk(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\nprint(x)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log.info($A)")])
    assert (ws / "a.py").read_text() == "x = 1\nprint(x)\n"
    lines = result.text.splitlines()
    assert "a.py: 1 replacement" in lines
    assert "  c1 -2:1 print(x)" in lines
    assert "     +2:1 log.info(x)" in lines
    assert "Total: 1 replacement in 1 file." in lines
    details = result.details
    assert details["label"] == "AST Edit: 1 replacement in 1 file"
    assert "-print(x)\n+log.info(x)\n" in details["diff"]
    assert details["arguments"]["ops"] == [{"pat": "print($A)", "out": "log.info($A)"}]
    action = store.peek()
    assert action is not None and action.preview.diff == details["diff"]
    assert action.id == "p1" and [c.id for c in action.preview.changes] == ["c1"]
    assert lines[-1].startswith("This is preview p1: nothing has changed yet.")
    applied = await resolve(store)
    assert applied.text == "Applied 1 replacement in 1 file: a.py."
    assert (ws / "a.py").read_text() == "x = 1\nlog.info(x)\n"


async def test_zero_matches_pushes_nothing(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert result.text.startswith("No replacements made")
    assert store.count == 0


async def test_zero_matches_in_matching_files_adds_no_scope_note(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    result = await edit(ws, PendingActionStore(), ops=[op("print($A)", "log($A)")])
    assert result.text == "No replacements made\nNothing was changed, and nothing is pending."


async def test_a_lang_with_no_file_in_scope_says_so_and_how_to_fix_it(ws: Path) -> None:
    # a small model's usual mistake: `lang: javascript` in a Python project
    (ws / "a.py").write_text("print(1)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")], lang="javascript")
    assert result.text == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "No javascript file was in scope, so nothing was searched; the scope holds 1 python "
        "file: leave `lang` out to read each file in the language of its extension."
    )
    assert store.count == 0


async def test_empty_out_deletes_the_match(ws: Path) -> None:
    (ws / "a.js").write_text("debugger;\nfoo();\n")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("debugger;", "")])
    await resolve(store)
    assert (ws / "a.js").read_text() == "\nfoo();\n"


async def test_several_ops_in_one_call(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\nwarn(2)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)"), op("warn($A)", "log($A)")])
    assert result.details["label"] == "AST Edit: 2 replacements in 1 file"
    await resolve(store)
    assert (ws / "a.py").read_text() == "log(1)\nlog(2)\n"


async def test_overlapping_ops_refused_at_preview(ws: Path) -> None:
    (ws / "a.py").write_text("print(warn(1))\n")
    store = PendingActionStore()
    with pytest.raises(ToolError) as info:
        await edit(ws, store, ops=[op("print($A)", "log($A)"), op("warn($A)", "w($A)")])
    message = str(info.value)
    assert "Overlapping" in message and "op 2" in message and "a.py:1:7" in message
    assert store.count == 0


async def test_nested_matches_only_outermost_rewritten_and_said(ws: Path) -> None:
    (ws / "n.py").write_text("f(f(1))\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("f($A)", "g($A)")])
    assert result.details["total"] == 1
    assert "1 nested match inside other matches will not be rewritten" in result.text
    await resolve(store)
    assert (ws / "n.py").read_text() == "g(f(1))\n"


async def test_edit_limit_caps_replacements(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\nprint(2)\nprint(3)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)")], limit=2)
    assert result.details["label"] == "AST Edit: 2 replacements in 1 file"
    assert "limit was reached" in result.text
    await resolve(store)
    assert (ws / "a.py").read_text() == "log(1)\nlog(2)\nprint(3)\n"


# Apply safety.


@pytest.mark.parametrize("same_size", [True, False])
async def test_stale_preview_rebuilt_nothing_written(ws: Path, same_size: bool) -> None:
    (ws / "a.py").write_text("print(1)\n")
    (ws / "b.py").write_text("print(2)\n")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("print($A)", "log($A)")])
    stat_before = os.stat(ws / "b.py")
    (ws / "b.py").write_text("print(3)\n" if same_size else "print(33)\n")
    if same_size:  # same size, same mtime: only a content hash can tell
        os.utime(ws / "b.py", ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns))
    result = await resolve(store)
    assert result.is_error  # not applied
    assert result.text.startswith(
        "Not applied: the files of p1 changed since its preview (b.py). It was previewed "
        "again against them as p2, which is now pending instead: the lines it replaces, or "
        "what it puts in their place, are not the same. Check it, then resolve p2."
    )
    assert (ws / "a.py").read_text() == "print(1)\n"
    top = store.peek()
    assert store.count == 1 and top is not None and top.id == "p2"
    assert [(c.id, c.old) for c in top.preview.changes] == [
        ("c1", "print(1)"),  # unchanged: keeps its id
        ("c3", "print(3)" if same_size else "print(33)"),
    ]
    discarded = await resolve(store, "discard")
    assert discarded.text.startswith("Discarded: AST Edit: 2 replacements in 2 files.")


async def test_lifo_two_previews_resolved_through_resolve(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    (ws / "b.py").write_text("warn(2)\n")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("print($A)", "log($A)")], path="a.py")
    await edit(ws, store, ops=[op("warn($A)", "log($A)")], path="b.py")
    first = await resolve(store)
    assert "b.py" in first.text
    assert (ws / "b.py").read_text() == "log(2)\n"
    assert (ws / "a.py").read_text() == "print(1)\n"
    second = await resolve(store)
    assert "a.py" in second.text
    assert (ws / "a.py").read_text() == "log(1)\n"


async def test_lifo_same_file_second_preview_goes_stale(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    store = PendingActionStore()
    await edit(ws, store, ops=[op("print($A)", "log($A)")])
    await edit(ws, store, ops=[op("print($A)", "out($A)")])
    await resolve(store)
    assert (ws / "a.py").read_text() == "out(1)\n"
    refused = await resolve(store)
    assert refused.is_error and refused.text == (
        "Not applied: the files of p1 changed since its preview (a.py). Previewed again "
        "against them, it finds nothing to change, so it was dropped; nothing changed."
    )
    assert (ws / "a.py").read_text() == "out(1)\n" and store.count == 0


# ast_grep output.


async def test_grep_text_positions_captures_and_limit_note(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n" + "".join(f"print({i}, 'é')\n" for i in range(5)))
    result = await grep(ws, pat=["print($A, $$$R)"], limit=2)
    lines = result.text.splitlines()
    assert lines[0] == "a.py:2:1: print(0, 'é')"
    assert "  $A = 0" in lines and "  $$$R = 'é'" in lines
    assert "5 matches in 1 file." in lines
    assert "Showing matches 1-2 of 5; call again with offset=2 for more." in lines
    assert result.details["matches"] == cli_json(ws, "-p", "print($A, $$$R)", "a.py")[:2]
    page = await grep(ws, pat=["print($A, $$$R)"], limit=2, offset=4)
    assert page.details["matches"][0]["text"] == "print(4, 'é')"


async def test_grep_several_patterns_merged_in_source_order(ws: Path) -> None:
    (ws / "a.py").write_text("warn(1)\nprint(2)\nwarn(3)\n")
    result = await grep(ws, pat=["print($A)", "warn($A)"])
    assert [m["text"] for m in result.details["matches"]] == ["warn(1)", "print(2)", "warn(3)"]


async def test_grep_no_match_text(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    result = await grep(ws, pat=["print($A)"])
    assert result.text == "No matches for `print($A)` in 1 file."


# Process pool and progress.


def test_pool_and_in_process_agree_and_progress_reports(ws: Path) -> None:
    for i in range(40):
        body = "".join(f"print({i}, {j})\nvalue_{j} = {j} == {j}\n" for j in range(300))
        (ws / f"m{i:02}.py").write_text(body)
    (ws / "none.py").write_text("x = 1\n")
    seen: list[tuple[int, int]] = []
    pooled = search(
        MatchSpec(patterns=("$A == $A",)),
        ScopeSpec(root=ws),
        workers=2,
        progress=lambda d, t: seen.append((d, t)),
    )
    single = search(MatchSpec(patterns=("$A == $A",)), ScopeSpec(root=ws), workers=1)
    assert pooled.total == single.total == 40 * 300
    assert [m.to_cli_json() for m in pooled.matches] == [m.to_cli_json() for m in single.matches]
    assert seen[-1] == (41, 41) and all(t == 41 for _, t in seen)
    p1 = preview_edit(
        EditSpec(ops=(EditOp(pat="print($A, $B)", out="log($B, $A)"),)),
        ScopeSpec(root=ws),
        workers=2,
    )
    p2 = preview_edit(
        EditSpec(ops=(EditOp(pat="print($A, $B)", out="log($B, $A)"),)),
        ScopeSpec(root=ws),
        workers=1,
    )
    assert [f.new_bytes for f in p1.files] == [f.new_bytes for f in p2.files]
    assert p1.total == 40 * 300


async def test_cancelled_call_stops_and_pushes_nothing(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    cancel = asyncio.Event()
    cancel.set()
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(ws), store)
    with pytest.raises(ToolError, match="Cancelled"):
        await tool.execute("e", {"ops": [op("print($A)", "log($A)")]}, cancel=cancel)
    assert store.count == 0


@pytest.mark.parametrize("strictness", ["cst", "smart", "ast", "relaxed", "signature"])
def test_strictness_levels_and_prefilter_agree_with_cli(ws: Path, strictness: str) -> None:
    # The pre-filter must never drop a file the CLI matches: signature ignores text.
    (ws / "s.py").write_text("print(1)\nlog(2)\nx = \"a\"\ny = 'a'\n# print(3)\n")
    for pat in ("print($A)", 'x = "a"'):
        ours = [
            m.to_cli_json()
            for m in search(
                MatchSpec(patterns=(pat,), strictness=strictness), ScopeSpec(root=ws)
            ).matches
        ]
        assert ours == cli_json(ws, "-p", pat, "--strictness", strictness, "s.py")


def test_ast_grep_panic_on_one_file_skips_that_file(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import xcsh.structural.scan.per_file as scan

    (ws / "a.py").write_text("print(1)\n")
    (ws / "b.py").write_text("print(2)\n")
    real = scan.scan_file

    class Panic(BaseException):  # what ast-grep-py raises for a Rust panic
        pass

    def fragile(query: Any, path: Path, file: str, language: str) -> Any:
        if file == "a.py":
            raise Panic("called `Option::unwrap()` on a `None` value")
        return real(query, path, file, language)

    monkeypatch.setattr(scan, "scan_file", fragile)
    result = search(MatchSpec(patterns=("print($A)",)), ScopeSpec(root=ws), workers=1)
    assert [m.file for m in result.matches] == ["b.py"]
    assert [(s.file, s.reason.split(":")[0]) for s in result.skipped] == [
        ("a.py", "ast-grep failed")
    ]


LANG_SAMPLES = [
    ("a.cpp", "int main() { auto x = foo(1); std::cout << x; }\n", "foo($A)"),
    ("a.c", "int main() { int x = foo(1); return x; }\n", "int $X = $V;"),
    ("a.kt", 'fun main() {\n    println("hi")\n    val x = foo(1)\n}\n', "println($$$A)"),
    ("a.php", "<?php\n$x = foo(1);\necho $x;\n", "$x = $V"),
    ("A.java", "class A { void m() { System.out.println(x); } }\n", "System.out.println($A)"),
    ("a.cs", "class A { void M() { Console.WriteLine(x); } }\n", "Console.WriteLine($A)"),
    ("a.rb", "x = foo(1)\nputs x\n", "foo($A)"),
    ("a.lua", "local x = foo(1)\nprint(x)\n", "foo($A)"),
    ("a.rs", 'fn main() { println!("{}", v); }\n', "println!($$$A)"),
]


@pytest.mark.parametrize(("name", "src", "pat"), LANG_SAMPLES)
def test_search_in_more_languages_equals_cli(ws: Path, name: str, src: str, pat: str) -> None:
    (ws / name).write_text(src)
    ours = [m.to_cli_json() for m in search(MatchSpec(patterns=(pat,)), ScopeSpec(root=ws)).matches]
    assert ours
    assert ours == cli_json(ws, "-p", pat, name)


def test_language_names_the_cli_accepts_as_extensions() -> None:
    """`-l cc` and `-l rb` work with the CLI; any known extension names its language."""
    from xcsh.structural.base.languages import resolve_language

    assert resolve_language("cc").name == "cpp"
    assert resolve_language("rb").name == "ruby"
    assert resolve_language(".PY").name == "python"


# Rewrites that would not parse.


async def test_a_file_the_rewrite_would_break_is_left_out_and_counted(ws: Path) -> None:
    (ws / "a.py").write_text("print(x)\n")  # -> x = 1: still Python
    (ws / "b.py").write_text("y = [print(x)]\n")  # -> y = [x = 1]: not Python
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "$A = 1")])
    top = store.peek()
    assert top is not None
    assert top.label == (
        "AST Edit: 1 replacement in 1 file (1 file left out: the rewrite would not parse)"
    )
    assert top.preview.paths == ["a.py"]
    assert (
        "Left out 1 file whose rewrite would not parse (new parse errors, first at): "
        "b.py (line 1, column 8). Check the rewrite; `include_broken` writes them anyway."
    ) in result.text.splitlines()
    assert [(o.file, o.error) for o in top.preview.left_out] == [("b.py", "line 1, column 8")]
    await resolve(store, "discard")
    kept = await edit(ws, store, ops=[op("print($A)", "$A = 1")], include_broken=True)
    again = store.peek()
    assert again is not None and again.label == "AST Edit: 2 replacements in 2 files"
    assert "Included although the rewrite does not parse: b.py (line 1, column 8)." in kept.text


@pytest.mark.parametrize(
    ("matches", "padding"),
    [(400, 0), (2, 20_000)],  # one change per 9 bytes, then one per 10 KB
)
def test_a_rewrite_that_breaks_one_of_many_or_few_changes_is_caught(
    ws: Path, matches: int, padding: int
) -> None:
    # Few changes in a big file are checked one by one; many changes by parsing the new
    # file once. Either way the one change that breaks the file keeps it out of the edit.
    body = "v = f(x)\n" * (matches - 1) + "# pad\n" * (padding // 6) + "y = [f(z)]\n"
    (ws / "a.py").write_text(body)
    spec = EditSpec(ops=(EditOp(pat="f($A)", out="$A = 1"),))
    broken = preview_edit(spec, ScopeSpec(root=ws), workers=1)
    assert [(s.file, s.reason, s.error) for s in broken.skipped] == [
        ("a.py", "the rewrite would not parse", f"line {body.count(chr(10))}, column 8")
    ]
    assert not broken.files
    fine = preview_edit(
        EditSpec(ops=(EditOp(pat="f($A)", out="g($A, 1)"),)), ScopeSpec(root=ws), workers=1
    )
    assert not fine.skipped
    assert sum(len(edit.replacements) for edit in fine.files) == matches


PAD = "# " + "y" * 300 + "\n"


@pytest.mark.parametrize(
    ("name", "code", "pat", "out"),
    [
        # same kind (a number), but `1.` then `.toString` becomes the token `1.toString`
        ("a.js", "var a = 1..toString();\n", "1.", "1"),
        # statements where a statement stood, on a line that cannot hold two
        ("a.py", "if a: x = 1; z = 3\nelse: pass\n", "x = 1", "x = 1\ny = 2"),
        ("b.py", "if a: x = 1\nelse: pass\n", "x = 1", "x = 1\ny = 2"),
        ("c.py", "foo(); bar()\n", "bar()", "if y: z"),
        # a line comment at the end takes the rest of the line with it
        ("b.js", "function f() { foo() }\n", "foo()", "bar() // c"),
        ("a.c", "int main() { foo(); }\n", "foo();", "bar(); // c"),
        ("a.rs", "fn main() { foo(); }\n", "foo();", "bar(); // c"),
        # after a line break, JavaScript reads `/re/` as a division of the line before
        ("c.js", "let a = x\nfoo()\n", "foo()", "/re/.test(s)"),
    ],
)
def test_a_rewrite_that_fits_alone_but_not_in_its_place_is_caught(
    ws: Path, name: str, code: str, pat: str, out: str
) -> None:
    # One change in a file of 12 KB: checked on its own, not by parsing the file again.
    pad = PAD if name.endswith(".py") else PAD.replace("#", "//", 1)
    (ws / name).write_text(pad * 20 + code + pad * 20)
    spec = EditSpec(ops=(EditOp(pat=pat, out=out),))
    broken = preview_edit(spec, ScopeSpec(root=ws), workers=1)
    assert [(s.file, s.reason) for s in broken.skipped] == [(name, "the rewrite would not parse")]


async def test_files_with_parse_errors_are_rewritten_on_request(ws: Path) -> None:
    (ws / "a.py").write_text("def f(:\n    pass\nprint(1)\n")
    store = PendingActionStore()
    skipped = await edit(ws, store, ops=[op("print($A)", "log($A)")])
    assert "a.py (parse errors)" in skipped.text and not store.has_pending
    await edit(ws, store, ops=[op("print($A)", "log($A)")], include_parse_errors=True)
    await resolve(store)
    assert (ws / "a.py").read_text() == "def f(:\n    pass\nlog(1)\n"


async def test_statements_for_a_statement_are_kept_but_not_inside_an_expression(ws: Path) -> None:
    (ws / "a.py").write_text("def f(x):\n    print(x)\n")
    (ws / "b.py").write_text("y = [print(x)]\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("print($A)", "log($A)\nflush()")])
    top = store.peek()
    assert top is not None and top.preview.paths == ["a.py"]
    assert "whose rewrite would not parse" in result.text and "b.py (line " in result.text
    await resolve(store)
    assert (ws / "a.py").read_text() == "def f(x):\n    log(x)\n    flush()\n"


async def test_a_search_in_a_lang_with_no_file_in_scope_says_so(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    result = await grep(ws, pat=["print($A)"], lang="javascript")
    assert result.content[0].text.endswith(
        "\nNo javascript file was in scope, so nothing was searched; the scope holds 1 python "
        "file: leave `lang` out to read each file in the language of its extension."
    )
    assert (await grep(ws, pat=["log($A)"], lang="python")).content[0].text == (
        "No matches for `log($A)` in 1 file."
    )


async def test_a_call_pattern_that_renames_nothing_names_the_bare_name_rename(ws: Path) -> None:
    (ws / "a.py").write_text("import m\nm.old(1)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("old($$$A)", "new($$$A)")])
    assert result.text == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "`old($$$A)` matches only calls written `old(...)`, not `module.old(...)` or "
        "`obj.old(...)`; to rename it everywhere (definition, calls and imports), call ast_edit "
        'again with ops [{"pat": "old", "out": "new"}], as this call:\n'
        '```json\n{"name": "ast_edit", "arguments": {"ops": [{"pat": "old", "out": "new"}]}}\n```'
    )
    assert store.count == 0


async def test_a_small_model_copying_the_bare_name_note_has_its_call_run(ws: Path) -> None:
    # Qwen2.5 1.5B answered a call-pattern rename that matched nothing by copying the
    # tool result as its final answer; on a --base-url server the fenced call in that copy
    # is read as a call, so the bare-name rename is previewed instead of the run ending.
    (ws / "a.py").write_text("def ordinalize(n):\n    return n\n")
    (ws / "b.py").write_text("import a\na.ordinalize(1)\n")
    store = PendingActionStore()
    asked = {
        "lang": "python",
        "path": ".",
        "check": True,
        "ops": [op("ordinalize($$$A)", "o($$$A)")],
    }
    result = await edit(ws, store, **asked)
    assert store.count == 0
    calls, left = text_tool_calls(result.text, ["ast_edit", "resolve"])
    (call,) = calls
    assert call.name == "ast_edit" and call.invalid_arguments is None
    assert call.arguments == {**asked, "ops": [op("ordinalize", "o")]}
    assert left.startswith(
        "No replacements made\nNothing was changed, and nothing is pending.\n"
        "`ordinalize($$$A)` matches only calls"
    )
    await edit(ws, store, **call.arguments)
    await resolve(store)
    assert (ws / "a.py").read_text() == "def o(n):\n    return n\n"


async def test_for_a_small_model_a_call_pattern_matching_no_call_previews_the_bare_rename(
    ws: Path,
) -> None:
    # Qwen2.5 1.5B, asked to rename `singularize` everywhere, wrote the op
    # singularize($$$A) -> to_singular($$$A); the project only calls it as
    # inflection.singularize(...), so nothing matched and the model ended its run
    # by repeating "No replacements made".
    (ws / "a.py").write_text("def old(n):\n    return n\n")
    (ws / "b.py").write_text("import a\nfrom a import old\na.old(1)\n")
    store = PendingActionStore()
    asked = {"lang": "python", "check": True, "ops": [op("old($$$A)", "new($$$A)")]}
    result = await small_model_edit(ws, store, **asked)
    assert store.count == 1
    assert (
        "No call written `old(...)` matched, so this preview renames `old` to `new` "
        "everywhere instead: the definition, every call (`module.name(...)` and "
        "`obj.name(...)` too) and imports."
    ) in result.text.split("\n")
    assert result.details.arguments == {**asked, "ops": [op("old", "new")]} | {
        key: value for key, value in result.details.arguments.items() if key not in asked
    }
    assert (ws / "b.py").read_text() == "import a\nfrom a import old\na.old(1)\n"  # a preview
    await resolve(store)
    assert (ws / "a.py").read_text() == "def new(n):\n    return n\n"
    assert (ws / "b.py").read_text() == "import a\nfrom a import new\na.new(1)\n"


async def test_a_widened_rename_previewed_again_is_still_the_bare_name_rename(ws: Path) -> None:
    (ws / "a.py").write_text("def old(n):\n    return n\n")
    (ws / "b.py").write_text("import a\na.old(1)\n")
    store = PendingActionStore()
    await small_model_edit(ws, store, ops=[op("old($$$A)", "new($$$A)")])
    (ws / "b.py").write_text("import a\na.old(1)\na.old(2)\n")  # changed behind the preview
    action = store.peek()
    assert action is not None and action.supports.rebuild
    rebuilt = await action.effect.rebuild()
    assert rebuilt is not None
    fresh, text = rebuilt.action, rebuilt.text
    assert [(c.file, c.line) for c in fresh.preview.changes] == [
        ("a.py", 1),
        ("b.py", 2),
        ("b.py", 3),
    ]
    assert "c3" in text


async def test_for_a_small_model_a_call_pattern_whose_name_is_used_nowhere_says_so(
    ws: Path,
) -> None:
    (ws / "a.py").write_text("import m\nm.other(1)\n")
    store = PendingActionStore()
    result = await small_model_edit(ws, store, ops=[op("old($$$A)", "new($$$A)")])
    assert result.text == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "No call written `old(...)` matched, and no use of `old` either in the files "
        "searched: check the name, and `path` and `lang`."
    )
    assert store.count == 0


async def test_a_call_pattern_without_a_new_name_keeps_the_bare_call_note(ws: Path) -> None:
    (ws / "a.py").write_text("import m\nm.old(1)\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("old($$$A)", "log($$$A, 2)")])
    assert result.text == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "`old($$$A)` matches only calls written `old(...)`, not `module.old(...)` or "
        "`obj.old(...)`."
    )
    assert store.count == 0


async def test_a_call_rename_that_leaves_the_definition_says_where_before_and_after(
    ws: Path,
) -> None:
    # Qwen2.5 1.5B renamed `pluralize` with pluralize($$$A) -> to_plural($$$A): the one
    # bare call was renamed and applied, the definition and 13 other uses were not.
    (ws / "a.py").write_text("def old(n):\n    return n\n\n\nold(1)\n")
    (ws / "b.py").write_text("import a\na.old(2)\n")
    store = PendingActionStore()
    asked = {"lang": "python", "ops": [op("old($$$A)", "new($$$A)")]}
    result = await edit(ws, store, **asked)
    assert [(c.file, c.line) for c in result.details.preview.changes] == [("a.py", 5)]
    assert (
        "This renames only calls written with the bare name; 2 other uses of `old` stay as "
        "they are, at a.py:1 (definition), b.py:2. To rename everywhere (definition, calls "
        'and imports), discard this preview and call ast_edit with ops [{"pat": "old", '
        '"out": "new"}].'
    ) in result.text.split("\n")
    applied = await resolve(store)
    assert applied.text == (
        "Applied 1 replacement in 1 file: a.py.\n"
        "Not renamed: 2 other uses of `old`, at a.py:1 (definition), b.py:2. To rename them "
        'too, call ast_edit with ops [{"pat": "old", "out": "new"}], as this call:\n'
        '```json\n{"name": "ast_edit", "arguments": {"lang": "python", "ops": '
        '[{"pat": "old", "out": "new"}]}}\n```'
    )
    # A small model that copies that note as its answer has the call run (--base-url).
    calls, _ = text_tool_calls(applied.text, ["ast_edit", "resolve"])
    (call,) = calls
    assert call.arguments == {"lang": "python", "ops": [op("old", "new")]}
    await edit(ws, store, **call.arguments)
    await resolve(store)
    assert (ws / "a.py").read_text() == "def new(n):\n    return n\n\n\nnew(1)\n"
    assert (ws / "b.py").read_text() == "import a\na.new(2)\n"


async def test_a_call_rename_that_covers_every_use_adds_no_note(ws: Path) -> None:
    (ws / "a.py").write_text("import m\nm.f(old(1))\n")
    store = PendingActionStore()
    result = await edit(ws, store, ops=[op("old($$$A)", "new($$$A)")])
    assert "This renames only calls" not in result.text
    assert (await resolve(store)).text == "Applied 1 replacement in 1 file: a.py."
