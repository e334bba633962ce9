"""contract case S1–S6 and F1–F2, each on real files, compared with the real ast-grep CLI."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sgcli import cli_json, cli_rewrite

from xcsh import PendingActionStore, ToolError
from xcsh.structural import (
    EditOp,
    EditSpec,
    MatchSpec,
    ScopeSpec,
    apply_preview,
    preview_edit,
    search,
)
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool


def _preview_bytes(
    ws: Path, name: str, pat: str, out: str, *, selector: str | None = None
) -> bytes:
    # include_broken: the CLI's bytes, even where they would not parse
    edit = EditSpec(ops=(EditOp(pat=pat, out=out),), selector=selector, include_broken=True)
    preview = preview_edit(edit, ScopeSpec(root=ws, path=name))
    assert len(preview.files) == 1, "expected one changed file"
    return preview.files[0].new_bytes


def _cli_bytes(tmp_path: Path, name: str, src: bytes, *args: str) -> bytes:
    folder = tmp_path / "cli"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(src)
    cli_rewrite(folder, *args, name)
    return (folder / name).read_bytes()


# S1 — re-indent a multi-line rewrite.


def test_s1_multiline_rewrite_reindented_like_cli(ws: Path, tmp_path: Path) -> None:
    src = b"def inner():\n    b = lambda: 123\n"
    (ws / "a.py").write_bytes(src)
    new = _preview_bytes(ws, "a.py", "$B = lambda: $R", "def $B():\n    return $R")
    assert new == b"def inner():\n    def b():\n        return 123\n"
    cli = _cli_bytes(
        tmp_path, "a.py", src, "-p", "$B = lambda: $R", "-r", "def $B():\n    return $R"
    )
    assert cli == new


def test_s1_tab_indented_file_keeps_python_valid(ws: Path, tmp_path: Path) -> None:
    # contract §4 difference: the CLI counts spaces only; we carry the tab indentation.
    src = b"def inner():\n\tb = lambda: 123\n"
    (ws / "a.py").write_bytes(src)
    new = _preview_bytes(ws, "a.py", "$B = lambda: $R", "def $B():\n    return $R")
    assert new == b"def inner():\n\tdef b():\n\t\treturn 123\n"
    compile(new, "a.py", "exec")
    cli = _cli_bytes(
        tmp_path, "a.py", src, "-p", "$B = lambda: $R", "-r", "def $B():\n    return $R"
    )
    assert cli != new  # the CLI output is the broken one this difference exists for


def test_s1_tab_indented_file_top_level_rewrite_uses_tabs(ws: Path, tmp_path: Path) -> None:
    # A match at column 0 has no indentation of its own: the file's (tabs) decides.
    src = b"b = lambda: 123\n\n\ndef f():\n\treturn b()\n"
    (ws / "a.py").write_bytes(src)
    new = _preview_bytes(ws, "a.py", "$B = lambda: $R", "def $B():\n    return $R")
    assert new == b"def b():\n\treturn 123\n\n\ndef f():\n\treturn b()\n"
    compile(new, "a.py", "exec")
    spaced = src.replace(b"\t", b"    ")  # a space-indented file: byte-identical to the CLI
    (ws / "s.py").write_bytes(spaced)
    ours = _preview_bytes(ws, "s.py", "$B = lambda: $R", "def $B():\n    return $R")
    cli = _cli_bytes(
        tmp_path, "s.py", spaced, "-p", "$B = lambda: $R", "-r", "def $B():\n    return $R"
    )
    assert ours == cli == b"def b():\n    return 123\n\n\ndef f():\n    return b()\n"


def test_s1_go_tab_file_gets_tabs_for_template_indentation(ws: Path, tmp_path: Path) -> None:
    src = b"package main\n\nfunc main() {\n\tif err != nil {\n\t\treturn err\n\t}\n}\n"
    (ws / "main.go").write_bytes(src)
    pat = "if err != nil { return $E }"
    out = "if err != nil {\n    log.Print($E)\n    return $E\n}"
    new = _preview_bytes(ws, "main.go", pat, out)
    assert new == (
        b"package main\n\nfunc main() {\n\tif err != nil {\n"
        b"\t\tlog.Print(err)\n\t\treturn err\n\t}\n}\n"
    )
    cli = _cli_bytes(tmp_path, "main.go", src, "-p", pat, "-r", out)
    assert b"\n    log.Print(err)\n" in cli  # the CLI drops the tab indentation


def test_tab_file_blank_template_lines_stay_blank(ws: Path) -> None:
    """No trailing tabs: a blank line of the template stays blank in a tab-indented file."""
    (ws / "a.go").write_bytes(b"package main\n\nfunc f() {\n\tfoo(1)\n}\n")
    new = _preview_bytes(ws, "a.go", "foo($A)", "x := 1\n\nbar($A)")
    assert new == b"package main\n\nfunc f() {\n\tx := 1\n\n\tbar(1)\n}\n"
    (ws / "b.go").write_bytes(b"package main\r\n\r\nfunc f() {\r\n\tfoo(1)\r\n}\r\n")
    crlf = _preview_bytes(ws, "b.go", "foo($A)", "x := 1\n\nbar($A)")
    assert crlf == b"package main\r\n\r\nfunc f() {\r\n\tx := 1\r\n\r\n\tbar(1)\r\n}\r\n"


def test_s1_crlf_file_gets_crlf_line_breaks(ws: Path) -> None:
    # contract §4 difference: inserted line breaks follow the file (the CLI inserts bare LF).
    (ws / "a.py").write_bytes(b"def inner():\r\n    b = lambda: 123\r\n")
    new = _preview_bytes(ws, "a.py", "$B = lambda: $R", "def $B():\n    return $R")
    assert new == b"def inner():\r\n    def b():\r\n        return 123\r\n"


def test_multiline_capture_is_deindented_and_reindented_like_cli(ws: Path, tmp_path: Path) -> None:
    src = b"class K:\n    def f(self):\n        if ok:\n            run(1,\n                2)\n"
    (ws / "k.py").write_bytes(src)
    args = ("if $C:\n    $$$B", "try:\n    if $C:\n        $$$B\nexcept E:\n    pass")
    new = _preview_bytes(ws, "k.py", *args)
    cli = _cli_bytes(tmp_path, "k.py", src, "-p", args[0], "-r", args[1])
    assert new == cli
    compile(new, "k.py", "exec")


# S2 — an identity rewrite is not a change.


async def test_s2_identity_rewrite_is_no_replacement(ws: Path) -> None:
    (ws / "t.py").write_bytes(b"t = [\n    1,\n    2,\n    3\n]\n")
    store = PendingActionStore()
    result = await create_ast_edit_tool(str(ws), store).execute(
        "c1", {"ops": [{"pat": "$X1 = $X2", "out": "$X1 = $X2"}], "lang": "python"}
    )
    assert result.text.startswith("No replacements made")
    assert store.count == 0
    assert (ws / "t.py").read_bytes() == b"t = [\n    1,\n    2,\n    3\n]\n"


# S3 — a Go call pattern needs context.

GO_SRC = b'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("OK")\n}\n'


async def test_s3_go_call_pattern_without_context_is_an_error(ws: Path) -> None:
    (ws / "main.go").write_bytes(GO_SRC)
    assert cli_json(ws, "-p", "fmt.Println($$$ARGS)", "main.go") == []  # the CLI finds nothing
    with pytest.raises(ToolError) as info:
        await create_ast_grep_tool(str(ws)).execute("c1", {"pat": ["fmt.Println($$$ARGS)"]})
    message = str(info.value)
    assert "fmt.Println($$$ARGS)" in message
    assert "sel" in message and "context" in message


def test_s3_go_call_with_context_and_selector(ws: Path, tmp_path: Path) -> None:
    (ws / "main.go").write_bytes(GO_SRC)
    pat, out = "func t() { fmt.Println($$$ARGS) }", "log.Println($$$ARGS)"
    new = _preview_bytes(ws, "main.go", pat, out, selector="call_expression")
    assert new == GO_SRC.replace(b"fmt.Println", b"log.Println")
    cli = _cli_bytes(
        tmp_path, "main.go", GO_SRC, "-p", pat, "--selector", "call_expression", "-r", out
    )
    assert cli == new


# S4 — target the argument, not the call.

S4_SRC = (
    b'fields.CharField(blank=True, help_text="x")\n'
    b"fields.FileField(blank=True)\n"
    b"fields.FileField(max_length=5, blank=True)\n"
)


def test_s4_multi_capture_leaves_stray_comma_like_cli(ws: Path, tmp_path: Path) -> None:
    (ws / "m.py").write_bytes(S4_SRC)
    pat, out = "fields.$C($$$A, blank=True, $$$B)", "fields.$C($$$A, required=False, $$$B)"
    new = _preview_bytes(ws, "m.py", pat, out)
    assert new.splitlines()[0] == b'fields.CharField(, required=False, help_text="x")'
    assert new.splitlines()[1:] == S4_SRC.splitlines()[1:]
    assert new == _cli_bytes(tmp_path, "m.py", S4_SRC, "-p", pat, "-r", out)


def test_s4_selector_rewrites_the_argument_everywhere(ws: Path, tmp_path: Path) -> None:
    (ws / "m.py").write_bytes(S4_SRC)
    preview = preview_edit(
        EditSpec(
            ops=(EditOp(pat="f(blank=True)", out="required=False"),), selector="keyword_argument"
        ),
        ScopeSpec(root=ws, path="m.py"),
    )
    assert preview.total == 3
    new = preview.files[0].new_bytes
    assert new == S4_SRC.replace(b"blank=True", b"required=False")
    cli = _cli_bytes(
        tmp_path,
        "m.py",
        S4_SRC,
        "-p",
        "f(blank=True)",
        "--selector",
        "keyword_argument",
        "-r",
        "required=False",
        "-l",
        "python",
    )
    assert cli == new


# S5 — `$$$` keeps separators.


def test_s5_multi_capture_keeps_separators_like_cli(ws: Path, tmp_path: Path) -> None:
    src = b"foo(a, b,)\nfoo()\n"
    (ws / "s.js").write_bytes(src)
    new = _preview_bytes(ws, "s.js", "foo($$$A)", "bar($$$A, c)")
    assert new == b"bar(a, b,, c)\nbar(, c)\n"
    assert new == _cli_bytes(tmp_path, "s.js", src, "-p", "foo($$$A)", "-r", "bar($$$A, c)")


# S6 — columns count code points, offsets count UTF-8 bytes; a BOM is kept.


def test_s6_json_offsets_and_columns_equal_cli(ws: Path) -> None:
    (ws / "u.js").write_text('const s = "Übergänge"; foo(1);\nconst e = "😀"; foo(2);\n', "utf-8")
    ours = [
        m.to_cli_json()
        for m in search(MatchSpec(patterns=("foo($A)",)), ScopeSpec(root=ws, path="u.js")).matches
    ]
    assert [m["range"]["byteOffset"]["start"] for m in ours] == [25, 51]
    assert [m["range"]["start"]["column"] for m in ours] == [23, 15]
    assert ours == cli_json(ws, "-p", "foo($A)", "u.js")


def test_s6_bom_file_json_equals_cli_and_bom_survives_apply(ws: Path) -> None:
    (ws / "b.js").write_bytes(b"\xef\xbb\xbffoo(1);\nfoo(2);\n")
    ours = [
        m.to_cli_json()
        for m in search(MatchSpec(patterns=("foo($A)",)), ScopeSpec(root=ws, path="b.js")).matches
    ]
    assert ours == cli_json(ws, "-p", "foo($A)", "b.js")
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="foo($A)", out="bar($A)"),)), ScopeSpec(root=ws, path="b.js")
    )
    apply_preview(preview)
    assert (ws / "b.js").read_bytes() == b"\xef\xbb\xbfbar(1);\nbar(2);\n"


# F1 — CRLF.


def test_f1_crlf_only_changed_bytes_change(ws: Path, tmp_path: Path) -> None:
    src = b"a\r\nb\r\nc\r\n"
    (ws / "c.py").write_bytes(src)
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="c", out="C"),)), ScopeSpec(root=ws, path="c.py")
    )
    assert preview.files[0].new_bytes == b"a\r\nb\r\nC\r\n"
    assert preview.files[0].new_bytes == _cli_bytes(tmp_path, "c.py", src, "-p", "c", "-r", "C")
    apply_preview(preview)
    assert (ws / "c.py").read_bytes() == b"a\r\nb\r\nC\r\n"


# F2 — modes.


@pytest.mark.parametrize("mode", [0o755, 0o600, 0o640])
async def test_f2_mode_kept_after_apply_through_resolve(ws: Path, mode: int) -> None:
    target = ws / "tool.py"
    target.write_bytes(b"print(1)\n")
    os.chmod(target, mode)
    store = PendingActionStore()
    await create_ast_edit_tool(str(ws), store).execute(
        "c1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]}
    )
    result = await create_resolve_tool(store).execute("c2", {"action": "apply", "reason": "ok"})
    assert not result.is_error, result.text
    assert target.read_bytes() == b"log(1)\n"
    assert stat.S_IMODE(target.stat().st_mode) == mode
    if mode == 0o755:
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "import os,sys; print(os.access(sys.argv[1], os.X_OK))",
                str(target),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        assert proc.stdout.strip() == "True"
