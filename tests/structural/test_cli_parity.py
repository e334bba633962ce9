"""Minimal cases where xcsh used to answer otherwise than the ``ast-grep`` CLI.

Each runs the real binary (PyPI ast-grep-cli) on the same files and expects
the same JSON objects (files compared in sorted order: the CLI walks in
parallel) and, for rewrites, the same bytes after ``-U``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sgcli import ast_grep_binary, cli_json

from xcsh import ToolError
from xcsh.structural import (
    EditOp,
    EditSpec,
    MatchSpec,
    ScopeSpec,
    apply_preview,
    preview_edit,
    search,
)


def _sorted(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(objs, key=lambda o: (o["file"], o["range"]["byteOffset"]["start"]))


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _ours(root: Path, pattern: str, *args: str) -> list[dict[str, Any]]:
    lang: str | None = None
    what = MatchSpec(patterns=(pattern,))
    paths = []
    items = iter(args)
    for arg in items:
        if arg == "-l":
            lang = next(items)
        elif arg == "--strictness":
            what = dataclasses.replace(what, strictness=next(items))
        else:
            paths.append(arg)
    found: list[dict[str, Any]] = []
    for path in paths or ["."]:
        where = ScopeSpec(root=root, path=path, lang=lang)
        found += [m.to_cli_json() for m in search(what, where).matches]
    return _sorted(found)


# Cause 1: patterns the CLI matches although their own parse looks wrong.
REFUSED_BEFORE = [
    ("a.cs", "using System.Text;\nnamespace N { class C { } }\n", "using $NS;", "cs"),
    ("a.cs", "using System.Text;\nnamespace N { class C { } }\n", "namespace $N { $$$B }", "cs"),
    ("a.html", "<input>\n", "<$TAG>", "html"),
    ("a.html", "<div class='foo'></div>\n", "<$TAG class='foo'>$$$</$TAG>", "html"),
    ("a.json", "[123]\n", "[$A]", "json"),
    ("a.go", 'package main\n\nimport "fmt"\n', "import $X", "go"),
]


@pytest.mark.parametrize(("name", "text", "pattern", "lang"), REFUSED_BEFORE)
def test_patterns_the_cli_matches_are_never_refused(
    tmp_path: Path, name: str, text: str, pattern: str, lang: str
) -> None:
    _write(tmp_path, {name: text})
    expected = _sorted(cli_json(tmp_path, "-p", pattern, "-l", lang, name))
    assert expected, "the CLI matches it"
    assert _ours(tmp_path, pattern, "-l", lang, name) == expected


def test_html_rewrite_with_a_multi_capture_as_the_cli(tmp_path: Path) -> None:
    src = "<div class='foo'>bar</div>\n"
    _write(tmp_path, {"a.html": src})
    pattern, rewrite = "<$TAG class='foo'>$$$B</$TAG>", "<$TAG class='$$$B'>foo</$TAG>"
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat=pattern, out=rewrite),)), ScopeSpec(root=tmp_path, lang="html")
    )
    apply_preview(preview)
    ours = (tmp_path / "a.html").read_text()
    (tmp_path / "a.html").write_text(src)
    subprocess.run(
        [ast_grep_binary(), "run", "-p", pattern, "-r", rewrite, "-l", "html", "-U", "."],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    assert ours == (tmp_path / "a.html").read_text() == "<div class='bar'>foo</div>\n"


def test_a_pattern_that_cannot_match_there_is_still_refused_when_nothing_is_found(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {"a.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("OK")\n}\n'},
    )
    assert cli_json(tmp_path, "-p", "fmt.Println($$$ARGS)", "a.go") == []
    with pytest.raises(ToolError, match="call_expression"):
        search(MatchSpec(patterns=("fmt.Println($$$ARGS)",)), ScopeSpec(root=tmp_path))


# Cause 2: code embedded in HTML.
EMBEDDED = {
    "a.html": (
        "<html>\n<script>alert(1)</script>\n"
        '<script lang="ts">alert(2 as number)</script>\n<style>a { color: red }</style>\n</html>\n'
    ),
    "b.js": "alert(3)\n",
}


@pytest.mark.parametrize("args", [("-l", "js"), ("-l", "ts"), ()])
def test_script_elements_of_html_files_are_searched(tmp_path: Path, args: tuple[str, ...]) -> None:
    _write(tmp_path, EMBEDDED)
    expected = _sorted(cli_json(tmp_path, "-p", "alert($A)", *args, "."))
    assert len(expected) == {("-l", "js"): 2, ("-l", "ts"): 1, (): 3}[args]
    assert _ours(tmp_path, "alert($A)", *args, ".") == expected


def test_rewrites_land_inside_script_elements_as_with_the_cli(tmp_path: Path) -> None:
    _write(tmp_path / "ours", EMBEDDED)
    _write(tmp_path / "cli", EMBEDDED)
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="alert($A)", out="confirm($A)"),)),
        ScopeSpec(root=tmp_path / "ours", lang="js"),
    )
    apply_preview(preview)
    subprocess.run(
        [ast_grep_binary(), "run", "-p", "alert($A)", "-r", "confirm($A)", "-l", "js", "-U"],
        cwd=tmp_path / "cli",
        capture_output=True,
        check=True,
    )
    for name in EMBEDDED:
        assert (tmp_path / "ours" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert "<script>confirm(1)</script>" in (tmp_path / "ours" / "a.html").read_text()


# Causes 3 and 4: metavariables the CLI reports (and does not).
CAPTURES = [
    ("a.js", "function f() { return 123 }\n", "return $$A", ()),
    ("a.rs", "fn main() { let f = |x, y| x + y; }\n", "|$$A, $$B| $C", ()),
    ("a.tsx", "print(b)\n", "print($$$A,b,$$$C)", ("--strictness", "ast")),
    ("a.tsx", "print(b, c)\n", "print($$$A,b,$$$C)", ("--strictness", "ast")),
    ("a.tsx", "f()\n", "f($$$A)", ("--strictness", "ast")),
    ("a.tsx", "print(b)\n", "print(b, $$$C)", ("--strictness", "ast")),
]


@pytest.mark.parametrize(("name", "text", "pattern", "args"), CAPTURES)
def test_metavariables_reported_as_the_cli(
    tmp_path: Path, name: str, text: str, pattern: str, args: tuple[str, ...]
) -> None:
    _write(tmp_path, {name: text})
    expected = _sorted(cli_json(tmp_path, "-p", pattern, *args, name))
    assert expected, "the CLI matches it"
    assert _ours(tmp_path, pattern, *args, name) == expected


# Cause 5: empty files.
def test_an_empty_file_has_no_match_and_is_never_written(tmp_path: Path) -> None:
    (tmp_path / "a.go").write_bytes(b"")
    assert cli_json(tmp_path, "-p", "$VAR", "a.go") == []
    assert search(MatchSpec(patterns=("$VAR",)), ScopeSpec(root=tmp_path)).total == 0
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="$VAR", out="package main"),)), ScopeSpec(root=tmp_path)
    )
    assert preview.files == []
    assert (tmp_path / "a.go").read_bytes() == b""


# Cause 6: the nested matches of an edit in JSON output.
def test_edit_json_lists_nested_matches_as_the_cli(tmp_path: Path) -> None:
    _write(tmp_path, {"a.rs": "fn main() { let a = Some(Some(1)); }\n"})
    proc = subprocess.run(
        [ast_grep_binary(), "run", "-p", "Some($A)", "-r", "$A", "--json=stream", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = [json.loads(line) for line in proc.stdout.splitlines()]
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="Some($A)", out="$A"),)), ScopeSpec(root=tmp_path), captures=True
    )
    ours = [json.loads(f.record(r)) for f in preview.files for r in f.listed()]
    assert len(expected) == 2 and ours == expected
    assert preview.total == 1  # the nested one is listed, never written


# Cause 7: options and languages.
@pytest.mark.parametrize(
    ("name", "text", "pattern", "args"),
    [
        ("a.py", "print(1)\n", "print($A)", ("--strictness", "template")),
        ("a.md", "# hi\n\nsome text\n", "# $A", ()),
        ("a.dart", "void main() { print(1); }\n", "print($A)", ("--strictness", "template")),
    ],
)
def test_template_strictness_markdown_and_dart(
    tmp_path: Path, name: str, text: str, pattern: str, args: tuple[str, ...]
) -> None:
    _write(tmp_path, {name: text})
    expected = _sorted(cli_json(tmp_path, "-p", pattern, *args, name))
    assert expected, "the CLI matches it"
    assert _ours(tmp_path, pattern, *args, name) == expected


# Walks and scopes.
def test_mixed_ts_tsx_project_found_in_one_run_as_the_cli(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "package.json": '{"name": "app", "scripts": {}}\n',
            "src/a.ts": "console.log(1 as number);\n",
            "src/b.tsx": "export const B = () => <div>{console.warn('x')}</div>;\n",
            "run.sh": "echo console.log\n",
        },
    )
    expected = _sorted(cli_json(tmp_path, "-p", "console.$M($$$A)"))
    assert {o["language"] for o in expected} == {"TypeScript", "Tsx"}
    assert _ours(tmp_path, "console.$M($$$A)") == expected


def test_hidden_files_and_named_ignored_folders_as_the_cli(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "src/.f.py": "print(1)\n",
            ".g.py": "print(2)\n",
            ".h/x.py": "print(3)\n",
            "build/y.py": "print(4)\n",
            "src/ok.py": "print(5)\n",
            ".gitignore": "build/\n",
        },
    )
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    for path in (".", "src", "build", ".h", "src/.f.py"):
        expected = _sorted(cli_json(tmp_path, "-p", "print($A)", path))
        assert _ours(tmp_path, "print($A)", path) == expected, path
    # as the CLI: hidden files are left out of walks, an ignored folder named is searched
    assert [o["file"] for o in _ours(tmp_path, "print($A)", ".")] == ["src/ok.py"]
    assert [o["file"] for o in _ours(tmp_path, "print($A)", "build")] == ["build/y.py"]


def test_node_modules_and_hidden_files_with_a_language_as_the_cli(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "node_modules/pkg/m.py": "print(1)\n",
            "src/.f.py": "print(2)\n",
            ".top.py": "print(3)\n",
            ".hid/h.py": "print(4)\n",
            "src/a.py": "print(5)\n",
            "vendor/node_modules/n.py": "print(6)\n",
            "vendor/.ignore": "node_modules/\n",
        },
    )
    for args in ((), ("-l", "python"), ("-l", "python", "src")):
        expected = _sorted(cli_json(tmp_path, "-p", "print($A)", *args))
        assert _ours(tmp_path, "print($A)", *args) == expected, args
    # node_modules is walked unless an ignore file lists it; with a language the
    # walk also takes the hidden files of visible folders, never hidden folders
    plain = [o["file"] for o in _sorted(_ours(tmp_path, "print($A)"))]
    assert plain == ["node_modules/pkg/m.py", "src/a.py"]
    by_language = [o["file"] for o in _sorted(_ours(tmp_path, "print($A)", "-l", "python"))]
    assert by_language == [".top.py", "node_modules/pkg/m.py", "src/.f.py", "src/a.py"]


# Files holding a pattern's identifier only inside longer words are not parsed: the same
# matches as the CLI, which parses them.
INSIDE_WORDS = {
    "words.py": "import pprint\npprint.pprint(x)\nfingerprint(y)\nprint_function = 1\n",
    "spaced.py": "print (1)\nx.print(2)\n",
    "glued.py": "1print(3)\nv = 'print'\n",
    "unicode.py": "éprint(4)\nprinté(5)\n",
    "comment.py": "# print(6)\nprinted(7)\n",
    "shadow.py": "def f(print): print(8)\n",
    "tabs.py": "if x:\n\tprint(9)\n",
}


@pytest.mark.parametrize(
    ("pattern", "lang", "files"),
    [
        ("print($$$A)", "python", INSIDE_WORDS),
        ("print", "python", INSIDE_WORDS),
        ("$A.print($$$B)", "python", INSIDE_WORDS),
        (
            "console.log($A)",
            "js",
            {
                "a.js": "console.logger(1)\nmyconsole.log(2)\n",
                "b.js": "$console.log(3)\nconsole.log$(4)\nconsole.log(5)\n",
                "c.js": "console.log_(6)\n`${console.log(7)}`\n",
            },
        ),
    ],
)
def test_identifiers_inside_longer_words_match_as_the_cli(
    tmp_path: Path, pattern: str, lang: str, files: dict[str, str]
) -> None:
    _write(tmp_path, files)
    expected = _sorted(cli_json(tmp_path, "-p", pattern, "-l", lang))
    assert expected, "the CLI matches some"
    assert _ours(tmp_path, pattern, "-l", lang) == expected


def test_a_file_with_the_identifier_only_inside_longer_words_is_not_parsed() -> None:
    from xcsh.structural import compile_pattern, resolve_language

    pattern = compile_pattern("print($$$A)", resolve_language("python"))
    for raw in (b"pprint.pprint(x)\n", b"print_function(1)\n", b"fingerprint(y)\n"):
        assert not pattern.may_match(raw, "a.py"), raw
    for raw in (b"print(1)\n", b"x = print (2)\n", b"1print(3)\n", b"\xc3\xa9print(4)\n"):
        assert pattern.may_match(raw, "a.py"), raw
