"""``xcsh ast-grep``/``ast-edit`` are run by a person, who decides what they read:
a PATH outside the current folder is searched and edited as ``ast-grep`` does,
with its repository (or its folder) as the workspace."""

from __future__ import annotations

import json
from pathlib import Path

from clirun import run_ast_grep, run_xcsh


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    repo, here = tmp_path / "repo", tmp_path / "here"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    (repo / "pkg" / "m.py").write_text("print(1)\n")
    (repo / ".gitignore").write_text("skipped.py\n")
    (repo / "pkg" / "skipped.py").write_text("print(2)\n")
    here.mkdir()
    return repo, here


def test_ast_grep_searches_a_path_outside_like_the_cli(tmp_path: Path) -> None:
    repo, here = _layout(tmp_path)
    done = run_xcsh("ast-grep", "-p", "print($A)", "../repo/pkg", cwd=here)
    assert (done.returncode, done.stdout) == (0, "../repo/pkg/m.py:1:1:print(1)\n"), done.stderr
    reference = run_ast_grep("run", "-p", "print($A)", "../repo/pkg", cwd=here)
    assert reference.stdout.splitlines()[0].startswith("../repo/pkg/m.py:1:")  # same path
    absolute = run_xcsh("ast-grep", "-p", "print($A)", "--json", str(repo / "pkg"), cwd=here)
    [match] = [json.loads(line) for line in absolute.stdout.splitlines()]
    assert match["file"] == str(repo / "pkg" / "m.py")  # the repository's .gitignore applies


def test_ast_edit_applies_outside_and_undo_runs_in_that_workspace(tmp_path: Path) -> None:
    repo, here = _layout(tmp_path)
    done = run_xcsh("ast-edit", "-p", "print($A)", "-r", "log($A)", "--yes", "../repo", cwd=here)
    assert done.returncode == 0, done.stderr
    assert f"workspace {repo}" in done.stderr
    assert f"Undo it with: cd {repo} && xcsh undo" in done.stdout
    assert (repo / "pkg" / "m.py").read_text() == "log(1)\n"
    assert (repo / "pkg" / "skipped.py").read_text() == "print(2)\n"
    undone = run_xcsh("undo", cwd=repo)
    assert undone.returncode == 0, undone.stderr
    assert (repo / "pkg" / "m.py").read_text() == "print(1)\n"
    mixed = run_xcsh("ast-edit", "-p", "print($A)", "-r", "x", "../repo", ".", cwd=here)
    assert mixed.returncode == 2
    assert "the PATHs lie in different workspaces" in mixed.stderr
