"""A rule's fix, ``rewrite`` sources and rewriters' fixes may only use metavariables the
rule binds; the set of rules refused is the real ``ast-grep scan``'s, edge cases included.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sgcli import ast_grep_binary

from helpers import run_xcsh
from xcsh import PendingActionStore
from xcsh.structural import MatchSpec, RuleError, ScopeSpec, parse_rules, search
from xcsh.tools import create_ast_edit_tool

SOURCE = "print(3)\ndef f():\n    print(4)\n"
HEAD = "id: x\nlanguage: python\n"
REWRITE_A = (
    "rule: {pattern: print($A)}\nrewriters:\n  - id: r\n    rule: {pattern: $X}\n    fix: z(FIX)\n"
    "transform:\n  C: {rewrite: {source: SRC, rewriters: [r]}}\nfix: log($C)\n"
)

# (rule after `id`/`language`, the YAML path xcsh names when refused, or None)
CASES = [
    ("rule: {pattern: print($A)}\nfix: log($B)\n", "fix"),
    ("rule: {pattern: print($A)}\nfix: {template: log($B)}\n", "fix.template"),
    ("rule: {pattern: print($$$A)}\nfix: log($$$B)\n", "fix"),
    ("rule: {pattern: print($A)}\nfix: log($_)\n", "fix"),
    ("rule: {pattern: print($_X)}\nfix: log($_X)\n", "fix"),
    ("rule: {pattern: print($A)}\nfix: log($$$_)\n", "fix"),
    ("rule: {pattern: print($A)}\nfix: log($A1)\n", "fix"),
    ("rule: {kind: call}\nfix: log($A)\n", "fix"),
    ("rule: {kind: call, regex: print}\nfix: log($A)\n", "fix"),
    (
        "rule: {pattern: print($A)}\nfix: {template: log($E), expandEnd: {pattern: $E}}\n",
        "fix.template",
    ),
    (REWRITE_A.replace("FIX", "$Y").replace("SRC", "$A"), "rewriters[0].fix"),
    (REWRITE_A.replace("FIX", "$X").replace("SRC", "$Q"), "transform.C.rewrite.source"),
    # accepted by the CLI: every pattern of the tree counts, arity does not
    ("rule: {pattern: print($$$A)}\nfix: log($A)\n", None),
    ("rule: {pattern: print($A)}\nfix: log($$$A, $$A)\n", None),
    ("rule: {pattern: print($$A)}\nfix: log($$A)\n", None),
    ("rule: {pattern: print($A)}\nfix: log($a, $1, $$, $1A, $$$)\n", None),
    ("rule: {kind: call, has: {pattern: $A, kind: argument_list}}\nfix: log($A)\n", None),
    (
        'rule:\n  pattern: print($A)\n  inside: {pattern: "def $F(): $$$B", stopBy: end}\n'
        "fix: log($F)\n",
        None,
    ),
    ("rule: {any: [{pattern: print($A)}, {pattern: log($B)}]}\nfix: log($B)\n", None),
    ("rule: {kind: call, not: {pattern: foo($A)}}\nfix: log($A)\n", None),
    ("rule: {pattern: {context: print($A), selector: call}}\nfix: log($A)\n", None),
    ("rule: {pattern: print($A)}\nconstraints: {A: {pattern: $Q}}\nfix: log($Q)\n", None),
    ("utils: {u: {pattern: print($B)}}\nrule: {matches: u}\nfix: log($B)\n", None),
    ("utils: {u: {pattern: foo($B)}}\nrule: {pattern: print($A)}\nfix: log($B)\n", None),
    (
        "rule: {pattern: print($A)}\ntransform:\n  D: {substring: {source: $C}}\n"
        "  C: {substring: {source: $A}}\nfix: log($D)\n",
        None,
    ),
    (REWRITE_A.replace("FIX", "$A").replace("SRC", "$A"), None),
]


@pytest.mark.parametrize(("body", "refused_at"), CASES)
def test_fix_metavariables_are_checked_as_ast_grep_scan_checks(
    body: str, refused_at: str | None, tmp_path: Path
) -> None:
    (tmp_path / "b.py").write_text(SOURCE)
    (tmp_path / "r.yml").write_text(HEAD + body)
    cli = subprocess.run(
        [ast_grep_binary(), "scan", "--rule", "r.yml", "--json=stream", "b.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    if refused_at is not None:
        assert "Undefined meta var" in cli.stderr, cli.stdout
        with pytest.raises(RuleError) as info:
            parse_rules(HEAD + body, origin="r.yml")
        assert info.value.yaml_path == refused_at
        assert "nothing could be inserted" in str(info.value) or "not bound" in str(info.value)
        return
    assert cli.returncode == 0, cli.stderr
    expected = [json.loads(line)["replacement"] for line in cli.stdout.splitlines()]
    rules = parse_rules(HEAD + body, origin="r.yml")
    found = search(MatchSpec(rules=tuple(rules)), ScopeSpec(root=tmp_path), workers=1)
    assert [m.to_cli_json()["replacement"] for m in found.matches] == expected


async def test_an_undefined_fix_metavariable_never_deletes_code(
    tmp_path: Path, xcsh_home: Path
) -> None:
    bad = HEAD + "rule:\n  pattern: print($A)\nfix: log($B)\n"
    (tmp_path / "b.py").write_text("print(3)\n")
    (tmp_path / "bad.yml").write_text(bad)
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "bad.yml").write_text(bad)
    (tmp_path / "sgconfig.yml").write_text("ruleDirs: [rules]\n")
    for args in (
        ("ast-edit", "--rule", "bad.yml", "--yes", "b.py"),
        ("ast-grep", "--rule", "bad.yml", "b.py"),
        ("scan", "--fix", "--yes"),
    ):
        done = run_xcsh(args, cwd=tmp_path, home=xcsh_home, inherit=True)
        assert done.returncode == 2, (args, done.stdout)
        assert "bad.yml rule `x`: fix: the fix `log($B)` uses `$B`" in done.stderr, args
        assert "Traceback" not in done.stderr
    assert (tmp_path / "b.py").read_text() == "print(3)\n"

    edit = create_ast_edit_tool(str(tmp_path), PendingActionStore())
    with pytest.raises(RuleError, match=r"fix: the fix `log\(\$B\)` uses `\$B`"):
        await edit.execute("e", {"rule": bad, "path": "b.py"})
