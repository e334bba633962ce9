"""What ``xcsh ast-grep`` / ``ast-edit`` / ``scan`` say about paths and globs they cannot
search."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import run_xcsh


def test_a_missing_path_outside_the_folder_does_not_exist(tmp_path: Path, xcsh_home: Path) -> None:
    missing = str(tmp_path / "elsewhere" / "nothing.py")
    (tmp_path / "here").mkdir()
    for command in (["ast-grep", "-p", "print($A)"], ["ast-edit", "-p", "f($A)", "-r", "g($A)"]):
        run = run_xcsh([*command, missing], cwd=tmp_path / "here", home=xcsh_home)
        assert run.returncode == 2
        assert f"Path '{missing}' does not exist." in run.stderr
        assert "outside the workspace" not in run.stderr and "ask the user" not in run.stderr


def test_a_named_pipe_is_not_a_regular_file(tmp_path: Path, xcsh_home: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    run = run_xcsh(["ast-grep", "-p", "print($A)", "pipe.py"], cwd=tmp_path, home=xcsh_home)
    assert run.returncode == 2
    assert "'pipe.py' is not a regular file (a named pipe)" in run.stderr


def test_a_folder_it_cannot_read_is_reported(tmp_path: Path, xcsh_home: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.py").write_text("print(1)\n")
    (tmp_path / "b.py").write_text("print(2)\n")
    (tmp_path / "d").chmod(0)
    try:
        run = run_xcsh(
            ["ast-grep", "-p", "print($A)", "."], cwd=tmp_path, home=xcsh_home, no_override=True
        )
    finally:
        (tmp_path / "d").chmod(0o755)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "b.py:1:1:print(2)\n"
    assert "d/ (Permission denied)" in run.stderr


def test_named_pipes_in_place_of_ignore_rule_and_settings_files_never_hang(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # a repository (or a `bash` command) can leave a FIFO where xcsh reads its own files;
    # opening one to read waits for a writer that never comes
    ws = tmp_path / "ws"
    (ws / ".git" / "info").mkdir(parents=True)
    (ws / "a.py").write_text("print(1)\n")
    for name in (".gitignore", ".ignore", ".git/info/exclude", "rule.yml", "sgconfig.yml"):
        os.mkfifo(ws / name)
    os.mkfifo(xcsh_home / "settings.toml")
    found = run_xcsh(["ast-grep", "-p", "print($A)"], cwd=ws, home=xcsh_home)
    assert found.returncode == 0, found.stderr
    assert found.stdout == "a.py:1:1:print(1)\n"  # the pipes read as no ignore rules
    rule = run_xcsh(["ast-grep", "--rule", "rule.yml"], cwd=ws, home=xcsh_home)
    assert rule.returncode == 2
    assert "rule.yml: cannot read the rule file" in rule.stderr
    assert "not a regular file" in rule.stderr and "Traceback" not in rule.stderr
    scan = run_xcsh(["scan"], cwd=ws, home=xcsh_home)
    assert scan.returncode == 2 and "Traceback" not in scan.stderr
    assert "settings.toml is not a file" in scan.stderr
    (xcsh_home / "settings.toml").unlink()
    scan = run_xcsh(["scan"], cwd=ws, home=xcsh_home)
    assert scan.returncode == 2 and "Traceback" not in scan.stderr


BAD_GLOBS = {
    "[": "unclosed character class; missing ']'",
    "src/*.py[": "unclosed character class; missing ']'",
    "![!": "unclosed character class; missing ']'",
    "*.py\\": "it ends with a lone backslash",
}


def test_a_bad_glob_is_said_to_be_a_bad_glob(tmp_path: Path, xcsh_home: Path) -> None:
    # `--globs '['` used to say "No source file", and a lone backslash gave a traceback
    (tmp_path / "a.py").write_text("print(1)\n")
    commands = (
        ["ast-grep", "-p", "print($A)"],
        ["ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes"],
        ["scan", "--rule", "r.yml"],
    )
    (tmp_path / "r.yml").write_text("id: r\nlanguage: python\nrule: {pattern: print($A)}\n")
    for glob, why in BAD_GLOBS.items():
        for command in commands:
            run = run_xcsh([*command, "--globs", glob], cwd=tmp_path, home=xcsh_home)
            assert (run.returncode, run.stdout) == (2, ""), (command, run.stderr)
            assert run.stderr == f"xcsh: Bad glob in --globs: '{glob}' ({why}).\n", run.stderr
    assert (tmp_path / "a.py").read_text() == "print(1)\n"
    fine = run_xcsh(
        ["ast-grep", "-p", "print($A)", "--globs", "[ab].py"], cwd=tmp_path, home=xcsh_home
    )
    assert (fine.returncode, fine.stdout) == (0, "a.py:1:1:print(1)\n"), fine.stderr


def test_an_ignore_file_line_that_is_no_pattern_is_passed_over(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # as git passes it over: an ignore file never stops a search
    (tmp_path / ".gitignore").write_text("build\\\nskip.py\n")
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "skip.py").write_text("print(2)\n")
    run = run_xcsh(["ast-grep", "-p", "print($A)"], cwd=tmp_path, home=xcsh_home)
    assert (run.returncode, run.stdout) == (0, "a.py:1:1:print(1)\n"), run.stderr
