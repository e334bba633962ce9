"""The text ``xcsh scan`` and ``xcsh ast-grep --heading`` print, byte for byte as the real
``ast-grep scan`` / ``ast-grep run --heading`` print it with ``--color never``.

Each case writes real files, runs the installed ``xcsh`` and the ``ast-grep`` binary on
one file with one rule (the CLI prints files, and a file's rules, in no fixed order)
and compares the bytes: the framed diagnostics with their labels (default ones, or the
rule's ``labels:``) and notes, a fix's diff and ``Note:``, the heading layouts.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sgcli import ast_grep_binary

from helpers import run_xcsh

SOURCE = """import os

def foo(x):
    print(x)
    if x:
        print("hello",
              x)
    print(1); print(2)
    return x

class K:
\tdef m(self):
\t\tprint("日本語", self)
\t\treturn self
"""

NOTE = "Use `logging` **instead**, see *docs*.\n\n- one\n- two\n\n```python\nlog(x)\n```\n"

RULES = {
    "plain-error": "severity: error\nmessage: no print\nrule: {pattern: 'print($$$A)'}\n",
    "warning-note": (
        f"severity: warning\nmessage: print $$$A\nnote: {json.dumps(NOTE)}\n"
        "rule: {pattern: 'print($$$A)'}\n"
    ),
    "info-inside": (
        "severity: info\nmessage: return in a function\n"
        "rule: {pattern: 'return $X', inside: {kind: function_definition, stopBy: end}}\n"
    ),
    "hint-has": (
        "severity: hint\nmessage: function printing\nnote: Check it.\n"
        "rule: {kind: function_definition, has: {pattern: 'print($$$A)', stopBy: end}}\n"
    ),
    "fix-one-line": (
        "severity: warning\nmessage: use log\nnote: 'plain note'\n"
        "rule: {pattern: 'print($$$A)'}\nfix: log($$$A)\n"
    ),
    "fix-multi-line": (
        # on the space-indented `return x`: a tab-indented file's multi-line fix keeps its
        # tabs in xcsh (a deliberate difference)
        "severity: error\nmessage: wrap $X\nrule: {pattern: 'return $X', regex: '^return x$'}\n"
        "fix: |-\n  if $X is None:\n      raise ValueError\n  return $X\n"
    ),
    "labels": (
        "severity: warning\nmessage: labelled\nrule: {pattern: 'print($A, $B)'}\n"
        "labels:\n  A: {style: primary, message: first argument}\n"
        "  B: {style: secondary, message: second one}\n"
    ),
    "labels-multi-line": (
        "severity: error\nmessage: a function\n"
        "rule: {pattern: 'def $F($$$P): $$$BODY'}\n"
        "labels:\n  F: {style: primary, message: its name}\n"
        "  BODY: {style: secondary, message: its body}\n"
    ),
    "labels-no-message": (
        "severity: hint\nmessage: m\nrule: {pattern: 'print($$$ARGS)'}\n"
        "labels:\n  ARGS: {style: secondary}\n"
    ),
}


def _project(root: Path, name: str, text: str = SOURCE, newline: str = "\n") -> None:
    body = RULES[name]
    (root / "rule.yml").write_text(f"id: {name}\nlanguage: python\n{body}", encoding="utf-8")
    (root / "a.py").write_bytes(text.replace("\n", newline).encode())


def _cli(root: Path, *args: str) -> str:
    done = subprocess.run(
        [ast_grep_binary(), *args], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.stdout, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", sorted(RULES))
def test_scan_prints_the_report_of_ast_grep_scan(
    name: str, tmp_path: Path, xcsh_home: Path
) -> None:
    _project(tmp_path, name)
    theirs = _cli(tmp_path, "scan", "--color", "never", "--rule", "rule.yml", "a.py")
    ours = run_xcsh(["scan", "--rule", "rule.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert ours.stdout == theirs, ours.stderr


@pytest.mark.parametrize("name", ["plain-error", "fix-multi-line", "labels-multi-line"])
def test_the_report_of_a_crlf_file_is_the_clis(name: str, tmp_path: Path, xcsh_home: Path) -> None:
    _project(tmp_path, name, newline="\r\n")
    theirs = _cli(tmp_path, "scan", "--color", "never", "--rule", "rule.yml", "a.py")
    ours = run_xcsh(["scan", "--rule", "rule.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert ours.stdout == theirs, ours.stderr


def test_scan_json_labels_are_the_rules_labels(tmp_path: Path, xcsh_home: Path) -> None:
    _project(tmp_path, "labels-multi-line")
    theirs = _cli(tmp_path, "scan", "--json=stream", "--rule", "rule.yml", "a.py")
    ours = run_xcsh(["scan", "--json", "--rule", "rule.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
    mine = [json.loads(line) for line in ours.stdout.splitlines()]
    cli = [json.loads(line) for line in theirs.splitlines()]
    # the CLI keeps `labels:` in a hash map: their order is not fixed
    for found in (mine, cli):
        for match in found:
            match["labels"].sort(key=lambda label: label["range"]["byteOffset"]["start"])
    assert mine == cli
    assert {label.get("message") for label in mine[0]["labels"]} == {"its name", "its body"}


def test_scan_counts_errors_in_its_report_as_the_cli(tmp_path: Path, xcsh_home: Path) -> None:
    for name in ("fix-multi-line", "fix-one-line"):
        _project(tmp_path, name)
        code = subprocess.run(
            [ast_grep_binary(), "scan", "--rule", "rule.yml", "a.py"],
            cwd=tmp_path,
            capture_output=True,
            check=False,
        ).returncode
        ours = run_xcsh(["scan", "--rule", "rule.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
        assert ours.returncode == code == (1 if name == "fix-multi-line" else 0)


@pytest.mark.parametrize("heading", ["always", "never"])
@pytest.mark.parametrize(
    "pattern", ["print($$$A)", "$A($$$B)", "return $X", "def $F($$$P): $$$B", "$X"]
)
def test_heading_prints_as_ast_grep_run(
    heading: str, pattern: str, tmp_path: Path, xcsh_home: Path
) -> None:
    (tmp_path / "a.py").write_text(SOURCE, encoding="utf-8")
    theirs = _cli(tmp_path, "run", "-p", pattern, "--heading", heading, "--color", "never", "a.py")
    ours = run_xcsh(
        ["ast-grep", "-p", pattern, "--heading", heading, "a.py"], cwd=tmp_path, home=xcsh_home
    )
    assert ours.stdout == theirs, ours.stderr


def test_heading_auto_through_a_pipe_is_never(tmp_path: Path, xcsh_home: Path) -> None:
    (tmp_path / "a.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "b.py").write_text("print(3)\n", encoding="utf-8")
    theirs = _cli(tmp_path, "run", "-p", "print($$$A)", "--color", "never", ".")
    ours = run_xcsh(
        ["ast-grep", "-p", "print($$$A)", "--heading", "auto"], cwd=tmp_path, home=xcsh_home
    )
    # the CLI prints files in no fixed order
    assert sorted(ours.stdout.splitlines()) == sorted(theirs.splitlines())


def test_heading_with_a_rule_is_refused(tmp_path: Path, xcsh_home: Path) -> None:
    _project(tmp_path, "plain-error")
    ours = run_xcsh(
        ["ast-grep", "--rule", "rule.yml", "--heading", "always"], cwd=tmp_path, home=xcsh_home
    )
    assert ours.returncode == 2
    assert "--heading goes with -p" in ours.stderr


@pytest.mark.parametrize(
    "rule",
    [
        "id: on\nlanguage: python\nseverity: warning\nmessage: no\nnote: yes\n",
        "id: off-rule\nlanguage: python\nseverity: off\nmessage: y\n",
        "id: n\nlanguage: python\nseverity: error\nmessage: 1:30 or 0o17 is text\n",
    ],
    ids=["on-no-yes", "severity-off", "numbers"],
)
def test_yaml_words_read_as_ast_grep_reads_them(rule: str, tmp_path: Path, xcsh_home: Path) -> None:
    # ast-grep reads YAML 1.2: unquoted on/off/yes/no/y/n are strings, not booleans
    (tmp_path / "rule.yml").write_text(rule + "rule: {pattern: 'print($$$A)'}\n")
    (tmp_path / "a.py").write_text(SOURCE)
    theirs = subprocess.run(
        [ast_grep_binary(), "scan", "--color", "never", "--rule", "rule.yml", "a.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    ours = run_xcsh(["scan", "--rule", "rule.yml", "a.py"], cwd=tmp_path, home=xcsh_home)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), ours.stderr


FIXED = (
    "id: to-log\nlanguage: python\nseverity: error\nrule: {pattern: 'print($$$A)'}\n"
    "fix: log($$$A)\n"
)
UNFIXED = (
    "id: no-return\nlanguage: python\nseverity: error\nmessage: r\nrule: {pattern: 'return $X'}\n"
)


def _scan_update_all(
    tmp_path: Path, home: Path, rules: list[str], source: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str], dict[str, Path]]:
    """``ast-grep scan -U`` and ``xcsh scan --fix --yes`` on a project each of ``rules``
    and ``a.py`` holding ``source``: what each did, and each one's project."""
    trees = {}
    for who in ("cli", "xcsh"):
        root = tmp_path / who
        (root / "rules").mkdir(parents=True)
        (root / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
        for i, rule in enumerate(rules):
            (root / "rules" / f"r{i}.yml").write_text(rule)
        (root / "a.py").write_text(source)
        trees[who] = root
    theirs = subprocess.run(
        [ast_grep_binary(), "scan", "--color", "never", "-U"],
        cwd=trees["cli"],
        capture_output=True,
        text=True,
        check=False,
    )
    ours = run_xcsh(["scan", "--fix", "--yes"], cwd=trees["xcsh"], home=home)
    return theirs, ours, trees


@pytest.mark.parametrize(
    "rules", [[UNFIXED], [FIXED, UNFIXED], [FIXED]], ids=["no-fix", "mixed", "fix-only"]
)
def test_scan_fix_yes_writes_reports_and_exits_as_scan_update_all(
    rules: list[str], tmp_path: Path, xcsh_home: Path
) -> None:
    # `xcsh scan --fix --yes` in a CI step: the same files and exit status as
    # `ast-grep scan -U`, and the matches no fix removes are reported as the CLI reports them
    theirs, ours, trees = _scan_update_all(tmp_path, xcsh_home, rules, SOURCE)
    assert ours.returncode == theirs.returncode, ours.stderr
    assert (trees["xcsh"] / "a.py").read_bytes() == (trees["cli"] / "a.py").read_bytes()
    if UNFIXED in rules:
        assert theirs.stdout and ours.stdout.endswith(theirs.stdout)


UNFIXED_WARNING = UNFIXED.replace("severity: error", "severity: warning")
CLEAN = "def foo(x):\n    return x\n"
"""A file nothing fixes: the fixed rule finds no `print`."""


@pytest.mark.parametrize(
    "rules",
    [[FIXED, UNFIXED], [FIXED, UNFIXED_WARNING], [FIXED]],
    ids=["error-reported", "warning-reported", "fix-only"],
)
def test_scan_fix_yes_with_nothing_to_fix_reports_and_exits_as_scan_update_all(
    rules: list[str], tmp_path: Path, xcsh_home: Path
) -> None:
    # a CI step on a clean tree: nothing to fix is no failure (exit 0 unless a rule of
    # severity error matched), and the rules without a fix still report, as with the CLI
    theirs, ours, trees = _scan_update_all(tmp_path, xcsh_home, rules, CLEAN)
    assert ours.returncode == theirs.returncode, ours.stderr
    assert ours.stdout == theirs.stdout
    assert (trees["xcsh"] / "a.py").read_text() == CLEAN
