"""What makes small local models work through ``--base-url``: the output constraint on
forced turns, the call formats they write as text, and the compact profile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from provider_support import error, llama_chat_sse

from xcsh.agent import choose_profile
from xcsh.agent.run.profile import compact_spec
from xcsh.agent.run.prompt import build_system_prompt
from xcsh.core import ForcedTool, ModelRequest, TextContent, ToolSpec, UserMessage
from xcsh.pending import PendingActionStore
from xcsh.providers import ProviderSettings, create_provider
from xcsh.providers._common import text_tool_calls
from xcsh.providers._tool_schema import tool_call_schema
from xcsh.tools.registry import create_builtin_tools

SERVER = "http://localhost:8080/v1"
OFFERED = ["ls", "read", "resolve", "ast_edit"]


def builtin_specs(tmp_path: Path) -> list[ToolSpec]:
    from xcsh.agent.run.loop import tool_spec

    return [tool_spec(t) for t in create_builtin_tools(tmp_path, PendingActionStore())]


def refs(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["$ref"]] if isinstance(value.get("$ref"), str) else []
        return own + [r for v in value.values() for r in refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in refs(v)]
    return []


def test_the_call_schema_hoists_every_definition_so_each_ref_resolves_from_the_root(
    tmp_path: Path,
) -> None:
    specs = builtin_specs(tmp_path)
    schema = tool_call_schema(specs)
    names = [b["properties"]["name"]["const"] for b in schema["oneOf"]]
    assert names == [s.name for s in specs]
    assert "AstEditOp" in schema["$defs"]
    found = refs(schema)
    assert found, "ast_edit's ops refer to a definition"
    for ref in found:
        assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"]
    for branch in schema["oneOf"]:
        assert "$defs" not in branch["properties"]["arguments"]


def test_two_tools_defining_one_name_differently_keep_both_definitions() -> None:
    def tool(name: str, kind: str) -> ToolSpec:
        return ToolSpec(
            name=name,
            description="",
            parameters={
                "type": "object",
                "properties": {"x": {"$ref": "#/$defs/X"}},
                "$defs": {"X": {"type": kind}},
            },
        )

    schema = tool_call_schema([tool("a", "string"), tool("b", "integer")])
    assert schema["$defs"] == {"X": {"type": "string"}, "b__X": {"type": "integer"}}
    b_args = schema["oneOf"][1]["properties"]["arguments"]
    assert b_args["properties"]["x"] == {"$ref": "#/$defs/b__X"}


@pytest.mark.parametrize(
    ("text", "names", "rest"),
    [
        # Qwen's and Hermes' format, with prose before it
        (
            'I will list.\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>',
            ["ls"],
            "I will list.",
        ),
        # a last block cut off by the output cap before its closing tag
        ('<tool_call>\n{"name": "ls", "arguments": {}}', ["ls"], ""),
        # a plan of fenced calls, run in order
        (
            'First:\n```json\n{"name": "ls", "arguments": {}}\n```\nthen\n'
            '```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```',
            ["ls", "read"],
            "First:\n\nthen",
        ),
        # calls one per line in one fence, as Qwen2.5 1.5B wrote a plan: the call of a
        # tool not offered stays text
        (
            '```json\n{"name": "ls", "arguments": {}}\n{"name": "rm", "arguments": {}}\n```',
            ["ls"],
            '{"name": "rm", "arguments": {}}',
        ),
        ('{"name": "ls", "arguments": {}}\n{"name": "read", "arguments": {}}', ["ls", "read"], ""),
        # a JSON list of calls
        ('[{"name": "ls", "arguments": {}}, {"name": "ls", "parameters": {}}]', ["ls", "ls"], ""),
        # a fenced block that is not a call stays text, the call is taken
        (
            '```python\nprint(1)\n```\n```json\n{"name": "ls", "arguments": {}}\n```',
            ["ls"],
            "```python\nprint(1)\n```",
        ),
        # not calls: prose with inline JSON, an unknown tool, a list with one bad item
        ('Sure: {"name": "ls", "arguments": {}}', [], None),
        ('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', [], None),
        ('[{"name": "ls", "arguments": {}}, {"name": "rm", "arguments": {}}]', [], None),
    ],
)
def test_calls_written_as_text_in_the_forms_small_models_use(
    text: str, names: list[str], rest: str | None
) -> None:
    calls, left = text_tool_calls(text, OFFERED)
    assert [c.name for c in calls] == names
    assert all(c.from_text for c in calls)
    assert len({c.id for c in calls}) == len(calls)
    assert left == (text if rest is None else rest)


@pytest.mark.parametrize(
    ("text", "stray"),
    [
        # a parameter written one level too high, as Qwen2.5 1.5B wrote it
        ('```json\n{"name": "ast_edit", "arguments": {"ops": []}, "check": true}\n```', "check"),
        ('<tool_call>{"name": "ls", "parameters": {}, "id": 1}</tool_call>', "id"),
    ],
)
def test_a_call_with_keys_beside_its_arguments_is_a_call_the_model_is_told_to_fix(
    text: str, stray: str
) -> None:
    calls, left = text_tool_calls(text, OFFERED)
    (call,) = calls
    assert call.from_text and call.arguments == {}
    assert call.invalid_arguments is not None and f'"{stray}"' in call.invalid_arguments
    assert call.arguments_error is not None and call.arguments_error.startswith(f'"{stray}" beside')
    assert left == ""


def test_an_object_naming_a_tool_without_arguments_but_with_other_keys_is_not_a_call() -> None:
    text = '{"name": "read", "path": "a.py"}'
    assert text_tool_calls(text, OFFERED) == ([], text)


async def test_a_forced_turn_carries_the_schema_of_a_resolve_call_and_its_answer_runs(
    exchange: Any,
) -> None:
    answer = '{"name": "resolve", "arguments": {"action": "apply", "reason": "right"}}'
    ex = exchange(llama_chat_sse(text=answer))
    provider = create_provider(
        ProviderSettings(provider="openai", model="qwen", base_url=SERVER),
        http_client=ex.client(),
    )
    request = ModelRequest(
        system="s",
        messages=[UserMessage(content=[TextContent("apply it")])],
        tools=[
            ToolSpec(name="ls", description="", parameters={"type": "object"}),
            ToolSpec(
                name="resolve",
                description="",
                parameters={"type": "object", "properties": {"action": {"type": "string"}}},
            ),
        ],
        tool_choice=ForcedTool(name="resolve"),
    )
    done = [e async for e in provider.stream(request)][-1]
    body = ex.bodies()[0]
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["name"] == {"const": "resolve"}
    assert [(c.name, c.arguments["action"]) for c in done.message.tool_calls] == [
        ("resolve", "apply")
    ]


async def test_a_server_refusing_the_schema_is_asked_again_without_it_and_never_again(
    exchange: Any,
) -> None:
    refusal = {"error": {"code": 400, "message": "cannot resolve $ref #/$defs/AstEditOp"}}
    ex = exchange(
        error(400, refusal),
        llama_chat_sse(calls=[("c1", "resolve", {"action": "apply", "reason": "ok"})]),
        llama_chat_sse(calls=[("c2", "resolve", {"action": "apply", "reason": "ok"})]),
    )
    provider = create_provider(
        ProviderSettings(provider="openai", model="qwen", base_url=SERVER),
        http_client=ex.client(),
    )
    request = ModelRequest(
        system="s",
        messages=[UserMessage(content=[TextContent("apply it")])],
        tools=[ToolSpec(name="resolve", description="", parameters={"type": "object"})],
        tool_choice="required",
    )
    for _ in range(2):
        done = [e async for e in provider.stream(request)][-1]
        assert [c.name for c in done.message.tool_calls] == ["resolve"]
    sent = ["response_format" in body for body in ex.bodies()]
    assert sent == [True, False, False]


async def test_the_big_providers_never_get_the_schema_nor_have_text_read_as_calls(
    exchange: Any,
) -> None:
    text = '<tool_call>{"name": "resolve", "arguments": {"action": "apply"}}</tool_call>'
    ex = exchange(llama_chat_sse(text=text))
    provider = create_provider(
        ProviderSettings(provider="openai", model="gpt-5.1", api_key="sk-test"),
        http_client=ex.client(),
    )
    request = ModelRequest(
        system="s",
        messages=[UserMessage(content=[TextContent("apply it")])],
        tools=[ToolSpec(name="resolve", description="", parameters={"type": "object"})],
        tool_choice=ForcedTool(name="resolve"),
    )
    done = [e async for e in provider.stream(request)][-1]
    assert "response_format" not in ex.bodies()[0]
    assert done.message.tool_calls == []
    assert done.message.text == text


def test_the_compact_profile_trims_descriptions_and_schemas_but_keeps_what_a_call_needs(
    tmp_path: Path,
) -> None:
    specs = builtin_specs(tmp_path)
    compact = [compact_spec(s) for s in specs]
    full_size = len(json.dumps([s.__dict__ for s in specs]))
    compact_size = len(json.dumps([s.__dict__ for s in compact]))
    assert compact_size < full_size / 2
    by_name = {s.name: s for s in compact}
    edit = by_name["ast_edit"].parameters
    assert {"ops", "path", "lang"} <= set(edit["properties"])
    assert "rule" not in edit["properties"]
    assert edit["properties"]["path"]["type"] == "string"  # the null branch is gone
    assert "\n" not in by_name["bash"].description
    assert by_name["resolve"].parameters["required"] == specs[-1].parameters["required"]


def test_the_working_folder_follows_the_stable_head_of_the_system_prompt(tmp_path: Path) -> None:
    from xcsh.tools.registry import create_builtin_tools as tools

    one = build_system_prompt(tmp_path / "a", tools(tmp_path, PendingActionStore()))
    two = build_system_prompt(tmp_path / "bb", tools(tmp_path, PendingActionStore()))
    head = one.split("Working folder:")[0]
    assert two.startswith(head) and "- ast_edit:" in head
    compact = build_system_prompt(tmp_path / "a", [], compact=True)
    assert len(compact) < len(one) / 2
    assert compact.endswith(f"Working folder: {tmp_path / 'a'}")


@pytest.mark.parametrize(
    ("setting", "server", "window", "profile"),
    [
        ("auto", True, 16384, "compact"),
        ("auto", True, 131072, "full"),
        ("auto", True, None, "full"),
        ("auto", False, 16384, "full"),
        ("compact", False, None, "compact"),
        ("full", True, 4096, "full"),
    ],
)
def test_which_profile_a_setting_chooses(
    setting: str, server: bool, window: int | None, profile: str
) -> None:
    assert choose_profile(setting, compatible_server=server, window=window) == profile
