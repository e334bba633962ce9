"""Workspace confinement, text decoding and ignore-aware walks."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.fs import (
    NotTextError,
    OutsideWorkspaceError,
    Workspace,
    iter_files,
    read_text_file,
    xcsh_home,
)


def test_paths_inside_and_outside(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "a.py").write_text("x")
    assert ws.resolve("a.py") == tmp_path.resolve() / "a.py"
    assert ws.resolve(".") == ws.root
    with pytest.raises(OutsideWorkspaceError, match="outside the workspace"):
        ws.resolve("../elsewhere.py")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("/etc/passwd")


def test_symlinks_judged_by_real_path(tmp_path: Path) -> None:
    inside = tmp_path / "ws"
    inside.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (inside / "link").symlink_to(outside)
    (inside / "dangling").symlink_to(tmp_path / "nowhere" / "x")
    (inside / "ok").symlink_to(inside / "target.txt")
    ws = Workspace(inside)
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("link")
    with pytest.raises(OutsideWorkspaceError):
        ws.resolve("dangling")
    assert ws.resolve("ok") == inside.resolve() / "ok"


def test_read_text_keeps_bom_and_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    text = read_text_file(path)
    assert text.text == "a\r\nb\r\n"
    assert text.bom and text.newline == "\r\n"
    assert text.encode(text.text) == path.read_bytes()


def test_binary_and_latin1_refused(tmp_path: Path) -> None:
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"\x7fELF\x00\x01")
    latin = tmp_path / "l.py"
    latin.write_bytes("café = 1\n".encode("latin-1"))
    with pytest.raises(NotTextError) as info:
        read_text_file(binary)
    assert info.value.reason == "binary"
    with pytest.raises(NotTextError, match="not valid UTF-8") as info:
        read_text_file(latin)
    assert info.value.reason == "not UTF-8"


def rel(paths: object, root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in paths)  # type: ignore[attr-defined]


def test_walk_honours_ignore_files_and_skips(tmp_path: Path) -> None:
    files = [
        "a.py",
        "b.txt",
        ".dot.py",
        "build/out.py",
        "src/keep.py",
        "src/gen/skip.py",
        "src/local.py",
        ".git/config.py",
        "node_modules/m.py",
        ".hidden/h.py",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    (tmp_path / ".gitignore").write_text("build/\n*.txt\n")
    (tmp_path / "src" / ".gitignore").write_text("gen/\n")
    (tmp_path / "src" / ".ignore").write_text("local.py\n")
    found = rel(iter_files(tmp_path), tmp_path)
    assert found == [
        ".dot.py",
        ".gitignore",
        "a.py",
        "src/.gitignore",
        "src/.ignore",
        "src/keep.py",
    ]
    assert rel(iter_files(tmp_path, globs=["*.py"]), tmp_path) == [".dot.py", "a.py", "src/keep.py"]
    # starting below the root still applies the root's ignore files
    sub = list(iter_files(tmp_path / "src", root=tmp_path, globs=["**/*.py"]))
    assert rel(sub, tmp_path) == ["src/keep.py"]
    # a file named explicitly is searched even if ignored
    assert list(iter_files(tmp_path / "b.txt")) == [tmp_path / "b.txt"]


def test_walk_skips_symlinked_files_but_takes_them_when_named(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("x")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "sub").mkdir()
    (tmp_path / "linkdir").symlink_to(tmp_path / "sub", target_is_directory=True)
    (tmp_path / "sub" / "s.py").write_text("y")
    assert rel(iter_files(tmp_path), tmp_path) == ["real.py", "sub/s.py"]
    assert list(iter_files(tmp_path / "link.py")) == [tmp_path / "link.py"]


def test_xcsh_home_is_found_one_way_everywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xcsh import plugins

    monkeypatch.setenv("XCSH_HOME", str(tmp_path / "h"))
    assert xcsh_home() == tmp_path / "h"
    assert xcsh_home(tmp_path / "given") == tmp_path / "given"
    assert xcsh_home(env={"XCSH_HOME": "/elsewhere"}) == Path("/elsewhere")
    assert xcsh_home(env={"XCSH_HOME": ""}) == Path.home() / ".xcsh"
    assert xcsh_home(env={}) == Path.home() / ".xcsh"
    assert plugins.xcsh_home is xcsh_home


def test_walk_from_a_subfolder_applies_the_repository_ignore_rules(tmp_path: Path) -> None:
    """As git and the CLI: rules above the start folder, up to the repository top, count."""
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("src/excluded.py\n")
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    for name in ("a.py", "x.gen.py", "excluded.py", ".dot.py", "sub/b.gen.py", "sub/b.py"):
        (src / name).write_text("x")
    expected = ["src/.dot.py", "src/a.py", "src/sub/b.py"]
    assert rel(iter_files(src), tmp_path) == expected
    assert rel(iter_files(src, root=src), tmp_path) == expected
    assert rel(iter_files(src / "sub"), tmp_path) == ["src/sub/b.py"]


def test_walk_can_leave_out_hidden_files(tmp_path: Path) -> None:
    """The structural tools skip dot-files, as the ast-grep CLI does."""
    for name in ("a.py", ".eslintrc.py", "src/.hidden.py", "src/b.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert rel(iter_files(tmp_path, hidden_files=False), tmp_path) == ["a.py", "src/b.py"]
    assert rel(iter_files(tmp_path), tmp_path) == [
        ".eslintrc.py",
        "a.py",
        "src/.hidden.py",
        "src/b.py",
    ]
    named = tmp_path / ".eslintrc.py"
    assert list(iter_files(named, hidden_files=False)) == [named]


def test_globs_select_and_exclude_like_ast_grep(tmp_path: Path) -> None:
    for name in ("a.py", "rich/x.py", "rich/sub/y.py", "httpx/z.py", "httpx/n.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    assert rel(iter_files(tmp_path, globs=["!rich/**"]), tmp_path) == [
        "a.py",
        "httpx/n.txt",
        "httpx/z.py",
    ]
    assert rel(iter_files(tmp_path, globs=["**/*.py", "!rich/**"]), tmp_path) == [
        "a.py",
        "httpx/z.py",
    ]
    assert rel(iter_files(tmp_path, globs=["*.py"]), tmp_path) == [
        "a.py",
        "httpx/z.py",
        "rich/sub/y.py",
        "rich/x.py",
    ]
