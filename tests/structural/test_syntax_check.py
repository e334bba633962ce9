"""A big file's rewritten text is parsed on the other processor while its JSON lines are
written: the preview says the same as a check made in the calling process (a rewrite
that would not parse is left out, and said so), and the lines are still the CLI's."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from sgcli import ast_grep_binary

from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.edit import syntax_check
from xcsh.structural.edit.pattern_edit import PatternRecords
from xcsh.structural.edit.scan_edit import BROKEN_REASON
from xcsh.structural.edit.syntax_check import BACKGROUND_MIN_BYTES, new_error, start_check

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
BIG = BLOCK * (BACKGROUND_MIN_BYTES * 5 // 4 // len(BLOCK.encode()))

two_processors = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2 or not hasattr(os, "fork"),
    reason="the check runs beside the caller only with two processors and fork",
)


@pytest.fixture
def spare(monkeypatch: pytest.MonkeyPatch) -> None:
    """A processor to spare, whatever the machine's load while the tests run."""
    monkeypatch.setattr(syntax_check, "_spare_processor", lambda: True)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, check=False, env={**os.environ, "NO_COLOR": "1"}
    )


def test_a_big_json_preview_is_the_clis_bytes(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text(BIG, encoding="utf-8")
    both = ["-p", "compute($$$A)", "-r", "calc($$$A)", "-l", "python"]
    theirs = _run([ast_grep_binary(), "run", *both, "--json=stream", "big.py"], tmp_path)
    ours = _run([*XCSH, "ast-edit", *both, "--json", "--dry-run", "big.py"], tmp_path)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout


def test_a_big_rewrite_that_would_not_parse_is_left_out_and_said_so(
    tmp_path: Path, spare: None
) -> None:
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


@two_processors
@pytest.mark.parametrize("broken", [False, True])
def test_the_answer_from_the_other_process_is_the_one_made_here(spare: None, broken: bool) -> None:
    new = (BIG.replace("compute(", "calc(") + ("def (\n" if broken else "")).encode()
    check = start_check(new, "python", None, background=True)
    assert check.background
    assert check.verdict() == new_error(None, new, "python")
    assert (check.verdict() != "") == broken


@two_processors
def test_a_check_process_that_dies_is_not_trusted(spare: None) -> None:
    new = (BIG + "def (\n").encode()
    check = start_check(new, "python", None, background=True)
    os.kill(check.pid, signal.SIGKILL)
    assert check.verdict() == new_error(None, new, "python") != ""
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # reaped: nothing left behind


def test_a_small_text_or_a_check_not_asked_to_wait_is_made_here(spare: None) -> None:
    assert not start_check(b"x = 1\n", "python", None, background=True).background
    assert not start_check(BIG.encode(), "python", None, background=False).background


def test_on_a_busy_machine_the_check_is_made_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    check = start_check(BIG.encode(), "python", None, background=True)
    assert not check.background
    assert check.verdict() == ""


def test_lines_written_ahead_are_the_lines_and_a_worker_hands_them_on(tmp_path: Path) -> None:
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
    records.prerender(changes)
    assert records.spool is not None
    copy = pickle.loads(pickle.dumps(records))  # as a scan worker sends it back
    assert [copy.render(change) for change in changes] == expected
    assert [edit.record(change) for change in changes] == expected
    assert [edit.record(change) for change in changes] == expected  # handed out once
