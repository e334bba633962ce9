"""YAML rules against the real ``ast-grep scan``: the same matches, the same bytes after apply.

Each folder of ``tests/conformance/rules`` holds a ``rule.yml`` and the source
files under ``src/``. For each, ``ast-grep scan --rule rule.yml --json=stream``
and xcsh's ``search(rules=...)`` must report the same objects, and
``ast-grep scan --rule rule.yml -U`` and xcsh's previewed fix, applied, must
leave byte-identical files. The objects are compared whole, ``labels`` and
the ``secondary`` label nodes (what a rule's relational parts matched)
included, both as ``Match.to_cli_json()`` and as the lines ``xcsh ast-grep``
prints.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from xcsh.structural import (
    EditSpec,
    MatchSpec,
    RecordFormat,
    ScopeSpec,
    apply_preview,
    iter_records,
    preview_edit,
    search,
)
from xcsh.structural.rules.compile import load_rule_file

AST_GREP = Path(shutil.which("ast-grep") or "ast-grep")
CASES = Path(__file__).parent / "rules"
NAMES = sorted(p.name for p in CASES.iterdir() if (p / "rule.yml").is_file())


def _binary() -> str:
    import sys

    local = Path(sys.executable).with_name("ast-grep")
    return str(local if local.exists() else AST_GREP)


def _key(obj: dict[str, Any]) -> tuple[str, int, int, str, str]:
    offsets = obj["range"]["byteOffset"]
    # the whole object last: two rules may share an id (both run, as in the CLI)
    whole = json.dumps(obj, sort_keys=True)
    return (obj["file"], offsets["start"], -offsets["end"], obj.get("ruleId", ""), whole)


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "rule.yml"
    }


def test_the_set_covers_every_rule_feature_in_six_languages() -> None:
    texts = {name: (CASES / name / "rule.yml").read_text() for name in NAMES}
    joined = "\n".join(texts.values())
    for feature in (
        "pattern:",
        "context:",
        "selector:",
        "kind:",
        "regex:",
        "nthChild:",
        "range:",
        "inside:",
        "has:",
        "precedes:",
        "follows:",
        "all:",
        "any:",
        "not:",
        "matches:",
        "stopBy: end",
        "stopBy: neighbor",
        "stopBy:\n",
        "field:",
        "constraints:",
        "utils:",
        "transform:",
        "replace:",
        "substring:",
        "convert:",
        "rewrite:",
        "rewriters:",
        "joinBy:",
        "expandEnd:",
        "template:",
        "files:",
        "ignores:",
        "message:",
        "note:",
        "severity:",
        "\n---\n",
    ):
        assert feature in joined, feature
    languages = {
        line.split(":", 1)[1].strip()
        for text in texts.values()
        for line in text.splitlines()
        if line.startswith("language:")
    }
    assert len(NAMES) >= 25 and len(languages) >= 6, (len(NAMES), languages)


@pytest.mark.parametrize("name", NAMES)
def test_rule_matches_and_fixes_as_ast_grep_scan(name: str, tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "cli"
    shutil.copytree(CASES / name, ours)
    shutil.copytree(CASES / name, theirs)
    rules = load_rule_file(ours / "rule.yml", display="rule.yml", strict=False)

    proc = subprocess.run(
        [_binary(), "scan", "--rule", "rule.yml", "--json=stream", "."],
        cwd=theirs,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    expected = sorted((json.loads(line) for line in proc.stdout.splitlines()), key=_key)
    assert expected, f"the CLI finds something for {name}"
    what, where = MatchSpec(rules=tuple(rules)), ScopeSpec(root=ours)
    found = search(what, where, workers=1)
    assert sorted((m.to_cli_json() for m in found.matches), key=_key) == expected
    printed = iter_records(what, where, RecordFormat(json=True), workers=1)
    assert sorted((json.loads(line) for line in printed), key=_key) == expected

    subprocess.run(
        [_binary(), "scan", "--rule", "rule.yml", "-U", "."],
        cwd=theirs,
        capture_output=True,
        check=False,  # exit 1 when an `error` rule matched
    )
    if any(rule.fix is not None for rule in rules):
        # As the CLI: also files with parse errors, and rewrites that would not parse
        # (xcsh leaves both out unless asked; the rest is the same).
        preview = preview_edit(
            EditSpec(ops=(), rules=tuple(rules), include_broken=True, include_parse_errors=True),
            ScopeSpec(root=ours),
            workers=1,
        )
        apply_preview(preview)
    assert _files(ours) == _files(theirs)
