"""``xcsh ast-edit`` as a real subprocess: several PATHs as one edit, Ctrl-C at the
prompt, the whole diff, ``--json`` on a terminal, standard output closed early,
and what a failed apply tells the user.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from clirun import CTRL_C, CTRL_D, run_on_pty, run_xcsh, run_xcsh_to

PATTERN, REWRITE = "foo($A)", "bar($A)"
ASK = "[d]iscard"


@pytest.fixture
def two(tmp_path: Path) -> Path:
    root = tmp_path / "two"
    root.mkdir()
    (root / "a.py").write_text("x = foo(1)\n", encoding="utf-8")
    (root / "b.py").write_text("y = foo(2)\n", encoding="utf-8")
    return root


def _texts(root: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(root.glob("*.py"))}


# several PATHs: one preview, one question, all or nothing, one undo


def test_several_paths_are_one_preview_and_one_question(two: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "a.py", "b.py"],
        cwd=two,
        answers=[(ASK, "a"), ("Reason", "rename")],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert run.output.count("Preview: ") == 1
    assert "Preview: AST Edit: 2 replacements in 2 files" in run.output
    assert run.output.count("Apply this edit?") == 1
    assert run.output.count("Accept: ") == 1
    assert _texts(two) == {"a.py": "x = bar(1)\n", "b.py": "y = bar(2)\n"}


def test_a_stale_file_in_any_path_writes_nothing_and_says_how_to_go_on(two: Path) -> None:
    def change_a() -> None:
        (two / "a.py").write_text("x = foo(9)\n", encoding="utf-8")

    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "a.py", "b.py"],
        cwd=two,
        answers=[(ASK, "a"), ("Reason", "go")],
        before_answer=change_a,
        NO_COLOR="1",
    )
    assert run.returncode == 3, run.output
    assert _texts(two) == {"a.py": "x = foo(9)\n", "b.py": "y = foo(2)\n"}
    assert "changed since the preview: a.py" in run.output
    assert run.output.lower().count("nothing was written") == 1, run.output  # said once
    assert "Run the same xcsh ast-edit command again" in run.output
    assert "resolve" not in run.output
    assert "Traceback" not in run.output


@pytest.mark.parametrize(
    "paths", [["a.py", "."], [".", "a.py", "a.py"], ["./a.py", "a.py", "b.py"]]
)
def test_overlapping_paths_preview_each_file_once(two: Path, paths: list[str]) -> None:
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", *paths, cwd=two)
    assert done.returncode == 0, done.stderr
    assert "AST Edit: 2 replacements in 2 files" in done.stdout
    assert done.stdout.count("+x = bar(1)") == 1
    assert _texts(two) == {"a.py": "x = bar(1)\n", "b.py": "y = bar(2)\n"}


def test_a_symlinked_folder_and_its_target_preview_each_file_once(tmp_path: Path) -> None:
    root = tmp_path / "linked"
    (root / "src").mkdir(parents=True)
    (root / "src" / "m.py").write_text("z = foo(3)\n", encoding="utf-8")
    (root / "src2").symlink_to("src", target_is_directory=True)
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", "src", "src2", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "AST Edit: 1 replacement in 1 file" in done.stdout
    assert (root / "src" / "m.py").read_text(encoding="utf-8") == "z = bar(3)\n"


def test_limit_counts_each_file_once_across_overlapping_paths(two: Path) -> None:
    done = run_xcsh(
        "ast-edit", "-p", PATTERN, "-r", REWRITE, "--limit", "2", "--dry-run", "a.py", ".", cwd=two
    )
    assert done.returncode == 0, done.stderr
    assert "AST Edit: 2 replacements in 2 files" in done.stdout


def test_one_undo_restores_every_path(two: Path) -> None:
    before = _texts(two)
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", "a.py", "b.py", cwd=two)
    assert done.returncode == 0, done.stderr
    assert _texts(two) != before
    undone = run_xcsh("undo", cwd=two)
    assert undone.returncode == 0, undone.stderr
    assert _texts(two) == before
    assert run_xcsh("undo", cwd=two).returncode == 1


# Ctrl-C and Ctrl-D at the prompt


@pytest.mark.parametrize(
    "answers",
    [[(ASK, CTRL_C)], [(ASK, "a"), ("Reason", CTRL_C)]],
    ids=["at-apply", "at-reason"],
)
def test_ctrl_c_at_the_prompt_discards_and_exits_130(
    two: Path, answers: list[tuple[str, str]]
) -> None:
    before = _texts(two)
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "a.py", "b.py"],
        cwd=two,
        answers=answers,
        NO_COLOR="1",
    )
    assert run.returncode == 130, run.output
    assert _texts(two) == before
    assert "Discard: 2 replacements in 2 files" in run.output
    assert "interrupted at the prompt" in run.output
    assert "Traceback" not in run.output
    assert "Accept" not in run.output
    assert run_xcsh("undo", cwd=two).returncode == 1


def test_ctrl_d_at_the_prompt_discards(two: Path) -> None:
    before = _texts(two)
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "a.py"],
        cwd=two,
        answers=[(ASK, CTRL_D)],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert "Discard: 1 replacement in 1 file" in run.output
    assert _texts(two) == before


# the whole diff


@pytest.fixture
def long(tmp_path: Path) -> Path:
    root = tmp_path / "long"
    root.mkdir()
    body = "".join(f"v{i} = foo({i})\n" for i in range(300))
    body += f"w = foo({'9' * 700})\n"
    (root / "many.py").write_text(body, encoding="utf-8")
    return root


def _whole_diff_shown(output: str) -> None:
    assert "not shown" not in output
    assert "more characters" not in output
    for i in (0, 150, 299):
        assert f"+v{i} = bar({i})" in output
    assert f"+w = bar({'9' * 700})" in output.replace("\r\n", "\n").replace("\n", "")


def test_dry_run_through_a_pipe_shows_the_whole_diff(long: Path) -> None:
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--dry-run", cwd=long)
    assert done.returncode == 0, done.stderr
    _whole_diff_shown(done.stdout)


def test_the_prompt_follows_the_whole_diff(long: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE],
        cwd=long,
        answers=[(ASK, "d"), ("Reason", "")],
        NO_COLOR="1",
        COLUMNS="2000",
    )
    assert run.returncode == 0, run.output
    _whole_diff_shown(run.output)


# --json on a terminal


def test_json_on_a_terminal_says_it_never_asks(two: Path) -> None:
    before = _texts(two)
    run = run_on_pty(["ast-edit", "-p", PATTERN, "-r", REWRITE, "--json"], cwd=two, NO_COLOR="1")
    assert run.returncode == 0, run.output
    assert "not a terminal" not in run.output
    assert "--json never asks" in run.output
    assert '"replacement":"bar(1)"' in run.output
    assert _texts(two) == before


# standard output closed early


def _with_closed_stdout(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run xcsh with a stdout pipe whose reader is already gone (as after ``| head``)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return run_xcsh_to(write_end, *args, cwd=cwd)
    finally:
        os.close(write_end)


def test_yes_with_stdout_closed_applies_reports_on_stderr_and_exits_0(two: Path) -> None:
    done = _with_closed_stdout("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", cwd=two)
    assert done.returncode == 0, done.stderr
    assert _texts(two) == {"a.py": "x = bar(1)\n", "b.py": "y = bar(2)\n"}
    assert "Accept: 2 replacements in 2 files" in done.stderr
    assert "xcsh undo" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_preview_with_stdout_closed_changes_nothing_and_exits_141(two: Path) -> None:
    before = _texts(two)
    done = _with_closed_stdout("ast-edit", "-p", PATTERN, "-r", REWRITE, cwd=two)
    assert done.returncode == 141, done.stderr
    assert _texts(two) == before
    assert "Traceback" not in done.stderr


# -i: change by change, written at the end


@pytest.fixture
def three(tmp_path: Path) -> Path:
    root = tmp_path / "three"
    root.mkdir()
    (root / "a.py").write_text("x = foo(1)\ny = foo(2)\n", encoding="utf-8")
    (root / "b.py").write_text("z = foo(3)\n", encoding="utf-8")
    return root


def test_interactive_writes_the_kept_changes_at_the_end(three: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "-i"],
        cwd=three,
        answers=[
            ("c1 (1/3) a.py:1:5", "sure"),  # not a key: the keys are listed, asked again
            ("y - apply this change", "y"),
            ("c2 (2/3) a.py:2:5", "n"),
            ("c3 (3/3) b.py:1:5", "y"),
            ("Reason", "two of three"),
        ],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert _texts(three) == {"a.py": "x = bar(1)\ny = foo(2)\n", "b.py": "z = bar(3)\n"}
    assert (
        "Applied 2 of 3 changes of p1 (AST Edit: 3 replacements in 2 files): c1 in a.py; c3 "
        "in b.py. Discarded: c2 in a.py." in run.output
    )


def test_interactive_ctrl_c_writes_nothing(three: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE, "-i"],
        cwd=three,
        answers=[("c1 (1/3)", "y"), ("c2 (2/3)", CTRL_C)],
        NO_COLOR="1",
    )
    assert run.returncode == 130, run.output
    assert _texts(three) == {"a.py": "x = foo(1)\ny = foo(2)\n", "b.py": "z = foo(3)\n"}


def test_interactive_without_a_terminal_changes_nothing(three: Path) -> None:
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "-i", cwd=three)
    assert done.returncode == 2
    assert "-i asks about each change and needs a terminal: nothing changed." in done.stderr
    assert _texts(three)["b.py"] == "z = foo(3)\n"
