"""Previews of many changes: the ``--json`` lines are the CLI's bytes, the model reads a
bounded text that still names every change's id range, and every change stays in the
typed preview and is applied."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sgcli import ast_grep_binary

from xcsh.core import MAX_RESULT_CHARS
from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.tools.edit_action import EditProducer, push_edit_preview

XCSH = [sys.executable, "-m", "xcsh"]

# non-ASCII text before and inside matches, a multi-line match, a nested match (the
# inner call is listed, never written) and a capture that spans lines
SOURCE = (
    "# café ☕\n"
    "def f():\n"
    "    x = compute(a, 'é', c)  # ünïcode\n"
    "    y = compute(compute(1), 2)\n"
    "    z = compute(\n"
    "        first,\n"
    "        second,\n"
    "    )\n"
    "\tw = compute()\n"
)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, check=False, env={**os.environ, "NO_COLOR": "1"}
    )


def test_edit_json_is_byte_identical_to_the_cli(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE * 3, encoding="utf-8")
    pattern, rewrite = "compute($$$A)", "calc($$$A)"
    both = ["-p", pattern, "-r", rewrite, "-l", "python"]
    theirs = _run([ast_grep_binary(), "run", *both, "--json=stream", "m.py"], tmp_path)
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run", "m.py"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert theirs.stdout.count(b"\n") == 15  # 12 replacements and 3 nested matches
    assert ours.stdout == theirs.stdout


@pytest.mark.parametrize(
    ("pattern", "rewrite"),
    [
        ("print($A)", "log($A)"),  # a single capture
        ("compute($A, $$$REST)", "calc($A, $$$REST)"),  # both kinds, ``$$$REST`` empty once
        ("compute($$$A)", "calc(\n    $$$A\n)"),  # a template of several lines, re-indented
    ],
)
def test_edit_json_of_captures_and_templates_is_the_clis(
    tmp_path: Path, pattern: str, rewrite: str
) -> None:
    source = (
        "# é\n"
        "def f():\n"
        "    x = compute(a, 'é', c)\n"
        "    y = compute(compute(1), 2)\n"
        "    z = compute(\n"
        "        first,\n"
        "    )\n"
        "    print('ü')\n"
        "    w = compute()\n"
    )
    (tmp_path / "m.py").write_text(source * 2, encoding="utf-8")
    both = ["-p", pattern, "-r", rewrite, "-l", "python"]
    theirs = _run([ast_grep_binary(), "run", *both, "--json=stream", "m.py"], tmp_path)
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run", "m.py"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert theirs.stdout.count(b"\n") >= 1
    assert ours.stdout == theirs.stdout


@pytest.mark.parametrize(
    ("pattern", "rewrite"),
    [("compute($$$A)", "calc($$$A)"), ("compute($A, $$$REST)", "calc($A, $$$REST)")],
)
def test_edit_json_from_worker_processes_is_the_clis(
    tmp_path: Path, pattern: str, rewrite: str
) -> None:
    # 20 files of 60 KB: the scan runs on worker processes, whose edits come back
    # without the text (each line is cut from the file read again)
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text(SOURCE * 400, encoding="utf-8")
    both = ["-p", pattern, "-r", rewrite, "-l", "python"]
    theirs = _run([ast_grep_binary(), "run", *both, "--json=stream"], tmp_path)
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert theirs.stdout.count(b"\n") >= 20 * 400 * 3
    # the CLI walks the files in parallel: compare line sets in file order
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.stdout.splitlines())
    assert (
        ours.stdout.splitlines()[:3]
        == [line for line in theirs.stdout.splitlines() if b'"file":"m00.py"' in line][:3]
    )


def _many(tmp_path: Path, count: int) -> Path:
    lines = "".join(f"    v{i} = compute(a{i}, b)\n" for i in range(count))
    (tmp_path / "big.py").write_text("def f():\n" + lines)
    return tmp_path / "big.py"


def test_the_model_reads_a_bounded_text_of_a_big_preview_and_all_of_it_applies(
    tmp_path: Path,
) -> None:
    count = 3_000
    big = _many(tmp_path, count)
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="compute($$$A)", out="calc($$$A)"),)), ScopeSpec(root=tmp_path)
    )
    store = PendingActionStore()
    result = push_edit_preview(EditProducer(store=store), preview, {})
    text = result.text
    assert len(text) < MAX_RESULT_CHARS
    assert "  c1 -2:10 compute(a0, b)" in text
    listed = sum(1 for line in text.split("\n") if line.startswith("  c") and " -" in line)
    assert 0 < listed < count
    assert (
        f"... and {count - listed} more changes (c{listed + 1} to c{count}) not listed here: "
        "the diff shows them all." in text
    )
    assert f"Total: {count} replacements in 1 file." in text
    action = store.peek()
    assert action is not None
    assert len(action.preview.changes) == count
    assert action.preview.diff.count("\n+    v") == count
    # an id the text did not list is still a change resolve can apply on its own
    resolve = create_resolve_tool(store)
    done = asyncio.run(
        resolve.execute("r1", {"action": "apply", "reason": "last one", "only": [f"c{count}"]})
    )
    assert not done.is_error, done.text
    after = big.read_text()
    assert after.count("calc(") == 1
    assert f"v{count - 1} = calc(a{count - 1}, b)" in after


def test_a_json_preview_applied_with_yes_writes_every_change(tmp_path: Path) -> None:
    big = _many(tmp_path, 500)
    edit = ["ast-edit", "-p", "compute($$$A)", "-r", "calc($$$A)", "--json", "--yes"]
    done = _run([*XCSH, *edit], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") == 500
    assert big.read_text().count("calc(") == 500
    assert "compute(" not in big.read_text()
