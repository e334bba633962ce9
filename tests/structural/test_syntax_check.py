"""A big file's rewritten text is parsed again before it is offered.

A rewrite that would not parse is left out, and said so; the JSON lines of one that
parses are the CLI's.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from sgcli import ast_grep_binary

from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.edit.pattern_records import PatternRecords
from xcsh.structural.edit.scan_edit import BROKEN_REASON
from xcsh.structural.edit.syntax_check import new_error

XCSH = [sys.executable, "-m", "xcsh"]

# non-ASCII text, a nested match (listed, never written) and a capture over lines
BLOCK = (
    "# café ☕\n"
    "def f():\n"
    "    x = compute(a, 'é', c)  # ünïcode\n"
    "    y = compute(compute(1), 2)\n"
    "    z = compute(\n"
    "        first,\n"
    "    )\n"
)
BIG = BLOCK * ((5 << 20) // 4 // len(BLOCK.encode()))
"""A text of 1.25 MiB."""


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, check=False, env={**os.environ, "NO_COLOR": "1"}
    )


def test_a_big_json_preview_is_the_clis_bytes(tmp_path: Path) -> None:
    """``ast-edit --json --dry-run`` prints the bytes ``ast-grep run -r --json=stream`` does."""
    (tmp_path / "big.py").write_text(BIG, encoding="utf-8")
    both = ["-p", "compute($$$A)", "-r", "calc($$$A)", "-l", "python"]
    theirs = _run([ast_grep_binary(), "run", *both, "--json=stream", "big.py"], tmp_path)
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run", "big.py"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_a_big_rewrite_that_would_not_parse_is_left_out_and_said_so(tmp_path: Path) -> None:
    """The file is left out with where its first new error is, unless kept on request."""
    (tmp_path / "big.py").write_text(BIG, encoding="utf-8")
    both = ["-p", "compute($$$A)", "-r", "calc($$$A", "-l", "python"]
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run", "big.py"], tmp_path)
    assert ours.stdout == b""
    assert b"would not parse" in ours.stderr and b"big.py (line " in ours.stderr
    ops = (EditOp(pat="compute($$$A)", out="calc($$$A"),)
    where = ScopeSpec(root=tmp_path, lang="python")
    preview = preview_edit(EditSpec(ops=ops), where, captures=True)
    assert preview.files == []
    [skipped] = preview.skipped
    assert skipped.reason == BROKEN_REASON
    [kept] = preview_edit(EditSpec(ops=ops, include_broken=True), where, captures=True).files
    assert skipped.error == kept.new_error == new_error(None, kept.new_bytes, "python") != ""


def test_the_lines_a_worker_hands_on_are_the_lines(tmp_path: Path) -> None:
    """A file's records pickled (as a scan worker sends them back) render the same lines."""
    (tmp_path / "m.py").write_text(BLOCK * 3, encoding="utf-8")
    [edit] = preview_edit(
        EditSpec(ops=(EditOp(pat="compute($$$A)", out="calc($$$A)"),)),
        ScopeSpec(root=tmp_path, lang="python"),
        captures=True,
    ).files
    records = edit.records
    assert isinstance(records, PatternRecords)
    changes = edit.listed()
    expected = [edit.record(change) for change in changes]
    copy = pickle.loads(pickle.dumps(records))  # as a scan worker sends it back
    assert [copy.render(change) for change in changes] == expected
    assert [edit.record(change) for change in changes] == expected
