"""grep (both backends give the same output), find and ls."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from xcsh.core import ToolError
from xcsh.tools.coding import create_grep_tool
from xcsh.tools.coding.grep import find_rg

from .conftest import Tools

BACKENDS = ["python", "ripgrep"]


def make_tree(ws: Path) -> None:
    files = {
        ".gitignore": "*.log\nbuild/\n",
        "app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
        "debug.log": "main crashed\n",
        "build/out.py": "def main(): pass\n",
        "src/.gitignore": "generated.py\n",
        "src/generated.py": "def main(): ...\n",
        "src/lib.py": "def helper():\n    return 1\n\n\ndef Main_two():\n    pass\n",
        "src/web/app.ts": "export function main() {}\n",
        ".env": "MAIN_KEY=1\n",
        ".cache/x.py": "def main(): cached\n",
        "node_modules/m/index.js": "function main() {}\n",
        "img.bin": "main\x00binary",
        "a.txt": "x\n" * 3,
    }
    for name, content in files.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


async def grep(ws: Path, backend: str, **params: object) -> str:
    tool = create_grep_tool(ws, backend=backend)  # type: ignore[arg-type]
    result = await tool.execute("c", params)
    assert result.details["backend"] == backend
    return result.text


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_honours_gitignore(ws: Path, backend: str) -> None:
    make_tree(ws)
    text = await grep(ws, backend, pattern=r"main\(")
    assert text == (
        "app.py:3: def main():\n"
        "src/web/app.ts:1: export function main() {}\n"
        "\n[2 matching lines in 2 files.]"
    )


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_options(ws: Path, backend: str) -> None:
    make_tree(ws)
    text = await grep(ws, backend, pattern="main", ignore_case=True, glob="*.py")
    assert text.splitlines()[:3] == [
        "app.py:3: def main():",
        "src/lib.py:5: def Main_two():",
        "",
    ]
    dotfile = await grep(ws, backend, pattern="MAIN_KEY")
    assert dotfile.startswith(".env:1: MAIN_KEY=1")
    scoped = await grep(ws, backend, pattern="def", path="src", glob="web/*.ts")
    assert scoped.startswith("No matches for 'def' in src (files matching 'web/*.ts').")
    braces = await grep(ws, backend, pattern="main", glob="*.{ts,js}")
    assert braces.splitlines()[0] == "src/web/app.ts:1: export function main() {}"
    literal = await grep(ws, backend, pattern="os.getcwd()", literal=True)
    assert literal.splitlines()[0] == "app.py:4:     return os.getcwd()"
    none = await grep(ws, backend, pattern="absent", path="./src/lib.py")
    assert none == "No matches for 'absent' in src/lib.py."
    one_file = await grep(ws, backend, pattern="main", path="debug.log")
    assert one_file.splitlines()[0] == "debug.log:1: main crashed"  # named files are searched


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_context_and_limit(ws: Path, backend: str) -> None:
    (ws / "f.txt").write_text(
        "".join(f"line {i}{' hit' if i % 3 == 0 else ''}\n" for i in range(1, 13))
    )
    (ws / "g.txt").write_text("hit\n")
    text = await grep(ws, backend, pattern="hit", context=1, limit=2)
    assert text == (
        "f.txt-2- line 2\n"
        "f.txt:3: line 3 hit\n"
        "f.txt-4- line 4\n"
        "f.txt-5- line 5\n"
        "f.txt:6: line 6 hit\n"
        "f.txt-7- line 7\n"
        "\n[2 matching lines in 1 file; stopped at the limit of 2. "
        "Narrow the search with path or glob, or raise limit.]"
    )
    full = await grep(ws, backend, pattern="hit", context=1)
    assert "f.txt-7- line 7\n--\nf.txt-8- line 8" not in full
    assert "f.txt-7- line 7\nf.txt-8- line 8\nf.txt:9: line 9 hit" in full
    assert "f.txt-13" not in full and "--\ng.txt:1: hit" in full


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_crlf_and_bad_regex(ws: Path, backend: str) -> None:
    (ws / "w.txt").write_bytes(b"alpha\r\nbeta\r\n")
    assert (await grep(ws, backend, pattern="beta$")).startswith("w.txt:2: beta\n")
    with pytest.raises(ToolError, match="Invalid regular expression '\\(unclosed'"):
        await grep(ws, backend, pattern="(unclosed")


async def test_backends_agree_on_a_mixed_tree(ws: Path) -> None:
    make_tree(ws)
    for params in (
        {"pattern": "main|return", "context": 2},
        {"pattern": "def", "glob": "src/**"},
        {"pattern": "x", "limit": 2},
    ):
        assert await grep(ws, "python", **params) == await grep(ws, "ripgrep", **params)


def test_ripgrep_comes_with_xcsh_and_is_found_without_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ripgrep dependency puts rg beside the interpreter; grep finds it even
    when the virtual environment's bin folder is not on PATH."""
    monkeypatch.setenv("PATH", "/nonexistent")
    rg = find_rg()
    assert rg is not None and Path(rg).parent == Path(sys.executable).parent


async def test_find(ws: Path, tools: Tools) -> None:
    make_tree(ws)
    assert (await tools("find", pattern="*.py")).text == "app.py\nsrc/lib.py"
    assert (await tools("find", pattern="src/**/*.ts")).text == "src/web/app.ts"
    assert (await tools("find", pattern="*.{ts,txt}")).text == "a.txt\nsrc/web/app.ts"
    assert (await tools("find", pattern="**/*.py", path="src")).text == "src/lib.py"
    limited = await tools("find", pattern="*", limit=2)
    assert limited.text.startswith(".env\n.gitignore\n\n[Showing 2 of ")
    assert (await tools("find", pattern="*.rs")).text == "No files match '*.rs' in the workspace."
    with pytest.raises(ToolError, match="find searches a folder"):
        await tools("find", pattern="*", path="app.py")


async def test_ls(ws: Path, tools: Tools) -> None:
    make_tree(ws)
    (ws / "Zeta.md").write_text("")
    (ws / "linkdir").symlink_to(ws / "src")
    text = (await tools("ls")).text
    assert text.splitlines() == [
        ".cache/",
        ".env",
        ".gitignore",
        "a.txt",
        "app.py",
        "build/",
        "debug.log",
        "img.bin",
        "linkdir/",
        "node_modules/",
        "src/",
        "Zeta.md",
    ]
    assert (await tools("ls", path="src/web")).text == "app.ts"
    (ws / "empty").mkdir()
    assert (await tools("ls", path="empty")).text == "empty is empty."
    with pytest.raises(ToolError, match="is a file, not a folder"):
        await tools("ls", path="app.py")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_cancelled(ws: Path, backend: str) -> None:
    make_tree(ws)
    cancel = asyncio.Event()
    cancel.set()
    tool = create_grep_tool(ws, backend=backend)  # type: ignore[arg-type]
    with pytest.raises(ToolError, match=r"^Search cancelled\.$"):
        await tool.execute("c", {"pattern": "main"}, cancel=cancel)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_ignore_files_from_workspace_root_down_only(
    tmp_path: Path, ws: Path, backend: str
) -> None:
    (tmp_path / ".gitignore").write_text("*.py\n")  # above the workspace: not ours
    make_tree(ws)
    (ws / "src/build").mkdir()
    (ws / "src/build/gen.py").write_text("def main(): built\n")  # root .gitignore: build/
    (ws / "src/trace.log").write_text("main\n")  # root .gitignore: *.log
    text = await grep(ws, backend, pattern="main", path="src")
    assert text == ("src/web/app.ts:1: export function main() {}\n\n[1 matching line in 1 file.]")
    whole = await grep(ws, backend, pattern="def main")
    assert whole.startswith("app.py:3: def main():\n")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_grep_searches_an_ignored_folder_named_explicitly(ws: Path, backend: str) -> None:
    make_tree(ws)  # .gitignore lists build/
    text = await grep(ws, backend, pattern="main", path="build")
    assert text.splitlines()[0] == "build/out.py:1: def main(): pass"


async def test_find_in_an_ignored_folder_named_explicitly(ws: Path, tools: Tools) -> None:
    make_tree(ws)
    assert (await tools("find", pattern="*.py", path="build")).text == "build/out.py"
    assert "build/" not in (await tools("find", pattern="*.py")).text
