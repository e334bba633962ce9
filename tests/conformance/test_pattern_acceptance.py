"""Which patterns xcsh accepts, and what it finds with them, against the real CLI.

contract §4 lets xcsh refuse a pattern only when its tree is an ERROR node or it
cannot match anything of its own kind. Every pattern here is one the
``ast-grep`` CLI matches although part of it does not parse on its own
(``{ $$$B }`` is not a C statement, a TSX default-plus-named import with
metavariables is an ERROR node): xcsh must accept it and find exactly what
the CLI finds. The strictness tests run all five levels on a file where they
differ, including the CLI's fixed-string pre-filter that decides
``signature`` results.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xcsh import ToolError
from xcsh.structural import MatchSpec, ScopeSpec, search
from xcsh.structural.base.errors import CONTEXT_EXAMPLES
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.pattern.compile import compile_pattern
from xcsh.tools import create_ast_grep_tool

AST_GREP = Path(sys.executable).with_name("ast-grep")


def cli_json(cwd: Path, *args: str) -> list[dict[str, Any]]:
    """The objects ``ast-grep run --json=stream ARGS`` prints in ``cwd``."""
    proc = subprocess.run(
        [str(AST_GREP), "run", "--json=stream", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


C_SRC = """\
#include <stdio.h>

static int add(int a, int b) { return a + b; }

int main(int argc, char **argv) {
    if (argc > 1) { puts(argv[1]); }
    if (argc) return 1;
    while (argc > 0) { argc--; }
    for (int i = 0; i < 3; i++) { puts("x"); }
    for (;;) { break; }
    switch (argc) { case 1: puts("one"); break; default: break; }
    return add(1, 2);
}
"""

JAVA_SRC = """\
class A {
    void m(int x) {
        if (x > 0) { g(); }
        while (x > 0) { x--; }
        for (int i = 0; i < 3; i++) { g(); }
        switch (x) { case 1: g(); break; default: break; }
        try { g(); } catch (Exception e) { h(); }
    }
}
"""

PHP_SRC = """\
<?php
if ($x) { g(); }
while ($x) { $x--; }
foreach ($items as $item) { echo $item; }
foreach ($map as $k => $v) { echo $v; }
switch ($x) { case 1: g(); break; }
"""

JS_SRC = """\
switch (x) { case 1: g(); break; default: h(); }
function f(y) { switch (y) { case 2: return 1; } }
if (x) { g(); }
"""

TSX_SRC = """\
import React, { useState, useEffect } from "react";
import a, { b } from "c";
import { only } from "d";
export const App = () => <div>{a}</div>;
"""

TS_SRC = TSX_SRC.replace("<div>{a}</div>", "a")

LUA_SRC = """\
if x then
  print(x)
end
for i = 1, 10 do
  print(i)
end
local function f(y)
  if y > 1 then return y end
end
"""

RUST_SRC = """\
fn add(a: i32, b: i32) -> i32 { a + b }
fn unit() { }
impl S { fn get(&self) -> &str { "s" } }
"""

CASES: list[tuple[str, str, str, str, int]] = [
    # (lang, file name, source, pattern, matches the CLI finds at least)
    ("c", "s.c", C_SRC, "if ($C) { $$$B }", 1),
    ("c", "s.c", C_SRC, "if ($C) { $$$ }", 1),
    ("c", "s.c", C_SRC, "while ($C) { $$$B }", 1),
    ("c", "s.c", C_SRC, "switch ($X) { $$$C }", 1),
    ("c", "s.c", C_SRC, "static $T $F($$$P) { $$$B }", 1),
    ("c", "s.c", C_SRC, "for ($$$H) { $$$B }", 0),
    ("cpp", "s.cpp", C_SRC, "if ($C) { $$$B }", 1),
    ("cpp", "s.cpp", C_SRC, "for ($$$H) { $$$B }", 1),
    ("cpp", "s.cpp", C_SRC, "switch ($X) { $$$C }", 1),
    ("java", "A.java", JAVA_SRC, "if ($C) { $$$B }", 1),
    ("java", "A.java", JAVA_SRC, "while ($C) { $$$B }", 1),
    ("java", "A.java", JAVA_SRC, "for ($$$H) { $$$B }", 1),
    ("java", "A.java", JAVA_SRC, "switch ($X) { $$$C }", 1),
    ("java", "A.java", JAVA_SRC, "try { $$$A } catch ($E) { $$$B }", 1),
    ("php", "p.php", PHP_SRC, "if ($C) { $$$B }", 1),
    ("php", "p.php", PHP_SRC, "while ($C) { $$$B }", 1),
    ("php", "p.php", PHP_SRC, "foreach ($A as $B) { $$$S }", 1),
    ("javascript", "j.js", JS_SRC, "switch ($X) { $$$C }", 2),
    ("tsx", "t.tsx", TSX_SRC, "import $X, { $$$Y } from $M", 2),
    ("typescript", "t.ts", TS_SRC, "import $X, { $$$Y } from $M", 2),
    ("lua", "l.lua", LUA_SRC, "if $C then $$$B end", 2),
    ("lua", "l.lua", LUA_SRC, "for $I = $A, $B do $$$S end", 1),
    ("rust", "r.rs", RUST_SRC, "fn $F($$$P) $$$R { $$$B }", 2),
    ("python", "m.py", "def f(a):\n    pass\nx = 1\n", "def $F($$$P)", 1),
    ("python", "m.py", "def f(a):\n    pass\nx = 1\n", "$A =", 1),
    ("python", "m.py", "x = [1, 2]\ny = [1, 2, 3]\n", "[1, 2", 2),
]


def _where(objects: list[dict[str, Any]]) -> list[tuple[str, int, int, str]]:
    return sorted(
        (o["file"], o["range"]["byteOffset"]["start"], o["range"]["byteOffset"]["end"], o["text"])
        for o in objects
    )


@pytest.mark.parametrize(
    ("lang", "name", "source", "pattern", "at_least"),
    CASES,
    ids=[f"{c[0]}:{c[3]}" for c in CASES],
)
def test_patterns_the_cli_matches_are_accepted_and_find_the_same(
    tmp_path: Path, lang: str, name: str, source: str, pattern: str, at_least: int
) -> None:
    (tmp_path / name).write_text(source)
    cli = cli_json(tmp_path, "-p", pattern, "-l", lang, name)
    assert len(cli) >= at_least  # the corpus really exercises the pattern
    ours = search(
        MatchSpec(patterns=(pattern,)), ScopeSpec(root=tmp_path, path=name, lang=lang), workers=1
    )
    assert _where([m.to_cli_json() for m in ours.matches]) == _where(cli)


@pytest.mark.parametrize(
    ("lang", "pattern"),
    [
        ("python", "def ($A"),
        ("python", ")("),
        ("python", "foo($A"),
        ("javascript", "} else {"),
        ("c", "} else {"),
    ],
)
def test_error_patterns_no_code_completes_are_refused_and_the_cli_finds_nothing(
    tmp_path: Path, lang: str, pattern: str
) -> None:
    source = {
        "python": "def f(a):\n    if a:\n        foo(a)\n    else:\n        g(a)\n",
        "javascript": "if (a) { f(); } else { g(); }\n",
        "c": "void t(int a) { if (a) { f(a); } else { g(); } }\n",
    }[lang]
    name = {"python": "m.py", "javascript": "m.js", "c": "m.c"}[lang]
    (tmp_path / name).write_text(source)
    assert cli_json(tmp_path, "-p", pattern, "-l", lang, name) == []
    with pytest.raises(ToolError) as info:
        search(
            MatchSpec(patterns=(pattern,)),
            ScopeSpec(root=tmp_path, path=name, lang=lang),
            workers=1,
        )
    message = str(info.value)
    assert f"`{pattern}`" in message and "sel" in message and "ERROR" in message
    assert ".." not in message


STRICT_SRC = """\
w = g(x, y)
ok = isinstance(a, int)
both = isinstance(a,  # why
                  int)
pair = isinstance(b, (int, str))
"""


@pytest.mark.parametrize("strictness", ["cst", "smart", "ast", "relaxed", "signature"])
@pytest.mark.parametrize(
    ("pattern", "source"),
    [
        ("isinstance($A, $B)", STRICT_SRC),
        ("isinstance($A, $B)", "w = g(x, y)\n"),
        ("isinstance($A, int)", STRICT_SRC),
        ("g($A, $B)", STRICT_SRC),
        ("def $F($A): pass", "def f(a): pass\ndef g(b):\n    # c\n    pass\n"),
    ],
)
def test_every_strictness_finds_what_the_cli_finds(
    tmp_path: Path, strictness: str, pattern: str, source: str
) -> None:
    (tmp_path / "m.py").write_text(source)
    cli = cli_json(tmp_path, "-p", pattern, "--strictness", strictness, "-l", "python", "m.py")
    ours = search(
        MatchSpec(patterns=(pattern,), strictness=strictness),
        ScopeSpec(root=tmp_path, lang="python"),
        workers=1,
    )
    assert _where([m.to_cli_json() for m in ours.matches]) == _where(cli)


def test_levels_really_differ_on_the_strictness_corpus(tmp_path: Path) -> None:
    """Guards the test above: the corpus must tell the levels apart."""
    (tmp_path / "m.py").write_text(STRICT_SRC)
    counts = {
        level: len(cli_json(tmp_path, "-p", "isinstance($A, $B)", "--strictness", level, "m.py"))
        for level in ("smart", "signature")
    }
    assert counts["signature"] > counts["smart"]
    (tmp_path / "m.py").write_text("w = g(x, y)\n")  # QA: no `isinstance` in the file
    assert cli_json(tmp_path, "-p", "isinstance($A, $B)", "--strictness", "signature", "m.py") == []


@pytest.mark.parametrize("lang", sorted(CONTEXT_EXAMPLES))
def test_context_hint_examples_compile_for_their_language(lang: str) -> None:
    pattern, selector = CONTEXT_EXAMPLES[lang]
    compiled = compile_pattern(pattern, resolve_language(lang), selector=selector)
    assert compiled.selector == selector and not compiled.has_error


@pytest.mark.parametrize(
    ("lang", "pattern", "selector", "needles"),
    [
        ("tsx", ")(", None, ["in tsx", "method_definition"]),
        ("cpp", "} else {", None, ["in cpp", "call_expression"]),
        # an unknown `sel` kind is named as such, with the kinds the pattern has
        ("csharp", "f($A)", "nope_kind", ["not a csharp node kind", "invocation_expression"]),
        ("rust", "foo($A)", "nope_kind", ["not a rust node kind", "call_expression"]),
        ("lua", ")(", None, ["in lua"]),
    ],
)
def test_refusals_name_the_language_as_typed_with_a_fitting_example(
    lang: str, pattern: str, selector: str | None, needles: list[str], tmp_path: Path
) -> None:
    # A pattern that probably matches nothing is still run (the CLI may match it):
    # the error comes only when nothing was found, here in a file without code.
    (tmp_path / "empty.txt").write_text("\n")
    with pytest.raises(ToolError) as info:
        search(
            MatchSpec(patterns=(pattern,), selector=selector),
            ScopeSpec(root=tmp_path, path="empty.txt", lang=lang),
        )
    message = str(info.value)
    for needle in needles:
        assert needle in message, message
    for wrong in ("Tsx", "Cpp", "CSharp", "fmt.Println", ".."):
        assert wrong not in message, message
    assert message.endswith(".")


async def test_an_error_pattern_that_finds_nothing_says_why(tmp_path: Path) -> None:
    (tmp_path / "s.c").write_text(C_SRC)
    pattern = "for ($$$H) { $$$B }"  # the CLI accepts it, and finds nothing in C_SRC
    assert cli_json(tmp_path, "-p", pattern, "-l", "c", "s.c") == []
    tool = create_ast_grep_tool(str(tmp_path))
    result = await tool.execute("c1", {"pat": [pattern], "lang": "c"})
    text = result.content[0].text  # type: ignore[union-attr]
    assert "No matches" in text and "ERROR" in text and "`sel`" in text
    found = await tool.execute("c2", {"pat": ["if ($C) { $$$B }"], "lang": "c"})
    assert "ERROR" not in found.content[0].text  # type: ignore[union-attr]
