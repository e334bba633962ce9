"""A mistyped flag gets the closest flag of that command as a suggestion, in every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_xcsh


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["ast-grep", "-p", "print($A)", "--limt", "3"], "--limit"),
        (["ast-edit", "-p", "f($A)", "-r", "g($A)", "--jsn"], "--json"),
        (["scan", "--jsn"], "--json"),
        (["undo", "--lst"], "--list"),
        (["--modle", "x", "-p", "hi"], "--mode or --model"),
    ],
)
def test_a_mistyped_flag_is_answered_with_the_close_one(
    tmp_path: Path, xcsh_home: Path, args: list[str], wanted: str
) -> None:
    run = run_xcsh(args, cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 2
    typed = next(a for a in args if a.startswith("--"))
    assert f"unrecognized arguments: {typed}" in run.stderr
    assert f"(did you mean {wanted}?)" in run.stderr, run.stderr


def test_an_unknown_flag_far_from_any_gets_no_guess(tmp_path: Path, xcsh_home: Path) -> None:
    run = run_xcsh(["ast-grep", "-p", "x", "--zzzzzz"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 2 and "unrecognized arguments: --zzzzzz" in run.stderr
    assert "did you mean" not in run.stderr


@pytest.mark.parametrize(
    ("typed", "wanted"), [("ast-gerp", "ast-grep"), ("scna", "scan"), ("udno", "undo")]
)
def test_a_mistyped_command_is_answered_with_the_close_one(
    tmp_path: Path, xcsh_home: Path, typed: str, wanted: str
) -> None:
    run = run_xcsh([typed, "-p", "print($A)"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 2
    assert f"unrecognized arguments: {typed} (did you mean {wanted}?)" in run.stderr


def test_a_word_far_from_any_command_gets_no_guess(tmp_path: Path, xcsh_home: Path) -> None:
    run = run_xcsh(["refactor", "-p", "hi"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 2 and "unrecognized arguments: refactor" in run.stderr
    assert "did you mean" not in run.stderr
