"""The pieces of ``make demo`` (``devtools/demo.py``): the library copy, the compile
check, a whole run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from demo import check_compiles, run_demo
from stdlib_copy import copy_stdlib


def _fake_stdlib(root: Path) -> Path:
    (root / "pkg" / "__pycache__").mkdir(parents=True)
    (root / "site-packages" / "thirdparty").mkdir(parents=True)
    (root / "mod.py").write_text("def f(x):\n    print(x)\n    return x\n", encoding="utf-8")
    (root / "pkg" / "__init__.py").write_text("print('init', 1)\n", encoding="utf-8")
    (root / "pkg" / "__pycache__" / "mod.cpython-311.py").write_text("x = 1\n")
    (root / "pkg" / "data.txt").write_text("print(1)\n")
    (root / "site-packages" / "thirdparty" / "x.py").write_text("print(2)\n")
    (root / "broken.py").write_text("def half(:\n    print('typed halfway')\n")
    return root


def test_copy_takes_py_files_only_without_site_packages(tmp_path: Path) -> None:
    source = _fake_stdlib(tmp_path / "lib")
    tree = copy_stdlib(tmp_path / "copy", source=source)
    copied = sorted(
        p.relative_to(tree.root).as_posix() for p in tree.root.rglob("*") if p.is_file()
    )
    assert copied == ["broken.py", "mod.py", "pkg/__init__.py"]
    assert tree.files == 3
    assert tree.bytes == sum((source / name).stat().st_size for name in copied)


def test_compile_check_finds_a_file_the_codemod_broke(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("log.info(1)\n")
    (tmp_path / "bad.py").write_text("log.info(1\n")
    (tmp_path / "was_bad.py").write_text("still bad(\n")
    before = {"ok.py": b"print(1)\n", "bad.py": b"print(1)\n", "was_bad.py": b"bad(\n"}
    check = check_compiles(tmp_path, before)
    assert (check.changed, check.compiled_before, check.still_compile) == (3, 2, 1)
    assert check.broken == ["bad.py"]


async def _demo_on_a_small_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rewrite: str
) -> tuple[int, str]:
    """``print($$$A)`` rewritten to ``rewrite`` on the small tree: the exit code and stdout."""
    work = tmp_path / "work"
    work.mkdir()
    code = await run_demo(work, "print($$$A)", rewrite, source=_fake_stdlib(tmp_path / "lib"))
    return code, capsys.readouterr().out


async def test_a_whole_run_on_a_small_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = await _demo_on_a_small_tree(tmp_path, capsys, "log.info($$$A)")
    work = tmp_path / "work"
    assert code == 0, out
    assert "AST Edit: 2 replacements in 2 files" in out
    assert "broken.py (parse errors)" in out
    assert "Disk untouched by the preview: yes" in out
    assert "same set: yes" in out
    assert "2 of the changed files compiled before; 2 still compile after" in out
    assert "all checks passed" in out
    assert (work / "stdlib" / "mod.py").read_text().count("log.info(x)") == 1
    assert "print(" in (work / "stdlib" / "broken.py").read_text()
    # The README's transcript is a real run on the standard library: the same
    # lines, in the same order, as this run prints (numbers, paths and the
    # diff excerpt aside).
    assert _line_shapes(out) == _line_shapes(_readme_transcript())


README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_transcript() -> str:
    section = README.read_text(encoding="utf-8").split("## The demo", 1)[1]
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def _line_shapes(text: str) -> list[str]:
    """Each line that is not part of the diff excerpt, with what varies between runs
    (numbers, parenthesised paths and file lists, plural endings) taken out. An empty
    line counts: the transcript shows what the piped output prints, blank lines too."""
    shapes = []
    for line in text.splitlines():
        if line.startswith((" ", "+", "-", "@", "...", "\\")):
            continue
        head = line.split(": ", 1)[0] if line.startswith("Skipped ") else line
        head = re.sub(r"\([^)]*\)", "(...)", head)
        head = re.sub(r"\d[\d,.]*", "N", head)
        shapes.append(re.sub(r"(?<=\w)s\b", "", head))
    return shapes


async def test_a_codemod_that_breaks_code_is_left_out_and_fails_the_demo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = await _demo_on_a_small_tree(tmp_path, capsys, "log.info($$$A")
    work = tmp_path / "work"
    assert code == 1, out
    # the preview parses each rewritten file again and leaves out the ones it would break
    assert (
        "Left out 2 files whose rewrite would not parse (new parse errors, first at): "
        "mod.py (line 2, column 5), pkg/__init__.py (line 1, column 1)." in out
    )
    assert "Nothing to apply: the codemod changes no file." in out
    assert "print(x)" in (work / "stdlib" / "mod.py").read_text()
