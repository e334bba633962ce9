"""Input built to hurt: patterns nested thousands of levels deep, files with tens of
thousands of matches, NUL in a path, and FIFOs where files were. Each ends in a clear
error or a bounded result, never a hang, a crash or a traceback."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xcsh import AgentToolResult, PendingActionStore, ToolError
from xcsh.structural import EditOp, EditSpec, MatchSpec, ScopeSpec, preview_edit, search
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.matches.matching import LanguageQuery, Query
from xcsh.structural.pattern.checks import MAX_PATTERN_CHARS, MAX_PATTERN_DEPTH
from xcsh.structural.pattern.compile import compile_pattern
from xcsh.structural.scan.per_file import scan_file
from xcsh.tools import (
    create_ast_edit_tool,
    create_ast_grep_tool,
    create_edit_tool,
    create_read_tool,
    create_resolve_tool,
    create_write_tool,
)

XCSH = [sys.executable, "-m", "xcsh"]


def nested(terms: int) -> str:
    """``print(1+1+...+1)``: a left-leaning sum ``terms`` deep."""
    return "print(" + "+".join(["1"] * terms) + ")"


# Patterns.


@pytest.mark.parametrize("terms", [20_000, 5_000])
def test_a_pattern_too_long_is_refused_before_ast_grep_sees_it(ws: Path, terms: int) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError) as info:
        search(MatchSpec(patterns=(nested(terms),)), ScopeSpec(root=ws))
    assert f"The pattern is {len(nested(terms)):,} characters long; the limit is" in str(info.value)
    assert len(nested(terms)) > MAX_PATTERN_CHARS


@pytest.mark.parametrize("terms", [1_000, 3_000])
def test_a_pattern_nested_too_deep_is_refused_for_search_and_edit(ws: Path, terms: int) -> None:
    (ws / "a.py").write_text("print(1)\n")
    expected = f"The pattern is nested more than {MAX_PATTERN_DEPTH} levels deep."
    with pytest.raises(ToolError, match=expected):
        search(MatchSpec(patterns=(nested(terms),)), ScopeSpec(root=ws))
    with pytest.raises(ToolError, match=expected):
        preview_edit(EditSpec(ops=(EditOp(pat=nested(terms), out="x"),)), ScopeSpec(root=ws))


def test_a_deep_pattern_through_the_tool_is_an_error_result(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    tool = create_ast_grep_tool(str(ws))
    with pytest.raises(ToolError, match="nested more than"):
        asyncio.run(tool.execute("g", {"pat": [nested(2_000)]}))


def test_a_deep_pattern_inside_a_yaml_rule_is_refused_naming_the_rule(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    tool = create_ast_grep_tool(str(ws))
    rule = {"id": "deep", "language": "python", "rule": {"any": [{"pattern": nested(2_000)}]}}
    with pytest.raises(ToolError) as info:
        asyncio.run(tool.execute("g", {"rule": rule}))
    assert "rule: " in str(info.value)
    assert f"nested more than {MAX_PATTERN_DEPTH} levels deep" in str(info.value)


def test_an_ordinary_deep_pattern_still_works(ws: Path) -> None:
    (ws / "a.py").write_text(nested(100) + "\n")
    assert search(MatchSpec(patterns=(nested(100),)), ScopeSpec(root=ws)).total == 1


# --limit bounds the work.


def test_limit_builds_few_matches_but_counts_them_all(ws: Path) -> None:
    (ws / "calls.py").write_text("".join(f"print({i});" for i in range(50_000)) + "\n")
    result = search(
        MatchSpec(patterns=("print($A)",)), ScopeSpec(root=ws), limit=5, offset=3, workers=1
    )
    assert result.total == 50_000
    assert [m.single["A"].text for m in result.matches] == ["3", "4", "5", "6", "7"]


def _limit_memory() -> None:
    cap = 1024 * 1024 * 1024  # 1 GiB of address space: the old scan needed 3.6 GB here
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


@pytest.mark.parametrize(
    ("source", "pattern"),
    [
        ("".join(f"print({i});" for i in range(50_000)) + "\n", "print($A)"),  # 688 KB, one line
        ("x = " + "+".join(["1"] * 30_000) + "\n", "$A + $B"),  # 60 KB, 30,000 nested matches
    ],
    ids=["50k-calls-one-line", "30k-term-sum"],
)
def test_cli_limit_returns_promptly_in_bounded_memory(
    tmp_path: Path, xcsh_home: Path, source: str, pattern: str
) -> None:
    (tmp_path / "big.py").write_text(source)
    done = subprocess.run(
        [*XCSH, "ast-grep", "-p", pattern, "--limit", "5", "--json"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "XCSH_HOME": str(xcsh_home), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_memory,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "stopped after 5 matches (--limit 5); more remain" in done.stderr


# Paths and tools.


def test_nul_in_a_path_is_a_tool_error(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    with pytest.raises(ToolError, match="contains a NUL character"):
        search(MatchSpec(patterns=("print($A)",)), ScopeSpec(root=ws, path="a\0.py"))
    read = create_read_tool(str(ws))
    with pytest.raises(ToolError, match="contains a NUL character"):
        asyncio.run(read.execute("r", {"path": "a.py\0"}))


def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def run_with_deadline(coro: Any) -> Any:
    """Run ``coro``; a call that blocks on a FIFO fails the test instead of hanging it."""

    async def bounded() -> Any:
        return await asyncio.wait_for(coro, 30)

    return asyncio.run(bounded())


@pytest.mark.parametrize("via_symlink", [False, True], ids=["fifo", "symlink-to-fifo"])
def test_resolve_of_a_preview_whose_file_became_a_fifo_errors_at_once(
    ws: Path, via_symlink: bool
) -> None:
    target = ws / "a.py"
    target.write_text("print(1)\n")
    store = PendingActionStore()
    preview = run_with_deadline(
        create_ast_edit_tool(str(ws), store).execute(
            "e", {"ops": [{"pat": "print($A)", "out": "log($A)"}]}
        )
    )
    assert not preview.is_error and store.count == 1
    if via_symlink:
        _fifo(ws / "pipe")
        target.unlink()
        target.symlink_to(ws / "pipe")
    else:
        _fifo(target)
    result = run_with_deadline(
        create_resolve_tool(store).execute("r", {"action": "apply", "reason": "go"})
    )
    text = "".join(getattr(block, "text", "") for block in result.content)
    assert result.is_error and "changed since" in text and "a.py" in text, text
    assert store.count == 1  # still pending: nothing approved is lost


@pytest.mark.parametrize("tool", ["edit", "write", "read"])
def test_coding_tools_refuse_a_fifo_instead_of_blocking(ws: Path, tool: str) -> None:
    _fifo(ws / "notes.txt")
    make = {"edit": create_edit_tool, "write": create_write_tool, "read": create_read_tool}[tool]
    args: dict[str, Any] = {"path": "notes.txt"}
    if tool == "edit":
        args |= {"old_text": "a", "new_text": "b"}
    elif tool == "write":
        args |= {"content": "hello\n"}
    with pytest.raises(ToolError, match="not a regular file"):
        run_with_deadline(make(str(ws)).execute("t", args))
    assert (ws / "notes.txt").is_fifo()


def test_a_fifo_in_the_scope_is_never_opened(ws: Path) -> None:
    (ws / "a.py").write_text("print(1)\n")
    _fifo(ws / "b.py")
    result: AgentToolResult = run_with_deadline(
        create_ast_grep_tool(str(ws)).execute("g", {"pat": ["print($A)"]})
    )
    text = "".join(getattr(block, "text", "") for block in result.content)
    assert "a.py:1:1" in text and "1 match in 1 file." in text
    # A file swapped for a FIFO between the walk and the read is skipped, not read.
    query = Query(languages={"python": _python_query("print($A)")})
    outcome = scan_file(query, ws / "b.py", "b.py", "python")
    assert outcome is not None and outcome.skipped is not None
    assert outcome.skipped.reason == "not a regular file"


def _python_query(pattern: str) -> LanguageQuery:
    compiled = compile_pattern(pattern, resolve_language("python"))
    return LanguageQuery(name="python", display="Python", patterns=(compiled,))
