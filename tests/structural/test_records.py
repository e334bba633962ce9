"""Printed match records (``xcsh ast-grep`` output rendered straight from the nodes).

The command prints records without building ``Match`` objects; what it prints
must be exactly the ``Match`` path's output: ``to_cli_json()`` serialised as
the command always did, and the text lines of ``format_match_lines``. Both
paths run over the conformance corpus and rule set, and over files where byte
offsets and code points differ (non-ASCII text, a BOM, CRLF, one long line),
where the records are also checked against the real ``ast-grep`` CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sgcli import cli_json

from xcsh.cli.ast_grep_cmd import format_match_lines
from xcsh.structural import (
    Match,
    MatchSpec,
    RecordFormat,
    ScopeSpec,
    iter_matches,
    iter_records,
    load_rule_file,
)
from xcsh.structural.rules.compile import CompiledRule

CONFORMANCE = Path(__file__).parent.parent / "conformance"
CORPUS = CONFORMANCE / "corpus"
RULE_CASES = sorted(p.parent for p in (CONFORMANCE / "rules").glob("*/rule.yml"))

PATTERNS = {
    "python": ["print($$$A)", "$A == $B", "def $F($$$P): $$$B", "$X.$Y($$$Z)"],
    "javascript": ["console.log($$$A)", "function $F($$$P) { $$$B }", "$A === $B"],
    "typescript": ["$A: $T", "class $C { $$$B }", "$O.$M($$$A)"],
    "go": ["fmt.Println($$$A)", "if $C { $$$B }", "func $F($$$P) $R { $$$B }"],
    "rust": ["println!($$$A)", "let $X = $Y;", "fn $F($$$P) { $$$B }"],
}


def _json_line(match: Match) -> str:
    return json.dumps(match.to_cli_json(), ensure_ascii=False, separators=(",", ":")) + "\n"


def _text(match: Match) -> str:
    head = ""
    if match.rule is not None:
        label = f"{match.rule.severity}[{match.rule.id}]"
        head = f"{label}: {match.rule.message}\n" if match.rule.message else f"{label}\n"
    lines = format_match_lines(match)
    return head + "".join(f"{match.file}{pos}{line}\n" for pos, line, _, _ in lines)


def _both(
    root: Path,
    patterns: list[str],
    *,
    lang: str | None = None,
    path: str | None = None,
    rules: list[CompiledRule] | None = None,
) -> None:
    what = MatchSpec(patterns=tuple(patterns), rules=tuple(rules or ()))
    where = ScopeSpec(root=root, path=path, lang=lang)
    matches = list(iter_matches(what, where, workers=1))
    for as_json, expected in ((True, _json_line), (False, _text)):
        records = iter_records(what, where, RecordFormat(json=as_json))
        assert list(records) == [expected(m) for m in matches]


@pytest.mark.parametrize("lang", sorted(PATTERNS))
def test_records_print_what_the_matches_say_over_the_corpus(lang: str) -> None:
    for pattern in PATTERNS[lang]:
        _both(CORPUS, [pattern], lang=lang, path=lang)


def test_records_of_rules_print_what_the_matches_say() -> None:
    assert len(RULE_CASES) >= 25
    for case in RULE_CASES:
        rules = load_rule_file(case / "rule.yml", display="rule.yml", strict=False)
        _both(case, [], rules=rules)


def test_several_patterns_in_one_file_are_printed_in_source_order(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = f(1) == g(2)\nprint(f(3))\n")
    _both(tmp_path, ["f($A)", "$A == $B", "print($$$A)"], lang="python")


def test_byte_offsets_of_non_ascii_bom_crlf_and_a_long_line_equal_the_cli(tmp_path: Path) -> None:
    bom = "\ufeff# café\r\nprint('é', 1)\r\nif ok:\r\n    print(\r\n        'ü',\r\n    )\r\n"
    (tmp_path / "bom.py").write_bytes(bom.encode())
    (tmp_path / "long.py").write_text("".join(f"print('ā{i}', 'ß'); " for i in range(300)) + "\n")
    (tmp_path / "mixed.py").write_text("s = '日本'\nprint(s, '語', x)\n")
    _both(tmp_path, ["print($$$A)"], lang="python")
    _both(tmp_path, ["print($A, $$$B)"], lang="python")
    what = MatchSpec(patterns=("print($$$A)",))
    records = list(iter_records(what, ScopeSpec(root=tmp_path), RecordFormat(json=True)))
    key = lambda obj: (obj["file"], obj["range"]["byteOffset"]["start"])  # noqa: E731
    theirs = sorted(cli_json(tmp_path, "-p", "print($$$A)", "-l", "python", "."), key=key)
    assert len(theirs) == 303
    assert sorted((json.loads(r) for r in records), key=key) == theirs


def test_file_names_are_printed_relative_to_the_current_folder_or_absolute() -> None:
    form = RecordFormat(json=False, root="/w/repo", cwd="/w/repo/sub")
    assert form.name("sub/a.py") == "a.py"
    assert form.name("b.py") == "../b.py"
    assert RecordFormat(json=False, root="/w/repo", absolute=True).name("b.py") == "/w/repo/b.py"
    assert RecordFormat(json=False).name("b.py") == "b.py"


def test_records_from_the_process_pool_equal_those_made_in_process(tmp_path: Path) -> None:
    # 20 files of ~60 KB: large enough for the pool, whose records cross a pipe.
    body = "".join(f"x{j} = {j}\n" if j % 50 else f"print('é{j}', x)\n" for j in range(6000))
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text(body)
    what, where, form = (
        MatchSpec(patterns=("print($$$A)",)),
        ScopeSpec(root=tmp_path),
        RecordFormat(json=True),
    )
    pooled = list(iter_records(what, where, form, workers=2))
    alone = list(iter_records(what, where, form, workers=1))
    assert len(pooled) == 20 * 120
    assert pooled == alone
    assert alone == [_json_line(m) for m in iter_matches(what, where)]


def test_keep_last_holds_the_last_files_trees_only(tmp_path: Path) -> None:
    # The trees of earlier files are freed as the walk moves on; only the last
    # file's are handed over, for a process that exits right after printing.
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("print(1)\nprint(2)\n")
    what, where, form = (
        MatchSpec(patterns=("print($$$A)",)),
        ScopeSpec(root=tmp_path),
        RecordFormat(json=True),
    )
    kept: list[object] = []
    records = list(iter_records(what, where, form, keep_last=kept))
    assert len(records) == 6
    assert len(kept) == 1
    assert records == list(iter_records(what, where, form))
    (tmp_path / "c.py").write_text("nothing = 0\n")  # the last file has no match
    kept.clear()
    assert len(list(iter_records(what, where, form, keep_last=kept))) == 4
    assert kept == []
    pooled: list[object] = []  # a worker's trees never reach this process
    for i in range(20):
        (tmp_path / f"m{i:02}.py").write_text("print(1)\n" * 8000)
    list(iter_records(what, where, form, workers=2, keep_last=pooled))
    assert pooled == []
