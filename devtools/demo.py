"""``make demo``: a real codemod on a copy of the Python standard library.

``python devtools/demo.py [--keep] [--pattern P --rewrite R]`` (the venv's python;
``make demo`` runs it) does, without network or API key, through the installed
``xcsh`` package:

1. copies the running interpreter's standard library (``*.py`` only, no
   ``site-packages``) into a temporary folder;
2. previews ``print($$$A)`` → ``log.info($$$A)`` with the ``ast_edit`` tool
   and checks that the preview changed nothing on disk;
3. applies it through the ``resolve`` tool;
4. proves it: the files that changed are exactly the previewed ones, and
   every changed file that compiled before still compiles (``compile()``
   of the bytes before and after);
5. prints the counts and the time of each step.

Exit code 0 when every check holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import platform
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from stdlib_copy import copy_stdlib, stdlib_dir

from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.structural import create_ast_edit_tool, skipped_note
from xcsh.ui import detect_style, make_console, render_preview, render_resolution

DEFAULT_PATTERN = "print($$$A)"
DEFAULT_REWRITE = "log.info($$$A)"
_EXCERPT_LINES = 24


@dataclass(frozen=True)
class CompileCheck:
    """Compilation of the changed files before and after the codemod.

    Attributes:
        changed: files whose bytes changed.
        compiled_before: of those, how many compiled before.
        still_compile: of those, how many compile after.
        broken: display paths that compiled before and not after.
    """

    changed: int
    compiled_before: int
    still_compile: int
    broken: list[str]


def _hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.py"))
    }


def _compiles(source: bytes, name: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of the copied code are not ours
            compile(source, name, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):  # ValueError: NUL bytes, bad encoding declaration
        return False
    return True


def check_compiles(root: Path, before: dict[str, bytes]) -> CompileCheck:
    """Compile every changed file before (from ``before``) and after (from disk).

    Args:
        root: the tree after the codemod.
        before: display path → bytes before the codemod, for the changed files.

    Returns:
        The counts and the files that a codemod broke.
    """
    compiled_before = 0
    still = 0
    broken: list[str] = []
    for name, old in sorted(before.items()):
        if not _compiles(old, name):
            continue
        compiled_before += 1
        if _compiles((root / name).read_bytes(), name):
            still += 1
        else:
            broken.append(name)
    return CompileCheck(
        changed=len(before), compiled_before=compiled_before, still_compile=still, broken=broken
    )


def _excerpt(diff: str, lines: int) -> str:
    kept = diff.splitlines(keepends=True)
    if len(kept) <= lines:
        return diff
    return "".join(kept[:lines]) + f"... ({len(kept) - lines} more diff lines)\n"


async def run_demo(work: Path, pattern: str, rewrite: str, *, source: Path | None = None) -> int:
    """Run the demo in ``work`` (an empty folder); returns the exit code.

    Args:
        work: where the copy goes.
        pattern: the ast-grep pattern of the codemod.
        rewrite: its replacement.
        source: the folder to copy instead of the standard library (for tests).
    """
    style = detect_style(sys.stdout)
    console = make_console(sys.stdout, style)
    say = console.print
    started = time.perf_counter()

    say(Text("xcsh demo: a structural codemod on real code", style="bold"))
    t0 = time.perf_counter()
    tree = copy_stdlib(work / "stdlib", source=source)
    t_copy = time.perf_counter() - t0
    say(
        f"Copied the standard library of Python {platform.python_version()} "
        f"({source or stdlib_dir()}, without site-packages): {tree.files:,} files, "
        f"{tree.bytes / 1e6:.1f} MB, in {t_copy:.2f} s"
    )
    say(f"Codemod: {pattern}  ->  {rewrite}")

    hashes_before = _hashes(tree.root)
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(tree.root), store)
    t0 = time.perf_counter()
    preview = await tool.execute(
        "demo-preview", {"ops": [{"pat": pattern, "out": rewrite}], "lang": "python"}
    )
    t_preview = time.perf_counter() - t0
    action = store.peek()
    if action is None:
        say(preview.text)
        say(Text("Nothing to apply: the codemod changes no file.", style="red"))
        return 1
    files = action.preview.files
    say(f"Preview with ast_edit in {t_preview:.2f} s:")
    first = files[0]
    say(render_preview(action.label, _excerpt(first.diff, _EXCERPT_LINES), style=style))
    note = skipped_note(((entry.file, entry.reason) for entry in action.preview.left_out), shown=10)
    if note:
        say(note)
    unchanged = _hashes(tree.root) == hashes_before
    say(f"Disk untouched by the preview: {'yes' if unchanged else 'NO'}")

    previewed = {f.path for f in files}
    before = {name: (tree.root / name).read_bytes() for name in previewed}
    resolve = create_resolve_tool(store)
    t0 = time.perf_counter()
    result = await resolve.execute(
        "demo-apply", {"action": "apply", "reason": "demo: apply the previewed codemod"}
    )
    t_apply = time.perf_counter() - t0
    assert result.details is not None  # resolve's results always carry their outcome
    say(
        render_resolution(
            result.details, is_error=result.is_error, message=result.text, style=style
        )
    )
    say(f"Applied through resolve in {t_apply:.2f} s")
    if result.is_error:
        return 1

    hashes_after = _hashes(tree.root)
    changed = {name for name, digest in hashes_after.items() if hashes_before.get(name) != digest}
    t0 = time.perf_counter()
    check = check_compiles(tree.root, before)
    t_check = time.perf_counter() - t0
    total = len(action.preview.changes)
    say(
        f"Changed files: {len(changed):,} (previewed: {len(previewed):,}; "
        f"same set: {'yes' if changed == previewed else 'NO'}); replacements: {total:,}"
    )
    say(
        f"compile() check in {t_check:.2f} s: {check.compiled_before:,} of the changed files "
        f"compiled before; {check.still_compile:,} still compile after"
        + (f"; BROKEN: {', '.join(check.broken)}" if check.broken else "")
    )
    elapsed = time.perf_counter() - started
    ok = unchanged and changed == previewed and not check.broken
    verdict = "all checks passed" if ok else "a check FAILED"
    say(
        Text(
            f"Done in {elapsed:.2f} s (copy {t_copy:.2f}, preview {t_preview:.2f}, "
            f"apply {t_apply:.2f}, check {t_check:.2f}): {verdict}.",
            style="bold green" if ok else "bold red",
        )
    )
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    """``python devtools/demo.py``; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python devtools/demo.py",
        description="Preview and apply a structural codemod on a copy of the standard library.",
    )
    parser.add_argument("--pattern", default=DEFAULT_PATTERN, help="ast-grep pattern")
    parser.add_argument("--rewrite", default=DEFAULT_REWRITE, help="its replacement")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copy")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    work = Path(tempfile.mkdtemp(prefix="xcsh-demo-"))
    try:
        return asyncio.run(run_demo(work, args.pattern, args.rewrite))
    finally:
        if args.keep:
            print(f"The copy is kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
