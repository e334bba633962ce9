"""xcsh against the real ``ast-grep`` binary on a small corpus of five languages.

For every case the corpus (``corpus/``: Python, JavaScript, TypeScript, Rust,
Go) is copied twice. The ``ast-grep`` CLI of this environment (PyPI
``ast-grep-cli``) rewrites one copy (``run -U``, or ``scan --inline-rules
-U`` for several ops); xcsh previews the same rewrite on the other copy with
the ``ast_edit`` tool and applies it through ``resolve``. The two trees must
then be byte-identical. Searches compare every ``--json=stream`` object of
the CLI with the ``ast_grep`` tool's matches (same ranges, text, captures).

The last tests cover the deliberate differences of contract §4: there we assert
xcsh's documented behaviour and show what the CLI does instead.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ast_grep_py import SgRoot

from xcsh import PendingActionStore, ToolError
from xcsh.tools import create_ast_edit_tool, create_ast_grep_tool, create_resolve_tool

CORPUS = Path(__file__).parent / "corpus"
AST_GREP = Path(sys.executable).with_name("ast-grep")


@dataclass(frozen=True)
class Case:
    """One rewrite (or search) run by both tools on one language folder."""

    folder: str
    lang: str
    ops: tuple[tuple[str, str], ...]
    sel: str | None = None
    strictness: str | None = None
    expect_changes: bool = True
    id: str = field(default="")


CASES = [
    # Python
    Case("python", "python", (("print($$$A)", "log.info($$$A)"),), id="py-multi-capture"),
    Case("python", "python", (("$A == $A", "$A is $A"),), id="py-same-metavar-twice"),
    Case(
        "python",
        "python",
        (("subprocess.Popen($$$ARGS)", "subprocess.run($$$ARGS, check=True)"),),
        id="py-rare-call-multiline-args",
    ),
    Case(
        "python",
        "python",
        (("$B = lambda: $R", "def $B():\n    return $R"),),
        id="py-multiline-rewrite-reindented",
    ),
    Case(
        "python",
        "python",
        (("for $V in $L:\n    $$$BODY", "for $V in list($L):\n    $$$BODY"),),
        id="py-multiline-pattern-and-body",
    ),
    Case(
        "python",
        "python",
        (("def $F($$$P):\n    $$$B", "async def $F($$$P):\n    $$$B"),),
        id="py-nested-matches-outermost-only",
    ),
    Case("python", "python", (("$X == None", "$X is None"),), id="py-compare-none"),
    Case(
        "python",
        "python",
        (("print($$$A)", "log.info($$$A)"), ("$X == None", "$X is None")),
        id="py-two-ops",
    ),
    Case(
        "python",
        "python",
        (("f(end=$E)", "sep=$E"),),
        sel="keyword_argument",
        id="py-selector-keyword-argument",
    ),
    Case("python", "python", (("$_($_)", ""),), id="py-anonymous-delete"),
    Case("python", "python", (("$A == $A", "True"),), strictness="ast", id="py-strictness-ast"),
    # JavaScript
    Case(
        "javascript",
        "javascript",
        (("console.log($$$A)", "logger.info($$$A)"),),
        id="js-multi-capture",
    ),
    Case("javascript", "javascript", (("foo($$$A)", "bar($$$A, c)"),), id="js-separators-kept"),
    Case("javascript", "javascript", (("var $A = $B", "let $A = $B"),), id="js-swallows-semicolon"),
    Case(
        "javascript",
        "javascript",
        (("if ($C) {\n  $$$BODY\n}", "if (!($C)) {\n  return;\n}\n$$$BODY"),),
        id="js-multiline-guard",
    ),
    Case(
        "javascript",
        "javascript",
        (("console.log($$$A)", "logger.info($$$A)"), ("var $A = $B", "let $A = $B")),
        id="js-two-ops",
    ),
    # TypeScript
    Case(
        "typescript",
        "typescript",
        (("console.log($$$A)", "logger.debug($$$A)"),),
        id="ts-multi-capture",
    ),
    Case("typescript", "typescript", (("$A === $A", "true"),), id="ts-same-metavar"),
    Case(
        "typescript",
        "typescript",
        (("let $N: $T = $V", "const $N: $T = $V"),),
        id="ts-typed-let",
    ),
    Case(
        "typescript",
        "typescript",
        (("return $E;", "const result = $E;\nreturn result;"),),
        id="ts-multiline-rewrite-in-methods",
    ),
    # Rust
    Case("rust", "rust", (("$E.unwrap()", "$E?"),), id="rs-unwrap"),
    Case("rust", "rust", (("println!($$$A)", "log::info!($$$A)"),), id="rs-macro-args"),
    Case("rust", "rust", (("$A == $A", "true"),), id="rs-same-metavar"),
    Case(
        "rust",
        "rust",
        (
            (
                "let $N = $E.unwrap();",
                "let $N = match $E {\n    Some(v) => v,\n    None => return,\n};",
            ),
        ),
        id="rs-multiline-rewrite",
    ),
    Case(
        "rust",
        "rust",
        (("$E.unwrap()", "$E?"), ("println!($$$A)", "log::info!($$$A)")),
        id="rs-two-ops",
    ),
    # Go (tab-indented: single-line rewrites here; multi-line ones are a deliberate difference)
    Case(
        "go",
        "go",
        (("func t() { fmt.Println($$$A) }", "log.Println($$$A)"),),
        sel="call_expression",
        id="go-selector-call",
    ),
    Case("go", "go", (("$A == $A", "true"),), id="go-same-metavar"),
    Case(
        "go",
        "go",
        (("func t() { $F.New($S) }", "fmt.Errorf($S)"),),
        sel="call_expression",
        id="go-selector-single-capture",
    ),
]


def _ast_grep(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert AST_GREP.exists(), "ast-grep (PyPI ast-grep-cli) is not installed in this environment"
    return subprocess.run(
        [str(AST_GREP), *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


def _copy(tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(CORPUS, dest)
    return dest


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _cli_rewrite(case: Case, root: Path) -> None:
    if len(case.ops) == 1:
        pat, out = case.ops[0]
        args = ["run", "-p", pat, "-r", out, "-l", case.lang, "-U"]
        if case.sel:
            args += ["--selector", case.sel]
        if case.strictness:
            args += ["--strictness", case.strictness]
        done = _ast_grep(*args, case.folder, cwd=root)
    else:  # several ops: one rule each (YAML accepts JSON objects), all fixes applied at once
        rules = "\n---\n".join(
            json.dumps(
                {"id": f"op{i}", "language": case.lang, "rule": {"pattern": pat}, "fix": out}
            )
            for i, (pat, out) in enumerate(case.ops)
        )
        done = _ast_grep("scan", "--inline-rules", rules, "-U", case.folder, cwd=root)
    assert done.returncode == 0, done.stderr


async def _xcsh_rewrite(case: Case, root: Path) -> dict[str, Any]:
    store = PendingActionStore()
    params: dict[str, Any] = {
        "ops": [{"pat": pat, "out": out} for pat, out in case.ops],
        "lang": case.lang,
        "path": case.folder,
        "include_broken": True,  # compare with the CLI, which writes rewrites that break code
    }
    if case.sel:
        params["sel"] = case.sel
    if case.strictness:
        params["strictness"] = case.strictness
    preview = await create_ast_edit_tool(str(root), store).execute("conformance", params)
    if not store.has_pending:
        return {"preview": preview}
    result = await create_resolve_tool(store).execute(
        "resolve", {"action": "apply", "reason": "conformance"}
    )
    assert not result.is_error, result.text
    return {"preview": preview, "resolve": result}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_rewrite_is_byte_identical_to_the_cli(case: Case, tmp_path: Path) -> None:
    theirs = _copy(tmp_path, "cli")
    ours = _copy(tmp_path, "xcsh")
    original = _snapshot(ours)
    _cli_rewrite(case, theirs)
    await _xcsh_rewrite(case, ours)
    assert _snapshot(ours) == _snapshot(theirs)
    if case.expect_changes:
        assert _snapshot(ours) != original, "the case should change something"


def _key(obj: dict[str, Any]) -> tuple[str, int, int]:
    offsets = obj["range"]["byteOffset"]
    return (obj["file"], offsets["start"], offsets["end"])


SEARCH_CASES = [c for c in CASES if len(c.ops) == 1]


@pytest.mark.parametrize("case", SEARCH_CASES, ids=[c.id for c in SEARCH_CASES])
async def test_search_matches_equal_the_cli_json(case: Case, tmp_path: Path) -> None:
    pat = case.ops[0][0]
    args = ["run", "-p", pat, "-l", case.lang, "--json=stream"]
    if case.sel:
        args += ["--selector", case.sel]
    if case.strictness:
        args += ["--strictness", case.strictness]
    theirs = [
        json.loads(line) for line in _ast_grep(*args, case.folder, cwd=CORPUS).stdout.splitlines()
    ]
    params: dict[str, Any] = {"pat": [pat], "lang": case.lang, "path": case.folder, "limit": 10_000}
    if case.sel:
        params["sel"] = case.sel
    if case.strictness:
        params["strictness"] = case.strictness
    result = await create_ast_grep_tool(str(CORPUS)).execute("conformance", params)
    ours = result.details["matches"]
    assert sorted(ours, key=_key) == sorted(theirs, key=_key)
    assert theirs, "the case should match something"


# --- deliberate differences (contract §4): xcsh's documented behaviour is asserted ---------------


async def test_crlf_file_gets_crlf_line_breaks_in_a_multiline_rewrite(tmp_path: Path) -> None:
    """Deliberate difference: the CLI inserts bare LF into a CRLF file; xcsh follows the
    file's line ending. Apart from that, the result equals the CLI's."""
    source = (CORPUS / "javascript" / "index.js").read_bytes().replace(b"\n", b"\r\n")
    for name in ("cli", "xcsh"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.js").write_bytes(source)
    case = Case(
        ".",
        "javascript",
        (("if ($C) {\n  $$$BODY\n}", "if (!($C)) {\n  return;\n}\n$$$BODY"),),
    )
    _cli_rewrite(case, tmp_path / "cli")
    await _xcsh_rewrite(case, tmp_path / "xcsh")
    cli = (tmp_path / "cli" / "index.js").read_bytes()
    ours = (tmp_path / "xcsh" / "index.js").read_bytes()
    assert re.search(rb"(?<!\r)\n", cli), "the CLI is expected to insert bare LF here"
    assert not re.search(rb"(?<!\r)\n", ours), "every line break of ours is CRLF"
    assert ours == re.sub(rb"(?<!\r)\n", b"\r\n", cli)


async def test_tab_indented_multiline_rewrite_keeps_tabs(tmp_path: Path) -> None:
    """Deliberate difference: the CLI re-indents inserted lines with spaces only; in a
    tab-indented Go file xcsh indents the rewrite's new lines with the file's tabs."""
    root = _copy(tmp_path, "xcsh")
    case = Case(
        "go",
        "go",
        (("fmt.Println($S, $E)", "if $E != nil {\n\tlog.Println($S, $E)\n}"),),
    )
    await _xcsh_rewrite(case, root)
    text = (root / "go" / "main.go").read_text(encoding="utf-8")
    assert '\t\tif err != nil {\n\t\t\tlog.Println("error:", err)\n\t\t}\n' in text
    assert not re.search(r"^ +\S", text, flags=re.MULTILINE), "no space-indented line"


async def test_tab_indented_multiline_capture_keeps_the_file_tabs(tmp_path: Path) -> None:
    """Deliberate difference: a multi-line `$$$B` moved to another indentation is
    re-indented with the file's tabs by xcsh; the CLI adds or removes spaces only, which
    leaves `\t\treturn` and ` }` behind. Both keep the same code on each line, and ours
    parses without errors."""
    theirs = _copy(tmp_path, "cli")
    ours = _copy(tmp_path, "xcsh")
    case = Case("go", "go", (("if $C { $$$B }", "if !($C) { $$$B }"),))
    _cli_rewrite(case, theirs)
    await _xcsh_rewrite(case, ours)
    cli = (theirs / "go" / "main.go").read_text(encoding="utf-8")
    mine = (ours / "go" / "main.go").read_text(encoding="utf-8")
    assert mine != cli
    assert [line.strip() for line in mine.splitlines()] == [
        line.strip() for line in cli.splitlines()
    ]
    assert re.search(r"^ ", cli, flags=re.MULTILINE), "the CLI leaves a space-indented line"
    assert not re.search(r"^ ", mine, flags=re.MULTILINE), "ours indents with tabs only"
    assert '\tif !(err != nil) { fmt.Println("error:", err)\n\treturn\n' in mine
    tree = SgRoot(mine, "go").root()
    assert tree.find(kind="ERROR") is None


async def test_unbound_metavariable_in_rewrite_is_an_error(tmp_path: Path) -> None:
    """Deliberate difference: the CLI silently inserts nothing for `$B`; xcsh refuses."""
    root = _copy(tmp_path, "xcsh")
    cli = _ast_grep(
        "run",
        "-p",
        "print($A)",
        "-r",
        "log($B)",
        "-l",
        "python",
        "--json=stream",
        "python",
        cwd=root,
    )
    assert '"replacement":"log()"' in cli.stdout
    before = _snapshot(root)
    with pytest.raises(ToolError, match=r"\$B"):
        await _xcsh_rewrite(Case("python", "python", (("print($A)", "log($B)"),)), root)
    assert _snapshot(root) == before


async def test_error_node_pattern_is_an_error_that_suggests_a_selector(tmp_path: Path) -> None:
    """Deliberate difference: `fmt.Println($$$ARGS)` parses as an ERROR node in Go; the CLI
    finds nothing, xcsh says so and suggests `sel` with more context (contract case S3)."""
    cli = _ast_grep(
        "run", "-p", "fmt.Println($$$ARGS)", "-l", "go", "--json=stream", "go", cwd=CORPUS
    )
    assert cli.stdout.strip() == ""
    with pytest.raises(ToolError, match="sel"):
        await create_ast_grep_tool(str(CORPUS)).execute(
            "c", {"pat": ["fmt.Println($$$ARGS)"], "lang": "go", "path": "go"}
        )


async def test_files_with_parse_errors_are_skipped_by_ast_edit(tmp_path: Path) -> None:
    """Deliberate difference: the CLI rewrites a file with syntax errors too; ast_edit leaves
    it alone and lists it. Every other file equals the CLI's result."""
    theirs = _copy(tmp_path, "cli")
    ours = _copy(tmp_path, "xcsh")
    broken = "def half(:\n    print('typed halfway')\n"
    for root in (theirs, ours):
        (root / "python" / "broken.py").write_text(broken, encoding="utf-8")
    case = Case("python", "python", (("print($$$A)", "log.info($$$A)"),))
    _cli_rewrite(case, theirs)
    outcome = await _xcsh_rewrite(case, ours)
    assert "log.info('typed halfway')" in (theirs / "python" / "broken.py").read_text()
    assert (ours / "python" / "broken.py").read_text() == broken
    skipped = outcome["preview"].details["skipped"]
    assert {"file": "python/broken.py", "reason": "parse errors"} in skipped
    mine, cli = _snapshot(ours), _snapshot(theirs)
    del mine["python/broken.py"], cli["python/broken.py"]
    assert mine == cli
