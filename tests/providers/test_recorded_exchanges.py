"""Real answers of a small local model, replayed to the installed ``xcsh``.

Each fixture in ``fixtures/recorded/`` is a run of ``make e2e-model``: the
requests xcsh sent to llama.cpp's ``llama-server`` (Qwen2.5 1.5B Q4_K_M,
``--jinja``) and the server's answers, byte for byte. A loopback server
answers the installed ``xcsh -p --mode json`` with them, in order, through
the SDK's real HTTP client; the tests check what xcsh does with those
answers: the calls it reads and runs, the requests it sends back, and the
files on disk.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from provider_support import of, replay

from xcsh.agent.run.profile import REPEATED_CALL_NOTE

MODULE = '''\
"""A few of inflection's functions, as the recorded runs saw them."""


def ordinal(number):
    """The suffix that makes ``number`` an ordinal: ``ordinal(1)`` is ``'st'``."""
    number = abs(int(number))
    if number % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


def ordinalize(number):
    """``number`` with its suffix: ``ordinalize(2)`` is ``'2nd'``."""
    return "{}{}".format(number, ordinal(number))
'''

TESTS = """\
import inflection


def test_ordinal():
    assert inflection.ordinal(1) == "st"
    assert inflection.ordinal(12) == "th"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The package the recorded runs worked on, cut down to what their calls touch."""
    root = tmp_path / "inflection"
    (root / "inflection").mkdir(parents=True)
    (root / "inflection" / "__init__.py").write_text(MODULE)
    (root / "test_inflection.py").write_text(TESTS)
    return root


FULL = 'profile = "full"\n'
"""The settings line that sends the whole prompt, whatever window the server reports."""

RENAME = (
    "Rename the function `ordinal` to `ordinal_suffix` everywhere in this project: its "
    "definition and every call, tests included. Use ast_edit, then apply the change."
)

FIND_CALLS = (
    "Find every call of the function `underscore` in this project (definitions and "
    "imports do not count). Answer with one line per call, as path:line."
)


def test_a_call_the_model_fenced_as_json_text_is_run_and_goes_back_as_a_call(
    project: Path, xcsh_home: Path
) -> None:
    # The model answered with a ```json block holding an ast_edit call on a path
    # it made up; llama-server passed it on as text.
    events, server = replay("fenced-call-missing-path", RENAME, project, xcsh_home)
    (notice,) = of(events, "notice")
    assert notice["kind"] == "text_tool_call" and "it was run as a tool call" in notice["message"]
    (start,) = of(events, "tool_call_start")
    assert start["name"] == "ast_edit" and start["arguments"]["path"] == "src/app.py"
    (result,) = of(events, "tool_result")
    assert result["message"]["is_error"]
    assert "Path 'src/app.py' does not exist" in result["message"]["content"][0]["text"]
    # the next request carries the call as a structured call and its result
    assistant, tool = server.requests[1]["messages"][-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "ast_edit"
    assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert len(server.requests) == 2 and of(events, "run_end")[0]["reason"] == "stop"
    assert (project / "inflection" / "__init__.py").read_text() == MODULE


def test_a_call_with_a_parameter_beside_its_arguments_is_answered_with_the_fix(
    project: Path, xcsh_home: Path
) -> None:
    # The model wrote {"name": "ast_edit", "arguments": {...}, "check": true}: a
    # call it meant, with one parameter a level too high. It is not run and not
    # taken for the final answer: the model is told which key to move.
    events, server = replay("call-with-stray-key", RENAME, project, xcsh_home)
    (notice,) = of(events, "notice")
    assert "it was not run" in notice["message"]
    assert [s["name"] for s in of(events, "tool_call_start")] == ["ast_edit"]
    assert not of(events, "pending_pushed")
    assert len(server.requests) == 2  # the model is asked again
    tool = server.requests[1]["messages"][-1]
    assert tool["role"] == "tool"
    assert tool["content"].startswith(
        "Not executed: the arguments for 'ast_edit' could not be read "
        '("check" beside "arguments": every parameter goes inside it).'
    )
    assert (project / "inflection" / "__init__.py").read_text() == MODULE


def test_a_recorded_rename_is_previewed_the_forced_turn_is_constrained_and_the_apply_lands(
    project: Path, xcsh_home: Path
) -> None:
    # The model fenced an ast_edit call followed by prose; the preview went up;
    # the forced turn carried the schema of a resolve call, and the model's
    # answer (the JSON of the call as text) applied it; then it answered in prose.
    events, server = replay("rename-forced-apply", RENAME, project, xcsh_home)
    (pushed,) = of(events, "pending_pushed")
    assert pushed["label"] == "AST Edit: 1 replacement in 1 file"
    forced = server.requests[1]
    assert forced["tool_choice"] == {"type": "function", "function": {"name": "resolve"}}
    schema = forced["response_format"]["json_schema"]["schema"]
    names = [b["properties"]["name"]["const"] for b in schema.get("oneOf", [schema])]
    assert names == ["resolve"]
    assert forced["messages"][-1]["content"].startswith("This is a preview.")
    (resolved,) = of(events, "resolved")
    assert resolved["action"] == "apply" and not resolved["is_error"]
    # what the model asked for landed, and nothing else: its pattern matched the call
    # inside ordinalize, not the definition (the run failed as the model's)
    module = (project / "inflection" / "__init__.py").read_text()
    assert module == MODULE.replace("ordinal(number))", "ordinal_suffix(number))")
    assert (project / "test_inflection.py").read_text() == TESTS
    # every call xcsh read from text has an id of its own in the conversation
    ids = [c["id"] for m in server.requests[2]["messages"] for c in m.get("tool_calls") or []]
    assert len(ids) == 2 and len(set(ids)) == 2
    assert of(events, "run_end")[0]["reason"] == "stop" and len(server.requests) == 3


def test_calls_written_one_per_line_in_one_fence_run_in_order(
    project: Path, xcsh_home: Path
) -> None:
    # The model planned ast_edit then resolve as two JSON lines in one ```json fence.
    # Both are offered (the tool list is the same on every turn), so both run in
    # order: ast_edit's preview goes up, then resolve applies it.
    events, server = replay("calls-one-per-line", RENAME, project, xcsh_home)
    assert [s["name"] for s in of(events, "tool_call_start")] == ["ast_edit", "resolve"]
    (pushed,) = of(events, "pending_pushed")
    assert pushed["label"] == "AST Edit: 4 replacements in 2 files"
    (resolved,) = of(events, "resolved")
    assert resolved["action"] == "apply" and not resolved["is_error"]
    assistant = server.requests[1]["messages"][-3]
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["ast_edit", "resolve"]
    assert server.requests[1]["tool_choice"] == "auto"  # nothing is pending any more
    assert "response_format" not in server.requests[1]
    module = (project / "inflection" / "__init__.py").read_text()
    assert "def ordinal_suffix(number):" in module and "ordinal_suffix(number))" in module
    assert (project / "test_inflection.py").read_text() == TESTS.replace(
        "inflection.ordinal(", "inflection.ordinal_suffix("
    )


def test_calls_written_in_a_tools_tag_are_read_like_tool_call_blocks(
    project: Path, xcsh_home: Path
) -> None:
    # The model wrapped its plan in <tools>...</tools> (the tag the chat template lists
    # the tools in): ast_edit with the bare name, then resolve. Both run: the preview
    # renames the definition and every call, and resolve applies it.
    events, server = replay("calls-in-tools-tag", RENAME, project, xcsh_home)
    first, second = of(events, "tool_call_start")
    assert first["arguments"] == {"ops": [{"pat": "ordinal", "out": "ordinal_suffix"}]}
    assert second["name"] == "resolve" and second["arguments"]["action"] == "apply"
    (pushed,) = of(events, "pending_pushed")
    assert pushed["label"] == "AST Edit: 4 replacements in 2 files"
    assert server.requests[1]["tool_choice"] == "auto"
    assert "ordinal_suffix(number)" in (project / "inflection" / "__init__.py").read_text()


def test_a_search_repeated_with_the_same_arguments_is_answered_with_a_note(
    project: Path, xcsh_home: Path
) -> None:
    # At temperature 0 the model asked for the same grep three turns in a row, then
    # answered nothing. From its second time on, the result says it is a repeat.
    events, server = replay("repeated-grep", FIND_CALLS, project, xcsh_home)
    assert [s["name"] for s in of(events, "tool_call_start")] == ["grep", "grep", "grep"]
    results = [r["messages"][-1] for r in server.requests[1:]]
    assert [m["role"] for m in results] == ["tool", "tool", "tool"]
    assert not results[0]["content"].endswith(REPEATED_CALL_NOTE)
    assert results[1]["content"].endswith("\n" + REPEATED_CALL_NOTE)
    assert results[2]["content"].endswith("\n" + REPEATED_CALL_NOTE)
    assert len(server.requests) == 4 and of(events, "run_end")[0]["reason"] == "stop"


def test_a_search_in_a_language_the_project_has_no_file_of_says_so(
    project: Path, xcsh_home: Path
) -> None:
    # The model searched a Python project with `lang: javascript`, was told only
    # "No matches", and took that for the answer. The result now says why.
    events, server = replay("search-in-another-language", FIND_CALLS, project, xcsh_home)
    (start,) = of(events, "tool_call_start")
    assert start["name"] == "ast_grep" and start["arguments"]["lang"] == "javascript"
    result = server.requests[1]["messages"][-1]
    assert result["role"] == "tool"
    assert result["content"] == (
        "No matches for `underscore` in 0 files.\n"
        "No javascript file was in scope, so nothing was searched; the scope holds 2 python "
        "files: leave `lang` out to read each file in the language of its extension."
    )


def test_a_rename_written_as_a_call_pattern_that_matched_nothing_names_the_bare_name(
    project: Path, xcsh_home: Path
) -> None:
    # The model renamed with `dasherize($$$A)`, which matches no call written
    # `inflection.dasherize(...)`, and took "No replacements made" for the answer. With
    # the whole prompt (profile "full") the result keeps saying so, naming the bare-name
    # rename; the compact profile previews that rename instead (test below).
    prompt = (
        "Rename the function `dasherize` to `to_dashes` everywhere in this project with ast_edit."
    )
    events, server = replay("call-pattern-rename", prompt, project, xcsh_home, FULL)
    (start,) = of(events, "tool_call_start")
    assert start["arguments"]["ops"] == [{"pat": "dasherize($$$A)", "out": "to_dashes($$$A)"}]
    result = server.requests[1]["messages"][-1]
    assert result["content"] == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "`dasherize($$$A)` matches only calls written `dasherize(...)`, not "
        "`module.dasherize(...)` or `obj.dasherize(...)`; to rename it everywhere "
        "(definition, calls and imports), call ast_edit again with ops "
        '[{"pat": "dasherize", "out": "to_dashes"}], as this call:\n'
        '```json\n{"name": "ast_edit", "arguments": {"lang": "python", "path": ".", "ops": '
        '[{"pat": "dasherize", "out": "to_dashes"}]}}\n```'
    )


def test_a_model_copying_the_bare_name_note_has_the_fenced_call_in_it_run(
    project: Path, xcsh_home: Path
) -> None:
    # Qwen2.5 1.5B renamed with `ordinalize($$$A)`, matched nothing, and answered by copying
    # the whole note; the fenced call in the copy ran, previewed the bare-name rename, and
    # the forced turn applied it. (With the call outside a fence the copy was read as prose
    # and the run ended with nothing renamed.) Replayed with the whole prompt, where a call
    # pattern that matched nothing still says "No replacements made".
    prompt = (
        "Rename the function `ordinalize` to `with_ordinal` everywhere in this project: its "
        "definition and every call, tests included. Use ast_edit, then apply the change."
    )
    events, server = replay("copied-bare-name-note", prompt, project, xcsh_home, FULL)
    note = server.requests[1]["messages"][-1]["content"]
    assert note.endswith(
        '```json\n{"name": "ast_edit", "arguments": {"lang": "python", "path": ".", '
        '"check": true, "ops": [{"pat": "ordinalize", "out": "with_ordinal"}]}}\n```'
    )
    calls = [(s["name"], s["arguments"]) for s in of(events, "tool_call_start")]
    assert [name for name, _ in calls] == ["ast_edit", "ast_edit", "resolve"]
    assert calls[1][1]["ops"] == [{"pat": "ordinalize", "out": "with_ordinal"}]
    assert calls[2][1]["action"] == "apply"
    module = (project / "inflection" / "__init__.py").read_text()
    assert "def with_ordinal(number):" in module and "def ordinalize" not in module


def test_a_call_pattern_rename_matching_no_call_is_previewed_as_the_bare_name_rename(
    project: Path, xcsh_home: Path
) -> None:
    # Qwen2.5 1.5B renamed `singularize` with singularize($$$A) -> to_singular($$$A), where
    # every call is inflection.singularize(...). It used to end the run on "No replacements
    # made"; the compact profile now previews the bare-name rename, and the forced turn
    # applied it.
    module = project / "inflection" / "__init__.py"
    module.write_text(MODULE + "\n\ndef singularize(word):\n    return word.rstrip('s')\n")
    tests = project / "test_inflection.py"
    tests.write_text(
        TESTS
        + "\n\ndef test_one_from_many():\n    assert inflection.singularize('posts') == 'post'\n"
    )
    prompt = (
        "Rename the function `singularize` to `to_singular` everywhere in this project: its "
        "definition and every call, tests included. Use ast_edit, then apply the change."
    )
    events, server = replay("widened-call-pattern-rename", prompt, project, xcsh_home)
    calls = [(s["name"], s["arguments"]) for s in of(events, "tool_call_start")]
    assert [name for name, _ in calls] == ["ast_edit", "resolve"]
    assert calls[0][1]["ops"] == [{"pat": "singularize($$$A)", "out": "to_singular($$$A)"}]
    preview = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert (
        "No call written `singularize(...)` matched, so this preview renames `singularize` to "
        "`to_singular` everywhere instead: the definition, every call (`module.name(...)` and "
        "`obj.name(...)` too) and imports."
    ) in preview.split("\n")
    assert calls[1][1]["action"] == "apply"
    assert "def to_singular(word):" in module.read_text()
    assert "inflection.to_singular('posts')" in tests.read_text()
    assert "singularize" not in module.read_text() + tests.read_text()


def test_what_varies_between_runs_comes_after_the_tool_list(
    project: Path, tmp_path: Path, xcsh_home: Path
) -> None:
    # Qwen's template renders the tools after the system prompt: with the working folder
    # in the system prompt, a run in another folder shared only the first lines of the
    # prompt with the one before and the server evaluated 2,156 tokens again. The folder
    # now starts the first user message, after the tools; the system prompt and the tools
    # are the same whatever the folder.
    other = tmp_path / "elsewhere" / "inflection"
    shutil.copytree(project, other)
    firsts = []
    for folder in (project, other):
        _, server = replay("rename-forced-apply", RENAME, folder, xcsh_home)
        firsts.append(server.requests[0])
    for folder, request in zip((project, other), firsts, strict=True):
        system, user = request["messages"][:2]
        assert system["role"] == "system" and "Working folder" not in system["content"]
        assert user == {
            "role": "user",
            "content": f"Working folder: {folder.resolve()}\n\n{RENAME}",
        }
    heads = {json.dumps([r["messages"][0], r["tools"]]) for r in firsts}
    assert len(heads) == 1
