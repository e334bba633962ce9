"""``xcsh scan --fix`` on a project whose rules are written for several languages: each
rule's fix lands in the files of its language, in one pending action, byte-identical to
``ast-grep scan -U`` (a ``-p``/``-r`` rewrite stays refused across languages)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from clirun import run_on_pty, run_xcsh

RULES = {
    "py.yml": "id: py-log\nlanguage: python\nrule: {pattern: print($$$A)}\nfix: log.info($$$A)\n",
    "ts.yml": "id: ts-log\nlanguage: typescript\nrule: {pattern: console.log($$$A)}\n"
    "fix: logger.debug($$$A)\n",
}
HALF_OPEN = "id: x\nlanguage: python\nrule: {pattern: print($A)}\nfix: log($A\n"
ORIGINAL = {
    "a.py": 'print(1, 2)\ndef f():\n    print("x")\n',
    "b.ts": 'console.log(1, "a");\nfunction g() {\n  console.log(2);\n}\n',
}


def _ast_grep() -> str:
    local = Path(sys.executable).with_name("ast-grep")
    return str(local) if local.exists() else (shutil.which("ast-grep") or "ast-grep")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    (root / "rules").mkdir(parents=True)
    for name, text in RULES.items():
        (root / "rules" / name).write_text(text)
    (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    for name, text in ORIGINAL.items():
        (root / name).write_text(text)
    return root


def _texts(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in ORIGINAL}


def _cli_fixed(project: Path, tmp_path: Path) -> dict[str, str]:
    theirs = tmp_path / "cli"
    shutil.copytree(project, theirs)
    subprocess.run([_ast_grep(), "scan", "-U"], cwd=theirs, capture_output=True, check=True)
    return _texts(theirs)


def _key(obj: dict[str, Any]) -> tuple[str, int]:
    return (obj["file"], obj["range"]["byteOffset"]["start"])


def test_scan_fix_applies_rules_of_two_languages_as_ast_grep_scan(
    project: Path, tmp_path: Path
) -> None:
    expected = _cli_fixed(project, tmp_path)
    assert expected != ORIGINAL

    dry = run_xcsh("scan", "--fix", "--dry-run", cwd=project, NO_COLOR="1")
    assert dry.returncode == 0, dry.stderr
    assert "4 replacements in 2 files" in dry.stdout
    assert _texts(project) == ORIGINAL

    shown = run_xcsh("scan", "--fix", "--json", "--dry-run", cwd=project)
    assert shown.returncode == 0, shown.stderr
    cli = subprocess.run(
        [_ast_grep(), "scan", "--json=stream"], cwd=project, capture_output=True, text=True
    )
    ours = sorted((json.loads(line) for line in shown.stdout.splitlines()), key=_key)
    assert ours == sorted((json.loads(line) for line in cli.stdout.splitlines()), key=_key)

    done = run_xcsh("scan", "--fix", "--yes", cwd=project, NO_COLOR="1")
    assert done.returncode == 0, done.stderr
    assert _texts(project) == expected
    assert run_xcsh("undo", cwd=project).returncode == 0  # one pending action, one undo
    assert _texts(project) == ORIGINAL

    both = project / "both.yml"
    both.write_text(RULES["py.yml"] + "---\n" + RULES["ts.yml"])
    edited = run_xcsh("ast-edit", "--rule", "both.yml", "--yes", "a.py", "b.ts", cwd=project)
    assert edited.returncode == 0, edited.stderr
    assert _texts(project) == expected

    mixed = run_xcsh("ast-edit", "-p", "$F($$$A)", "-r", "g($$$A)", "--dry-run", cwd=project)
    assert mixed.returncode == 2
    assert "pass -l/--lang to pick it" in mixed.stderr


def test_scan_fix_interactive_goes_through_both_languages(project: Path, tmp_path: Path) -> None:
    expected = _cli_fixed(project, tmp_path)
    run = run_on_pty(
        ["scan", "--fix", "-i"],
        cwd=project,
        answers=[("(1/4) a.py:1:1", "a"), ("(3/4) b.ts:1:1", "a"), ("Reason", "both")],
        NO_COLOR="1",
    )
    assert run.returncode == 0, run.output
    assert _texts(project) == expected


def test_scan_fix_names_its_own_flag_for_fixes_that_would_not_parse(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "r.yml").write_text(HALF_OPEN)
    (root / "a.py").write_text("print(1)\n")
    theirs = tmp_path / "cli"
    shutil.copytree(root, theirs)
    subprocess.run(
        [_ast_grep(), "scan", "--rule", "r.yml", "-U"], cwd=theirs, capture_output=True, check=True
    )

    left = run_xcsh("scan", "--rule", "r.yml", "--fix", "--yes", cwd=root)
    assert "--include-broken writes them anyway" in left.stderr
    assert (root / "a.py").read_text() == "print(1)\n"
    done = run_xcsh("scan", "--rule", "r.yml", "--fix", "--yes", "--include-broken", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "a.py").read_bytes() == (theirs / "a.py").read_bytes() == b"log(1\n"
