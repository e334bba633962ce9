"""``xcsh ast-grep`` as a real subprocess: output formats, exit codes, terminal colour."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run_ast_grep, run_on_pty, run_xcsh

APP = """import subprocess


def main(argv):
    print("start", len(argv))
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
    )
    if argv == argv:
        print(proc.wait())
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "util.py").write_text('def f(x):\n    print(f"x={x}")\n', encoding="utf-8")
    return tmp_path


def test_text_output_lists_every_match_with_one_based_positions(project: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "print($$$A)", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        'app.py:5:5:    print("start", len(argv))',
        "app.py:11:9:        print(proc.wait())",
        'pkg/util.py:2:5:    print(f"x={x}")',
    ]
    assert "\x1b[" not in done.stdout


def test_multi_line_match_marks_continuation_lines(project: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "subprocess.Popen($$$A)", "app.py", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "app.py:6:12:    proc = subprocess.Popen(",
        "app.py:7-        argv,",
        "app.py:8-        stdout=subprocess.PIPE,",
        "app.py:9-    )",
    ]


def test_json_lines_equal_the_ast_grep_cli_objects(project: Path) -> None:
    for pattern in ("print($$$A)", "$A == $A", "subprocess.Popen($$$A)"):
        ours = run_xcsh("ast-grep", "-p", pattern, "-l", "python", "--json", cwd=project)
        theirs = run_ast_grep("run", "-p", pattern, "-l", "python", "--json=stream", cwd=project)
        assert ours.returncode == 0, ours.stderr
        ours_objects = [json.loads(line) for line in ours.stdout.splitlines()]
        theirs_objects = [json.loads(line) for line in theirs.stdout.splitlines()]
        key = lambda o: (o["file"], o["range"]["byteOffset"]["start"])  # noqa: E731
        assert sorted(ours_objects, key=key) == sorted(theirs_objects, key=key), pattern
        assert ours_objects, pattern


def test_limit_stops_early_and_says_so(project: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "print($$$A)", "--limit", "1", "--json", cwd=project)
    assert done.returncode == 0
    assert len(done.stdout.splitlines()) == 1
    assert "--limit 1" in done.stderr
    assert "stopped after 1 match (" in done.stderr  # not "1 matches"
    two = run_xcsh("ast-grep", "-p", "print($$$A)", "--limit", "2", cwd=project)
    assert "stopped after 2 matches (" in two.stderr


def test_limit_reached_at_the_end_of_a_path_says_more_remain_only_when_true(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("print(1)\nprint(2)\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    exact = run_xcsh("ast-grep", "-p", "print($A)", "--limit", "2", "a.py", "b.py", cwd=tmp_path)
    assert exact.returncode == 0
    assert len(exact.stdout.splitlines()) == 2
    assert "more remain" not in exact.stderr
    (tmp_path / "b.py").write_text("print(3)\n")
    over = run_xcsh("ast-grep", "-p", "print($A)", "--limit", "2", "a.py", "b.py", cwd=tmp_path)
    assert len(over.stdout.splitlines()) == 2
    assert "stopped after 2 matches (--limit 2); more remain" in over.stderr


def test_several_paths(project: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "print($$$A)", "pkg", "app.py", cwd=project)
    assert done.returncode == 0, done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [
        "pkg/util.py",
        "app.py",
        "app.py",
    ]


def test_no_match_exits_1(project: Path) -> None:
    done = run_xcsh("ast-grep", "-p", "nowhere($A)", cwd=project)
    assert (done.returncode, done.stdout) == (1, "")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-p", "x", "-l", "klingon"], "Supported languages"),
        (["-p", "foo($A", "-l", "python"], "--selector"),
        (["-p", "x", "--limit", "0"], "--limit must be a positive number"),
        (["-p", "x", "missing.py"], "does not exist"),
        (["--lang", "python"], "give one of -p/--pattern or --rule FILE"),
    ],
)
def test_bad_input_exits_2_with_a_message(project: Path, args: list[str], needle: str) -> None:
    done = run_xcsh("ast-grep", *args, cwd=project)
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr


def test_mixed_languages_each_file_in_its_own_language(project: Path) -> None:
    (project / "web.js").write_text("print(1);\n", encoding="utf-8")
    done = run_xcsh("ast-grep", "-p", "print($$$A)", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    found = sorted((json.loads(line) for line in done.stdout.splitlines()), key=str)
    cli = run_ast_grep("run", "-p", "print($$$A)", "--json=stream", cwd=project)
    assert found == sorted((json.loads(line) for line in cli.stdout.splitlines()), key=str)
    assert {m["language"] for m in found} == {"Python", "JavaScript"}


def test_binary_and_latin1_files_are_listed_as_skipped(project: Path) -> None:
    (project / "blob.py").write_bytes(b"print(1)\x00\x01")
    (project / "old.py").write_bytes("print('caf\xe9')\n".encode("latin-1"))
    done = run_xcsh("ast-grep", "-p", "print($$$A)", cwd=project)
    assert done.returncode == 0
    assert "blob.py (binary)" in done.stderr
    assert "old.py (not UTF-8)" in done.stderr
    assert "blob.py" not in done.stdout
    # the same wording as ast_edit's note: capital S, singular/plural, one final period
    note = next(line for line in done.stderr.splitlines() if "blob.py" in line)
    assert note.startswith("xcsh: Skipped 2 files: ") and note.endswith(")."), note
    (project / "old.py").unlink()
    one = run_xcsh("ast-grep", "-p", "print($$$A)", cwd=project)
    assert "xcsh: Skipped 1 file: blob.py (binary).\n" in one.stderr


def test_colour_on_a_terminal_and_none_with_no_color(project: Path) -> None:
    coloured = run_on_pty(["ast-grep", "-p", "print($$$A)", "app.py"], cwd=project)
    assert coloured.returncode == 0
    assert "\x1b[" in coloured.output
    assert "print(proc.wait())" in coloured.output
    plain = run_on_pty(["ast-grep", "-p", "print($$$A)", "app.py"], cwd=project, NO_COLOR="1")
    assert plain.returncode == 0
    assert "\x1b[" not in plain.output
    assert "app.py:11:9:        print(proc.wait())" in plain.output


def test_a_reader_that_stops_early_ends_the_command_quietly(project: Path) -> None:
    for number in range(400):
        (project / f"m{number}.py").write_text("print(1)\n" * 20, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "xcsh", "ast-grep", "-p", "print($$$A)", "--json"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert json.loads(first)["text"].startswith("print(")
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err


def test_hidden_files_and_folders_skipped_as_the_cli(tmp_path: Path) -> None:
    for name in ("a.py", ".dot.py", ".h/x.py", "src/.eslintrc.py", "src/b.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("foo(1)\n")
    ours = run_xcsh("ast-grep", "-p", "foo($A)", "--json", cwd=tmp_path)
    theirs = run_ast_grep("run", "-p", "foo($A)", "--json=stream", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    files = sorted(json.loads(line)["file"] for line in ours.stdout.splitlines())
    assert files == sorted(json.loads(line)["file"] for line in theirs.stdout.splitlines())
    assert files == ["a.py", "src/b.py"]


@pytest.mark.parametrize("globs", [["!rich/**"], ["**/*.py", "!rich/**"], ["rich/**"]])
def test_globs_include_and_exclude_as_the_cli(tmp_path: Path, globs: list[str]) -> None:
    for name in ("a.py", "rich/x.py", "rich/sub/y.py", "httpx/z.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("isinstance(a, b)\n")
    flags = [arg for glob in globs for arg in ("--globs", glob)]
    ours = run_xcsh("ast-grep", "-p", "isinstance($A, $B)", *flags, "--json", cwd=tmp_path)
    theirs = run_ast_grep("run", "-p", "isinstance($A, $B)", *flags, "--json=stream", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    files = sorted(json.loads(line)["file"] for line in ours.stdout.splitlines())
    assert files == sorted(json.loads(line)["file"] for line in theirs.stdout.splitlines())
    assert files


def test_c_call_pattern_that_cannot_match_is_refused_with_a_hint(tmp_path: Path) -> None:
    """Contract case S3, in C: `free($A)` alone parses as a macro type, never a call."""
    (tmp_path / "b.c").write_text("int main(void){ free(p); }\n")
    theirs = run_ast_grep("run", "-p", "free($A)", "--json=stream", cwd=tmp_path)
    assert theirs.stdout.strip() == ""  # the CLI silently finds nothing
    ours = run_xcsh("ast-grep", "-p", "free($A)", "b.c", cwd=tmp_path)
    assert ours.returncode == 2
    assert "call_expression" in ours.stderr and "--selector" in ours.stderr
    with_context = run_xcsh(
        "ast-grep",
        "-p",
        "void t() { free($A); }",
        "--selector",
        "call_expression",
        "b.c",
        cwd=tmp_path,
    )
    assert with_context.returncode == 0, with_context.stderr
    assert with_context.stdout == "b.c:1:17:int main(void){ free(p); }\n"


def test_nothing_found_with_an_error_node_pattern_says_so(tmp_path: Path) -> None:
    (tmp_path / "b.c").write_text("int main(void){ return 0; }\n")
    done = run_xcsh("ast-grep", "-p", "if ($C) { $$$B }", "b.c", cwd=tmp_path)
    assert done.returncode == 1
    assert "does not parse on its own" in done.stderr
