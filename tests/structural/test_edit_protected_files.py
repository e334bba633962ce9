"""A structural rewrite given a file inside ``.git``, ``.hg`` or ``.xcsh`` leaves it out of
the preview from the start, says how many files were left out and why, and so never shows
a change that the apply would refuse: ``xcsh ast-edit``, ``xcsh scan --fix`` and the
``ast_edit`` tool, each through the installed ``xcsh``."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_steps, run_xcsh, tool_call, tool_results

SOURCE = "x = 1\nprint(x)\n"
RULE = """id: no-print
language: python
rule:
  pattern: print($A)
fix: log($A)
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    for folder in (".git/hooks", ".xcsh/tools", ".hg"):
        (project / folder).mkdir(parents=True)
    for name in ("a.py", ".git/hooks/hook.py", ".xcsh/tools/t.py", ".hg/h.py"):
        (project / name).write_text(SOURCE)
    (project / "link.py").symlink_to(".git/hooks/hook.py")
    (project / "rule.yml").write_text(RULE)
    return project


PROTECTED = [".git/hooks/hook.py", ".xcsh/tools/t.py", ".hg/h.py", "link.py"]


def _untouched(project: Path) -> None:
    for name in PROTECTED:
        assert (project / name).read_text() == SOURCE, name


def test_ast_edit_leaves_protected_files_out_of_the_preview(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "-l", "python", "--yes"]
    done = run_xcsh([*args, *PROTECTED[:3], "a.py"], cwd=project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "a/a.py" in done.stdout
    for name in PROTECTED:
        assert f"a/{name}" not in done.stdout, done.stdout
    assert "Skipped 3 files" in done.stderr, done.stderr
    assert ".git/hooks/hook.py (inside .git, which xcsh never writes)" in done.stderr
    assert "(inside .hg" in done.stderr and "(inside .xcsh" in done.stderr
    assert "Refused" not in done.stderr + done.stdout  # nothing shown was refused at apply
    assert (project / "a.py").read_text() == "x = 1\nlog(x)\n"
    _untouched(project)


def test_ast_edit_of_a_link_into_git_previews_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ["ast-edit", "-p", "print($A)", "-r", "log($A)", "-l", "python", "--json"]
    done = run_xcsh([*args, "link.py"], cwd=project, home=tmp_path / "home")
    assert "log(x)" not in done.stdout, done.stdout
    assert "Skipped 1 file: link.py (inside .git" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    _untouched(project)


def test_scan_fix_leaves_protected_files_out_of_the_preview(tmp_path: Path) -> None:
    project = _project(tmp_path)
    args = ["scan", "--rule", "rule.yml", "--fix", "--yes"]
    done = run_xcsh([*args, *PROTECTED[:3], "a.py"], cwd=project, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    for name in PROTECTED:
        assert f"a/{name}" not in done.stdout, done.stdout
    assert "Skipped 3 files" in done.stderr and "(inside .xcsh" in done.stderr, done.stderr
    assert "Refused" not in done.stderr + done.stdout
    assert (project / "a.py").read_text() == "x = 1\nlog(x)\n"
    _untouched(project)


def test_the_ast_edit_tool_previews_no_protected_file(tmp_path: Path) -> None:
    project = _project(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    op = {"pat": "print($A)", "out": "log($A)"}
    calls = [tool_call("ast_edit", ops=[op], lang="python", path=p) for p in ("link.py", ".git")]
    code, events, err = run_steps(tmp_path, home, calls, "", one_per_turn=True)
    assert code == 0, err
    assert not [e for e in events if e["type"] == "pending_pushed"], json.dumps(events)
    for _is_error, text in tool_results(events):
        assert "log(x)" not in text, text
        assert "inside .git, which xcsh never writes" in text, text
    _untouched(project)
