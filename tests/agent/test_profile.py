"""The prompt profile a session gets: compact for a server that reports a small window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, tool_call_delta

from xcsh.agent.run.compact_notes import ALREADY_RESOLVED_NOTE
from xcsh.agent.run.profile import NOTHING_PREVIEWED_NOTE, repeats_previous_call
from xcsh.app import AppOptions, open_session
from xcsh.core import AssistantMessage, ToolCall, UsageError
from xcsh.pending import NOTHING_PENDING_MESSAGE

LLAMA_MODELS = {
    "object": "list",
    "data": [{"id": "local", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx": 16384}}],
}


async def test_a_server_reporting_a_16k_window_gets_the_compact_profile_and_that_window(
    tmp_path: Path, xcsh_home: Path
) -> None:
    with FakeOpenAI([[{"content": "Nothing to do."}]], models=LLAMA_MODELS) as fake:
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        session = opened.session
        assert (session.profile, session.context_window) == ("compact", 16384)
        await session.prompt("hello")
        opened.session.close()
    (body,) = fake.requests
    names = [t["function"]["name"] for t in body["tools"]]
    assert "ast_edit" in names and names[-1] == "resolve"
    system = body["messages"][0]["content"]
    assert len(system) < 1200 and "Working folder" not in system
    # what Qwen2.5 1.5B was seen to miss: a question is answered from the search result,
    # and one line is changed with `edit`
    assert "answer from the search result" in system and "the function names it lists" in system
    assert "To change one line, call `edit`" in system
    # what varies between sessions comes after the tool list: in the first user message
    first = body["messages"][1]
    assert first["role"] == "user"
    assert first["content"] == f"Working folder: {tmp_path.resolve()}\n\nhello"


async def test_the_compact_prefix_is_the_same_on_every_turn_and_resolve_needs_a_preview(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # A server renders the tools into its prompt: a list that changed when a
    # preview came up cost its prompt cache on the forced turn and the one after.
    (tmp_path / "m.py").write_text("def old():\n    return 1\n\n\nold()\n")
    edit = {"ops": [{"pat": "old", "out": "new"}], "lang": "python"}
    apply = {"action": "apply", "reason": "the rename asked for"}
    answers = [
        [tool_call_delta("c1", "resolve", json.dumps(apply))],  # nothing pending yet
        [tool_call_delta("c2", "ast_edit", json.dumps(edit))],
        [tool_call_delta("c3", "resolve", json.dumps(apply))],  # the forced turn
        [{"content": "Renamed."}],
    ]
    with FakeOpenAI(answers, models=LLAMA_MODELS) as fake:
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        await opened.session.prompt("rename old to new")
        opened.session.close()
    assert len(fake.requests) == 4
    heads = {json.dumps([r["messages"][0], r["tools"]]) for r in fake.requests}
    assert len(heads) == 1
    assert [r.get("tool_choice") for r in fake.requests][1:3] == [
        "required",
        {"type": "function", "function": {"name": "resolve"}},
    ]
    assert fake.requests[2]["response_format"]["json_schema"]["schema"]["properties"]["name"] == {
        "const": "resolve"
    }
    # A small model told to discard a change called resolve before making the preview:
    # the refusal says what comes first, a reminder quotes the request, and the next
    # turn must call a tool other than resolve (the tool list stays the same).
    refused, reminder = fake.requests[1]["messages"][-2:]
    assert refused["role"] == "tool"
    assert refused["content"] == f"{NOTHING_PENDING_MESSAGE}\n{NOTHING_PREVIEWED_NOTE}"
    assert (
        reminder["role"] == "user"
        and 'The request was: "rename old to new"' in (reminder["content"])
    )
    branches = fake.requests[1]["response_format"]["json_schema"]["schema"]["oneOf"]
    allowed = {b["properties"]["name"]["const"] for b in branches}
    assert "ast_edit" in allowed and "resolve" not in allowed
    # after such a refusal, the forced turn's reminder quotes the request too: the model
    # then applied a preview it was asked to discard
    forced_reminder = fake.requests[2]["messages"][-1]
    assert forced_reminder["role"] == "user"
    assert forced_reminder["content"].startswith("This is a preview.")
    assert forced_reminder["content"].endswith('The request was: "rename old to new"')
    assert (tmp_path / "m.py").read_text() == "def new():\n    return 1\n\n\nnew()\n"


async def test_a_resolve_after_the_run_resolved_its_preview_is_told_to_answer_and_not_forced(
    tmp_path: Path, xcsh_home: Path
) -> None:
    # After the apply, a small model called resolve again: the work is done, so the
    # refusal says to answer, and the next turn forces nothing.
    (tmp_path / "m.py").write_text("def old():\n    return 1\n")
    edit = {"ops": [{"pat": "old", "out": "new"}], "lang": "python"}
    apply = {"action": "apply", "reason": "the rename asked for"}
    answers = [
        [tool_call_delta("c1", "ast_edit", json.dumps(edit))],
        [tool_call_delta("c2", "resolve", json.dumps(apply))],
        [tool_call_delta("c3", "resolve", json.dumps(apply))],  # nothing pending now
        [{"content": "Renamed."}],
    ]
    with FakeOpenAI(answers, models=LLAMA_MODELS) as fake:
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        await opened.session.prompt("rename old to new")
        opened.session.close()
    assert len(fake.requests) == 4
    last = fake.requests[3]
    assert last["tool_choice"] == "auto" and "response_format" not in last
    refused = last["messages"][-1]
    assert refused["role"] == "tool"
    assert refused["content"] == f"{NOTHING_PENDING_MESSAGE}\n{ALREADY_RESOLVED_NOTE}"
    assert (tmp_path / "m.py").read_text() == "def new():\n    return 1\n"


@pytest.mark.parametrize("profile", ["compact", "full"])
async def test_a_call_pattern_rename_matching_no_call_is_widened_in_the_compact_profile_only(
    tmp_path: Path, xcsh_home: Path, profile: str
) -> None:
    # Qwen2.5 1.5B renamed `singularize` with singularize($$$A) -> to_singular($$$A)
    # where every call is inflection.singularize(...), and ended its run on
    # "No replacements made"; the compact profile previews the bare-name rename.
    (xcsh_home / "settings.toml").write_text(f'profile = "{profile}"\n')
    (tmp_path / "m.py").write_text("def old(n):\n    return n\n")
    (tmp_path / "t.py").write_text("import m\nm.old(1)\n")
    edit = {"ops": [{"pat": "old($$$A)", "out": "new($$$A)"}], "lang": "python"}
    apply = {"action": "apply", "reason": "the rename asked for"}
    answers = [
        [tool_call_delta("c1", "ast_edit", json.dumps(edit))],
        [tool_call_delta("c2", "resolve", json.dumps(apply))],
        [{"content": "Renamed."}],
    ]
    with FakeOpenAI(answers, models=LLAMA_MODELS) as fake:
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        await opened.session.prompt("rename old to new")
        opened.session.close()
    result, second = (
        [m for m in request["messages"] if m["role"] == "tool"][-1]["content"]
        for request in fake.requests[1:]
    )
    if profile == "compact":
        assert "No call written `old(...)` matched, so this preview renames" in result
        assert second.startswith("Applied 2 replacements in 2 files")
        assert (tmp_path / "t.py").read_text() == "import m\nm.new(1)\n"
    else:
        assert result.startswith(
            "No replacements made\nNothing was changed, and nothing is pending.\n"
            "`old($$$A)` matches only calls"
        )
        assert second == NOTHING_PENDING_MESSAGE  # exactly: no note in the full profile
        assert (tmp_path / "t.py").read_text() == "import m\nm.old(1)\n"


async def test_profile_full_keeps_everything_and_a_silent_server_changes_nothing(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (xcsh_home / "settings.toml").write_text('profile = "full"\n')
    with FakeOpenAI([[{"content": "ok"}]], models=LLAMA_MODELS) as fake:
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        assert (opened.session.profile, opened.session.context_window) == ("full", 16384)
        opened.session.close()
    (xcsh_home / "settings.toml").write_text('profile = "auto"\n')
    with FakeOpenAI([[{"content": "ok"}]]) as fake:  # GET /v1/models answers 404
        options = AppOptions(cwd=tmp_path, provider="openai", model="local", base_url=fake.base_url)
        opened = await open_session(options)
        assert opened.session.profile == "full"
        opened.session.close()


async def test_an_unknown_profile_is_refused_naming_the_values(
    tmp_path: Path, xcsh_home: Path
) -> None:
    (xcsh_home / "settings.toml").write_text('profile = "tiny"\n')
    options = AppOptions(
        cwd=tmp_path, provider="openai", model="m", base_url="http://127.0.0.1:9/v1"
    )
    with pytest.raises(UsageError, match=r"profile .* must be one of 'auto', 'full', 'compact'"):
        await open_session(options)


def test_a_call_repeats_only_the_last_call_of_the_turn_before_its_own() -> None:
    def turn(*calls: ToolCall) -> AssistantMessage:
        return AssistantMessage(content=list(calls), stop_reason="tool_use")

    grep = ToolCall(id="a", name="grep", arguments={"pattern": "x"})
    again = ToolCall(id="b", name="grep", arguments={"pattern": "x"})
    other = ToolCall(id="c", name="grep", arguments={"pattern": "y"})
    assert repeats_previous_call([turn(grep), turn(again)], again)
    assert not repeats_previous_call([turn(grep), turn(other)], other)
    assert not repeats_previous_call([turn(grep, other), turn(again)], again)
    assert not repeats_previous_call([turn(again)], again)  # nothing before
    assert not repeats_previous_call([turn(grep)], again)  # not in the history
