"""A pattern written in words: the relaxed form that finds what was meant, in every profile.

Qwen2.5 1.5B, asked to replace every call of a function "keeping both
arguments" named by placeholder words, wrote those words into ``pat`` as they
were and got ``No replacements made`` with no hint.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh
from xcsh.pending import PendingActionStore
from xcsh.structural import create_ast_edit_tool, create_ast_grep_tool
from xcsh.structural.tools.relaxed import relaxed_forms

SOURCE = """\
def divide(total, parts):
    whole, rest = divmod(total, parts)
    minutes, seconds = divmod(rest, 60)
    return whole, minutes, seconds


def stamp(hours):
    return divmod(hours, 24, 1)
"""


def _project(tmp_path: Path) -> Path:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "clock.py").write_text(SOURCE)
    (tmp_path / "more.py").write_text("import clock\n\nprint(divmod(7, 2))\n")
    return tmp_path


def _text(result: object) -> str:
    return "\n".join(block.text for block in result.content)  # type: ignore[attr-defined]


def test_placeholder_names_become_metavariables_first_those_bound_nowhere() -> None:
    occurs = {"base", "str"}.__contains__
    forms = relaxed_forms("divmod(VALUE, base)", "floor(VALUE, base)", "python", occurs)
    assert [(f.pat, f.out) for f in forms] == [
        ("divmod($VALUE, base)", "floor($VALUE, base)"),
        ("divmod($VALUE, $BASE)", "floor($VALUE, $BASE)"),
        ("divmod($$$ARGS)", "floor($$$ARGS)"),
    ]
    # a keyword's name is not an argument; its value is
    (only,) = relaxed_forms("f(x=VALUE)", None, "python", occurs)
    assert only.pat == "f(x=$VALUE)"
    # metavariables already there stay; another arity keeps the rewrite's order only
    assert [f.pat for f in relaxed_forms("old($A, $B)", "new($A, $B)", "python", occurs)] == [
        "old($$$ARGS)"
    ]
    assert relaxed_forms("old($A, $B)", "new($B, $A)", "python", occurs) == []
    # a definition written out, searched for: the name alone (never for a rewrite)
    (name,) = relaxed_forms("def stamp(self, hours):", None, "python", occurs)
    assert name.pat == "stamp"
    assert relaxed_forms("def stamp(self, hours):", "x", "python", occurs) == []


async def test_a_rewrite_in_words_is_named_with_its_count_and_nothing_is_pending(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(root), store)
    op = {"pat": "divmod(VALUE, base)", "out": "floor_divmod(VALUE, base)"}
    text = _text(await tool.execute("c1", {"ops": [op]}))
    assert text == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "`divmod(VALUE, base)` matches nothing; the relaxed pattern `divmod($VALUE, $BASE)` "
        "(`VALUE` as `$VALUE`, `base` as `$BASE`: a metavariable stands for any argument) "
        "matches 3 times. To preview that rewrite, call ast_edit again with ops "
        '[{"pat": "divmod($VALUE, $BASE)", "out": "floor_divmod($VALUE, $BASE)"}].'
    )
    assert not store.has_pending
    assert (root / "clock.py").read_text() == SOURCE


async def test_the_compact_profile_previews_the_relaxed_rewrite_in_its_place(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(root), store, widen_renames=True)
    op = {"pat": "divmod(VALUE, base)", "out": "floor_divmod(VALUE, base)"}
    text = _text(await tool.execute("c1", {"ops": [op]}))
    assert (
        "`divmod(VALUE, base)` matched nothing, so this preview rewrites the relaxed pattern "
        "`divmod($VALUE, $BASE)` to `floor_divmod($VALUE, $BASE)` in its place (`VALUE` as "
        "`$VALUE`, `base` as `$BASE`: a metavariable stands for any argument): 3 replacements."
    ) in text.splitlines()
    action = store.peek()
    assert action is not None and action.label == "AST Edit: 3 replacements in 2 files"
    await action.apply("asked")
    assert "floor_divmod(total, parts)" in (root / "clock.py").read_text()
    assert "divmod(hours, 24, 1)" in (root / "clock.py").read_text()  # three arguments: kept
    assert (root / "more.py").read_text() == "import clock\n\nprint(floor_divmod(7, 2))\n"


async def test_a_search_of_another_arity_names_the_relaxed_form_or_shows_its_matches(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    plain = _text(await create_ast_grep_tool(str(root)).execute("c1", {"pat": "divmod(X)"}))
    assert plain.splitlines() == [
        "No matches for `divmod(X)` in 2 files.",
        "The relaxed pattern `divmod($$$ARGS)` (`$$$ARGS` in place of the arguments: any "
        "number of them) matches 4 times: call ast_grep with pat `divmod($$$ARGS)` to see them.",
    ]
    wide = _text(
        await create_ast_grep_tool(str(root), widen=True).execute("c1", {"pat": "divmod(X)"})
    )
    lines = wide.splitlines()
    assert lines[0] == (
        "`divmod(X)` matched nothing, so these are the matches of the relaxed pattern "
        "`divmod($$$ARGS)` in its place (`$$$ARGS` in place of the arguments: any number of "
        "them): it matches 4 times."
    )
    # asked who calls what, a small model reads each match's function in its header
    assert "clock.py:8:12 (in stamp): divmod(hours, 24, 1)" in lines
    assert "more.py:3:7: divmod(7, 2)" in lines  # top-level code: no function
    assert lines[-2:] == ["4 matches in 2 files.", "Functions these matches are in: divide, stamp."]


async def test_a_language_no_file_in_scope_has_names_the_languages_there(tmp_path: Path) -> None:
    root = _project(tmp_path)
    tool = create_ast_grep_tool(str(root))
    text = _text(await tool.execute("c1", {"pat": "divmod($$$A)", "lang": "javascript"}))
    assert text.splitlines() == [
        "No matches for `divmod($$$A)` in 0 files.",
        "No javascript file was in scope, so nothing was searched; the scope holds 2 python "
        "files: leave `lang` out to read each file in the language of its extension.",
    ]


def test_through_xcsh_p_the_compact_profile_applies_the_relaxed_rewrite(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # The calls as Qwen2.5 1.5B made them on a rewrite asked in words: the placeholder
    # words as names, then the forced resolve; the model's answer is left out.
    root = _project(tmp_path / "proj")
    op = {"pat": "divmod(VALUE, base)", "out": "floor_divmod(VALUE, base)"}
    steps = [
        {"tool_calls": [{"name": "ast_edit", "arguments": {"ops": [op]}}]},
        {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}]},
        {"text": "Done."},
    ]
    (tmp_path / "steps.json").write_text(json.dumps(steps))
    (xcsh_home / "settings.toml").write_text('profile = "compact"\n')
    args = ["-p", "go", "--mode", "json", "--provider", "scripted"]
    done = run_xcsh([*args, "--model", str(tmp_path / "steps.json")], cwd=root, home=xcsh_home)
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (pushed,) = [e for e in events if e["type"] == "pending_pushed"]
    assert pushed["label"] == "AST Edit: 3 replacements in 2 files"
    assert "so this preview rewrites the relaxed pattern `divmod($VALUE, $BASE)`" in (
        pushed["preview"] + next(e["text"] for e in events if e["type"] == "tool_result")
    )
    summary = events[-2]
    assert summary["type"] == "run_summary"
    assert [a["files"] for a in summary["applied"]] == [["clock.py", "more.py"]]
    assert "floor_divmod(total, parts)" in (root / "clock.py").read_text()
