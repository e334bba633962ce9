"""``xcsh ast-edit`` as a real subprocess: preview, --dry-run, --yes, --json, the prompt.

The prompt is driven through a pseudo-terminal (``os.openpty``): no tmux and
no real terminal needed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run_ast_grep, run_on_pty, run_xcsh

APP = """import logging

log = logging.getLogger(__name__)


def main(argv):
    print("start", len(argv))
    for arg in argv:
        print(arg)
"""
UTIL = 'def f(x):\n    print(f"x={x}")\n'
PATTERN, REWRITE = "print($$$A)", "log.info($$$A)"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "util.py").write_text(UTIL, encoding="utf-8")
    return root


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}


def _cli_result(project: Path, *args: str) -> dict[str, bytes]:
    """What ``ast-grep run -U`` makes of a copy of ``project``."""
    copy = project.parent / "cli-copy"
    shutil.copytree(project, copy)
    done = run_ast_grep("run", *args, "-U", cwd=copy)
    assert done.returncode == 0, done.stderr
    return _snapshot(copy)


def test_without_a_terminal_or_yes_it_previews_and_changes_nothing(project: Path) -> None:
    before = _snapshot(project)
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Preview: AST Edit: 3 replacements in 2 files" in done.stdout
    assert '+    log.info("start", len(argv))' in done.stdout
    assert "not a terminal and no --yes" in done.stderr
    assert "nothing changed" in done.stderr
    assert _snapshot(project) == before


def test_dry_run_changes_nothing(project: Path) -> None:
    before = _snapshot(project)
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--dry-run", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "-        print(arg)" in done.stdout
    assert "dry run" in done.stderr
    assert _snapshot(project) == before


def test_yes_applies_exactly_what_the_ast_grep_cli_writes(project: Path) -> None:
    expected = _cli_result(project, "-p", PATTERN, "-r", REWRITE, "-l", "python")
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Accept: 3 replacements in 2 files" in done.stdout
    assert "reason: applied with --yes" in done.stdout
    assert _snapshot(project) == expected
    assert _snapshot(project) != {"app.py": APP.encode(), "util.py": UTIL.encode()}


def test_yes_with_limit_and_path(project: Path) -> None:
    done = run_xcsh(
        "ast-edit", "-p", PATTERN, "-r", REWRITE, "--limit", "1", "--yes", "app.py", cwd=project
    )
    assert done.returncode == 0, done.stderr
    text = (project / "app.py").read_text(encoding="utf-8")
    assert text.count("log.info(") == 1 and text.count("print(") == 1
    assert (project / "util.py").read_text(encoding="utf-8") == UTIL


def test_json_lines_equal_the_ast_grep_cli_and_change_nothing(project: Path) -> None:
    before = _snapshot(project)
    ours = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", cwd=project)
    theirs = run_ast_grep(
        "run", "-p", PATTERN, "-r", REWRITE, "-l", "python", "--json=stream", cwd=project
    )
    assert ours.returncode == 0, ours.stderr
    key = lambda o: (o["file"], o["range"]["byteOffset"]["start"])  # noqa: E731
    ours_objects = sorted(map(json.loads, ours.stdout.splitlines()), key=key)
    theirs_objects = sorted(map(json.loads, theirs.stdout.splitlines()), key=key)
    assert ours_objects == theirs_objects
    assert ours_objects[0]["replacement"] == 'log.info("start", len(argv))'
    assert _snapshot(project) == before


def test_json_with_yes_keeps_stdout_machine_readable(project: Path) -> None:
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    assert len([json.loads(line) for line in done.stdout.splitlines()]) == 3
    assert "Accept: 3 replacements in 2 files" in done.stderr
    assert "print(" not in (project / "app.py").read_text(encoding="utf-8")


def test_a_settings_file_is_checked_whole_even_when_no_check_is_set(
    project: Path, xcsh_home: Path
) -> None:
    """A misspelt key is refused, never ignored: ``chek`` would have been a check."""
    (xcsh_home / "settings.toml").write_text('chek = "pytest -x"\n')
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", cwd=project)
    assert done.returncode == 2 and "chek" in done.stderr and "check" in done.stderr, done.stderr
    (xcsh_home / "settings.toml").write_text('check_when = "sometimes"\n')
    refused = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", cwd=project)
    assert refused.returncode == 2 and "check_when" in refused.stderr, refused.stderr
    (xcsh_home / "settings.toml").unlink()
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", cwd=project)
    assert done.returncode == 0 and len(done.stdout.splitlines()) == 3, done.stderr


def test_a_json_reader_that_stops_early_ends_the_preview_quietly(project: Path) -> None:
    """The preview ends (141, no traceback) with nothing changed when its reader goes away."""
    (project / "many.py").write_text("print(1)\n" * 5000, encoding="utf-8")
    before = _snapshot(project)
    proc = subprocess.Popen(
        [sys.executable, "-m", "xcsh", "ast-edit", "-p", PATTERN, "-r", REWRITE, "--json"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert json.loads(first)["replacement"].startswith("log.info(")
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err
    assert _snapshot(project) == before


def test_no_replacement_exits_1_and_pushes_nothing(project: Path) -> None:
    before = _snapshot(project)
    done = run_xcsh("ast-edit", "-p", "nowhere($A)", "-r", "x", "--yes", cwd=project)
    assert done.returncode == 1
    assert "No replacements made" in done.stderr
    assert "Accept" not in done.stdout
    assert _snapshot(project) == before


def test_json_without_yes_says_the_same_notes_and_codes_as_an_apply(tmp_path: Path) -> None:
    """Without --yes nothing is applied: the notes and exit codes are those of --yes."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "nest.py").write_text("print(print(1))\nprint(2)\n", encoding="utf-8")
    (root / "broken.py").write_text("def f(:\n    print(3)\n", encoding="utf-8")
    shown = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", cwd=root)
    applied = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--json", "--yes", cwd=root)
    assert (shown.returncode, applied.returncode) == (0, 0), shown.stderr
    assert shown.stdout == applied.stdout and len(shown.stdout.splitlines()) == 3
    notes = shown.stderr.splitlines()
    assert notes[-1] == (
        "xcsh: --json never asks: previewed only, nothing changed. Add --yes to apply."
    )
    assert notes[:-1] == applied.stderr.splitlines()[: len(notes) - 1]
    assert any("nested match" in n for n in notes) and any("broken.py" in n for n in notes)
    none = run_xcsh("ast-edit", "-p", "nowhere($A)", "-r", "x", "--json", cwd=root)
    assert (none.returncode, none.stdout) == (1, "")
    assert none.stderr.splitlines()[0] == "xcsh: No replacements made"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-p", "print($A)", "-r", "log($B)"], "$B"),
        (["-p", "print($A", "-r", "x"], "--selector"),
        (["-p", "x", "-r", "y", "-l", "klingon"], "Supported languages"),
        (["-p", "x", "-r", "y", "--limit", "-3"], "--limit must be a positive number"),
        (["-p", "x", "-r", "y", "--yes", "--dry-run"], "not allowed with"),
    ],
)
def test_bad_input_exits_2_and_changes_nothing(project: Path, args: list[str], needle: str) -> None:
    before = _snapshot(project)
    done = run_xcsh("ast-edit", *args, cwd=project)
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr
    assert "Traceback" not in done.stderr
    assert _snapshot(project) == before


def test_prompt_apply_with_a_reason(project: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE],
        cwd=project,
        answers=[("[d]iscard", "a"), ("Reason", "logging instead of print")],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert "Preview: AST Edit: 3 replacements in 2 files" in run.output
    assert "Accept: 3 replacements in 2 files" in run.output
    assert "reason: logging instead of print" in run.output
    assert "print(" not in (project / "app.py").read_text(encoding="utf-8")


def test_prompt_discard_after_an_unclear_answer(project: Path) -> None:
    before = _snapshot(project)
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE],
        cwd=project,
        answers=[("[d]iscard", "maybe"), ("Please answer", "d"), ("Reason", "")],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert "Discard: 3 replacements in 2 files" in run.output
    assert "reason: discarded at the prompt" in run.output
    assert _snapshot(project) == before


def test_prompt_apply_of_a_stale_preview_writes_nothing_and_exits_3(project: Path) -> None:
    edited = "print('changed by someone else')\n"

    def change_a_file() -> None:
        (project / "util.py").write_text(edited, encoding="utf-8")

    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE],
        cwd=project,
        answers=[("[d]iscard", "a"), ("Reason", "go")],
        before_answer=change_a_file,
        NO_COLOR="1",
    )
    assert run.returncode == 3, run.output
    assert "changed since the preview" in run.output
    assert (project / "app.py").read_text(encoding="utf-8") == APP
    assert (project / "util.py").read_text(encoding="utf-8") == edited


def test_prompt_is_coloured_on_a_terminal(project: Path) -> None:
    run = run_on_pty(
        ["ast-edit", "-p", PATTERN, "-r", REWRITE],
        cwd=project,
        answers=[("[d]iscard", "d"), ("Reason", "not now")],
    )
    assert run.returncode == 0, run.output
    assert "\x1b[" in run.output
    assert "not now" in run.output


def test_nested_matches_are_announced_and_only_the_outer_one_rewritten(tmp_path: Path) -> None:
    root = tmp_path / "nested"
    root.mkdir()
    (root / "nest.py").write_text("print(print(1))\n", encoding="utf-8")
    expected = _cli_result(root, "-p", PATTERN, "-r", REWRITE, "-l", "python")
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "nested" in done.stderr
    assert "AST Edit: 1 replacement in 1 file" in done.stdout
    assert _snapshot(root) == expected
    assert (root / "nest.py").read_text(encoding="utf-8") == "log.info(print(1))\n"


def test_limit_counts_across_paths_in_json(project: Path) -> None:
    done = run_xcsh(
        "ast-edit",
        "-p",
        PATTERN,
        "-r",
        REWRITE,
        "--limit",
        "3",
        "--json",
        "util.py",
        "app.py",
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    files = [json.loads(line)["file"] for line in done.stdout.splitlines()]
    assert files == ["util.py", "app.py", "app.py"]


def test_an_applied_edit_is_journaled_and_xcsh_undo_restores_it(project: Path) -> None:
    before = _snapshot(project)
    done = run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, "--yes", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "xcsh undo" in done.stdout
    assert _snapshot(project) != before
    undone = run_xcsh("undo", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert _snapshot(project) == before


def test_a_discarded_or_previewed_edit_leaves_nothing_to_undo(project: Path) -> None:
    assert run_xcsh("ast-edit", "-p", PATTERN, "-r", REWRITE, cwd=project).returncode == 0
    assert run_xcsh("undo", cwd=project).returncode == 1


def test_paths_of_different_languages_are_refused_without_lang(tmp_path: Path) -> None:
    """contract §4: one edit, one language. A JS rewrite must never land in a C file."""
    (tmp_path / "js").mkdir()
    (tmp_path / "c").mkdir()
    (tmp_path / "js" / "a.js").write_text("return a == b;\n")
    (tmp_path / "c" / "a.c").write_text("int f(){ if (x == NULL) return 1; }\n")
    before = _snapshot_all(tmp_path)
    done = run_xcsh(
        "ast-edit", "-p", "$A == $B", "-r", "$A === $B", "js", "c", "--yes", cwd=tmp_path
    )
    assert done.returncode == 2, done.stderr
    assert "javascript: js/a.js" in done.stderr and "c: c/a.c" in done.stderr
    assert "-l/--lang" in done.stderr
    assert _snapshot_all(tmp_path) == before
    picked = run_xcsh(
        "ast-edit",
        "-p",
        "$A == $B",
        "-r",
        "$A === $B",
        "-l",
        "js",
        "js",
        "c",
        "--yes",
        cwd=tmp_path,
    )
    assert picked.returncode == 0, picked.stderr
    assert (tmp_path / "js" / "a.js").read_text() == "return a === b;\n"
    assert (tmp_path / "c" / "a.c").read_bytes() == before["c/a.c"]


def _snapshot_all(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


GO_MAIN = 'package main\n\nimport "fmt"\n\nfunc main() {\n\tx := 1\n\tfmt.Println(x,\t"a")\n}\n'


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_a_piped_diff_keeps_tabs_and_applies_with_git_apply_or_patch(
    tmp_path: Path, tool: str
) -> None:
    # A Go file is indented with tabs; a diff whose tabs became spaces does not apply.
    # GNU patch reads a name with a space only up to a tab ending it.
    root = tmp_path / "go"
    (root / "sub dir").mkdir(parents=True)
    (root / "main.go").write_text(GO_MAIN, encoding="utf-8")
    (root / "sub dir" / "my file.go").write_text(GO_MAIN, encoding="utf-8")
    twin = tmp_path / "twin"
    shutil.copytree(root, twin)
    args = ("ast-edit", "-p", "$X := 1", "-r", "$X := 2", "-l", "go")
    shown = run_xcsh(*args, cwd=root)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines(keepends=True)
    diff = "".join(lines[next(i for i, line in enumerate(lines) if line.startswith("--- ")) :])
    assert '+\tx := 2\n \tfmt.Println(x,\t"a")\n' in diff
    (tmp_path / "change.diff").write_text(diff, encoding="utf-8")
    binary = shutil.which(tool)
    assert binary is not None
    command = ["apply", "-p1", "change.diff"] if tool == "git" else ["-p1", "-i", "change.diff"]
    applied = subprocess.run(
        [binary, *command[:-1], str(tmp_path / command[-1])],
        cwd=twin,
        capture_output=True,
        text=True,
        check=False,
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    done = run_xcsh(*args, "--yes", cwd=root)
    assert done.returncode == 0, done.stderr
    for name in ("main.go", "sub dir/my file.go"):
        assert (twin / name).read_bytes() == (root / name).read_bytes()
        assert (root / name).read_text(encoding="utf-8") != GO_MAIN


def test_a_pattern_that_does_not_parse_is_named_before_the_rewrite_it_leaves_unbound(
    project: Path, tmp_path: Path
) -> None:
    before = _snapshot(project)
    done = run_xcsh(
        "ast-edit",
        "-p",
        "bar($",
        "-r",
        "x($A)",
        "-l",
        "python",
        cwd=project,
        XCSH_HOME=str(tmp_path / "home"),
    )
    assert done.returncode == 2
    assert done.stderr.startswith("xcsh: The pattern `bar($` is a syntax error"), done.stderr
    assert "$A" not in done.stderr
    assert _snapshot(project) == before
    # a pattern that parses still has its unbound metavariables named
    done = run_xcsh(
        "ast-edit",
        "-p",
        "bar($B)",
        "-r",
        "x($A)",
        "-l",
        "python",
        cwd=project,
        XCSH_HOME=str(tmp_path / "home"),
    )
    assert done.returncode == 2
    assert "The rewrite uses `$A`, which the pattern `bar($B)` does not bind" in done.stderr


@pytest.mark.parametrize("command", [["ast-edit", "-p", PATTERN, "-r", REWRITE], ["scan-fix"]])
def test_why_an_apply_failed_is_said_on_stderr(
    project: Path, xcsh_home: Path, command: list[str]
) -> None:
    # `--yes > /dev/null` in a script used to hide it: the reason went to stdout
    if command == ["scan-fix"]:
        rule = f"id: r\nlanguage: python\nrule: {{pattern: '{PATTERN}'}}\nfix: '{REWRITE}'\n"
        (project.parent / "r.yml").write_text(rule)
        command = ["scan", "--rule", str(project.parent / "r.yml"), "--fix"]
    (xcsh_home / "journal").write_text("")  # the journal's folder cannot be made: refused
    run = run_xcsh(*command, "--yes", cwd=project)
    assert run.returncode == 3, run.stderr
    assert "Apply failed: Cannot write the undo journal" in run.stderr
    assert "Nothing was written" in run.stderr
    assert "Run the same xcsh ast-edit command again" in run.stderr
    assert "Apply failed" not in run.stdout and "Preview: AST Edit" in run.stdout
    assert (project / "app.py").read_text(encoding="utf-8") == APP
