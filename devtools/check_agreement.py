"""Measure whether tree-sitter's grammar wheels give the syntax check's verdict.

The syntax check of a rewritten file (``xcsh.structural.edit.syntax_check``)
parses it with ast-grep-py and walks the tree for an ERROR node or a node with
no text (tree-sitter's MISSING nodes, and the empty ``block`` Python's grammar
accepts after ``def f():`` when the body is not indented). A grammar wheel's root
``has_error`` flag would answer at once, if it gave the same verdict; it is not
used, because it does not: it misses the empty block. This tool counts where they
differ, for a later grammar or binding to be measured again:

- ``python devtools/check_agreement.py files [FOLDER]``: every file of FOLDER
  (default: a copy of this interpreter's standard library) in each listed
  language, parsed whole by ast-grep-py (any ERROR or MISSING node) and by the
  wheel (``has_error``);
- ``python devtools/check_agreement.py suite [PYTEST ARGS]``: runs pytest (default:
  the structural, conformance and command tests) with every call of the syntax
  check recorded, in the test processes and in every ``xcsh`` they start: each
  rewritten text the check decides on gets both verdicts.

It prints the counts, then each disagreement: ``ts-clean`` (the wheel calls clean
what ast-grep calls broken: such a rewrite would be let through) or ``ts-broken``
(the wheel only sends a clean file through the walk: slower, same verdict).
Exit status 1 when any ``ts-clean`` disagreement was seen.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import tree_sitter
import tree_sitter_python
from ast_grep_py import SgRoot

from xcsh.structural.base.languages import language_for_path
from xcsh.structural.edit.syntax_check import has_error

GRAMMARS = {"python": tree_sitter_python.language}
"""The languages measured: ast-grep-py's name -> the grammar wheel's language."""


def wheel_flags_error(source: bytes, language: str) -> bool:
    """The wheel's verdict on ``source``: its root's ``has_error``."""
    grammar = tree_sitter.Language(GRAMMARS[language]())
    return tree_sitter.Parser(grammar).parse(source).root_node.has_error


HOOK = """
import os
import tree_sitter
import tree_sitter_python
from xcsh.structural.edit import scan_edit, syntax_check

_checked = syntax_check.new_error


def _recorded(old_errors, new_bytes, language):
    root = syntax_check.SgRoot(new_bytes.decode("utf-8", errors="replace"), language).root()
    walked = syntax_check.has_error(root)
    flagged = "-"
    if language == "python":
        grammar = tree_sitter.Language(tree_sitter_python.language())
        flagged = int(tree_sitter.Parser(grammar).parse(new_bytes).root_node.has_error)
    line = f"{language}\\t{int(walked)}\\t{flagged}\\n"
    fd = os.open(os.environ["XCSH_AGREEMENT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return _checked(old_errors, new_bytes, language)


syntax_check.new_error = _recorded
scan_edit.new_error = _recorded
"""
"""``sitecustomize``: records, for each rewritten text checked, ast-grep's walk and the wheel."""
SUITE = ["-q", "-n", "2", "tests/structural", "tests/conformance", "tests/cli"]
"""The tests ``suite`` runs by default: the engine's, the CLI-parity cases and the commands'."""


def verdicts(source: bytes, language: str) -> tuple[bool, bool]:
    """``(ast-grep finds an error node, the wheel says has_error)`` for ``source``."""
    root = SgRoot(source.decode("utf-8", errors="replace"), language).root()
    return has_error(root), wheel_flags_error(source, language)


def check_files(folder: Path) -> Counter[str]:
    """Both verdicts on every file of ``folder`` in a listed language; prints disagreements."""
    counts: Counter[str] = Counter()
    for path in sorted(folder.rglob("*")):
        found = language_for_path(path) if path.is_file() else None
        language = found.name if found is not None else ""
        if language not in GRAMMARS:
            continue
        source = path.read_bytes()
        try:
            source.decode("utf-8")
        except UnicodeDecodeError:
            continue  # never scanned: not UTF-8
        walked, flagged = verdicts(source, language)
        counts[f"{language} files"] += 1
        counts[f"{language} with errors"] += walked
        if walked != flagged:
            kind = "ts-broken" if flagged else "ts-clean"
            counts[kind] += 1
            print(f"{kind}: {path}")
    return counts


def check_suite(pytest_args: list[str]) -> Counter[str]:
    """Run pytest with every syntax check recorded; count both verdicts per language."""
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="xcsh-agreement-") as tmp:
        hook = Path(tmp) / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
        log = Path(tmp) / "verdicts.tsv"
        env = dict(os.environ, XCSH_AGREEMENT_LOG=str(log))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")]))
        args = pytest_args or [
            "-q",
            "-n",
            "2",
            "tests/structural",
            "tests/conformance",
            "tests/cli",
        ]
        subprocess.run([sys.executable, "-m", "pytest", *args], env=env, check=False)
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    for line in lines:
        language, walked, flagged = line.split("\t")
        counts[f"{language} checks"] += 1
        counts[f"{language} with errors"] += walked == "1"
        if flagged == "-":
            counts[f"{language} without a wheel"] += 1
        elif flagged != walked:
            kind = "ts-broken" if flagged == "1" else "ts-clean"
            counts[kind] += 1
            print(f"{kind}: {language} text")
    return counts


def main(argv: list[str] | None = None) -> int:
    """Run the check the arguments name; 1 when a rewrite would have been let through."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    files = sub.add_parser("files", help="every file of a folder")
    files.add_argument("folder", nargs="?", type=Path)
    sub.add_parser("suite", help="every rewrite the tests check (other arguments: pytest's)")
    args, pytest_args = parser.parse_known_args(argv)
    if pytest_args and args.what != "suite":
        parser.error(f"unrecognized arguments: {' '.join(pytest_args)}")
    if args.what == "files":
        folder = args.folder
        with tempfile.TemporaryDirectory(prefix="xcsh-agreement-") as tmp:
            if folder is None:
                from stdlib_copy import copy_stdlib

                folder = copy_stdlib(Path(tmp) / "stdlib").root
            counts = check_files(folder)
    else:
        counts = check_suite(pytest_args)
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")
    return 1 if counts["ts-clean"] else 0


if __name__ == "__main__":
    sys.exit(main())
