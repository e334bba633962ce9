"""AgentTool validation and result shapes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel, Field

from xcsh import AgentTool, AgentToolResult, TextContent, ToolError
from xcsh.core import (
    ImageContent,
    ToolCallContext,
    coerce_result,
    coerce_tool_result,
    describe_value_type,
)


class Greet(BaseModel):
    name: str = Field(description="who")
    times: int = Field(default=1, ge=1)


def greet_tool() -> AgentTool[Greet]:
    def run(params: Greet, ctx: ToolCallContext) -> AgentToolResult:
        return AgentToolResult(content=[TextContent(f"hi {params.name}" * params.times)])

    return AgentTool(name="greet", label="Greet", description="d", parameters=Greet, run=run)


async def test_pydantic_tool_runs_with_validated_model() -> None:
    result = await greet_tool().execute("id", {"name": "ada", "times": 2})
    assert result.text == "hi adahi ada"


async def test_pydantic_validation_error_names_field_and_expectation() -> None:
    with pytest.raises(ToolError) as info:
        await greet_tool().execute("id", {"name": "ada", "times": 0})
    message = str(info.value)
    assert "Invalid arguments for tool 'greet'" in message
    assert "- times: Input should be greater than or equal to 1 (got 0)" in message


async def test_missing_field_named() -> None:
    with pytest.raises(ToolError, match=r"- name: Field required"):
        await greet_tool().execute("id", {})


def test_pydantic_schema_exports_json_schema() -> None:
    schema = greet_tool().json_schema()
    assert schema["type"] == "object"
    assert schema["required"] == ["name"]
    assert schema["properties"]["name"]["description"] == "who"


class Documented(BaseModel):
    """Developer notes that must not reach the model (contract §2)."""

    inner: Greet


def test_schema_leaves_out_class_docstrings() -> None:
    tool: AgentTool[Documented] = AgentTool(
        name="doc", label="Doc", description="d", parameters=Documented, run=lambda p, c: "x"
    )
    schema = tool.json_schema()
    assert "Developer notes" not in str(schema)
    assert "title" not in schema and "description" not in schema
    assert schema["$defs"]["Greet"]["properties"]["name"]["description"] == "who"


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"files": {"type": "array", "items": {"type": "string"}}},
    "required": ["files"],
    "additionalProperties": False,
}


async def test_json_schema_tool_gets_dict_and_errors_name_path() -> None:
    seen: list[Any] = []

    async def run(params: dict[str, Any], ctx: ToolCallContext) -> str:
        seen.append(params)
        return f"{len(params['files'])} files"

    tool: AgentTool[dict[str, Any]] = AgentTool(
        name="rn", label="Rn", description="d", parameters=SCHEMA, run=run
    )
    assert tool.json_schema() == SCHEMA
    ok = await tool.execute("id", {"files": ["a", "b"]})
    assert ok.text == "2 files"
    assert seen == [{"files": ["a", "b"]}]
    with pytest.raises(ToolError) as info:
        await tool.execute("id", {"files": ["a", 3]})
    assert "- files.1: 3 is not of type 'string'" in str(info.value)


def test_coerce_result_shapes() -> None:
    assert coerce_result(None) is None
    assert coerce_result("x").text == "x"  # type: ignore[union-attr]
    from_dict = coerce_result(
        {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AA", "mimeType": "image/png"},
            ],
            "isError": True,
        }
    )
    assert from_dict is not None
    assert from_dict.is_error is True
    assert from_dict.content[1] == ImageContent("AA", "image/png")
    with pytest.raises(TypeError) as info:
        coerce_result(42)
    assert str(info.value) == (
        "expected an AgentToolResult, a str, a dict with 'content', or None; got an int"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"content": "one string"}, ([TextContent("one string")], None, False)),
        ({"content": ["a", {"text": "b"}], "details": {"k": 1}}, (["a", "b"], {"k": 1}, False)),
        ({"is_error": None, "isError": True}, ([], None, False)),  # is_error wins when given
        ({"isError": "yes", "other": 1}, ([], None, True)),  # any truthy value; keys ignored
        ({}, ([], None, False)),
    ],
)
def test_a_dict_result_is_read_as_the_description_writes_it(
    value: dict[str, Any], expected: tuple[list[Any], Any, bool]
) -> None:
    content, details, is_error = expected
    result = coerce_tool_result(value)
    assert result.content == [TextContent(b) if isinstance(b, str) else b for b in content]
    assert (result.details, result.is_error) == (details, is_error)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "'NoneType' object is not iterable"),
        ([{"type": "image", "data": "AA"}], "a dict with type 'text' or 'image'; got {"),
        ([{"type": "text", "text": 5}], "got {'type': 'text', 'text': 5}"),
    ],
)
def test_a_dict_result_with_bad_content_is_refused(content: object, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        coerce_tool_result({"content": content})


def test_a_tool_result_may_not_be_none() -> None:
    assert coerce_tool_result("x").text == "x"
    for value, got in ((None, "None"), (12, "an int"), (b"x", "a bytes")):
        with pytest.raises(TypeError) as info:
            coerce_tool_result(value)
        assert str(info.value) == (
            f"expected an AgentToolResult, a str, or a dict with 'content'; got {got}"
        )


async def test_execute_names_what_a_tool_may_return() -> None:
    tool = AgentTool(
        name="t",
        label="T",
        description="d",
        parameters={"type": "object"},
        run=lambda params, ctx: None,
    )
    with pytest.raises(ToolError) as info:
        await tool.execute("id", {})
    assert str(info.value) == (
        "Tool 't' returned a bad result: expected an AgentToolResult, a str, or a dict "
        "with 'content'; got None."
    )


def test_describe_value_type_uses_the_right_article() -> None:
    assert [describe_value_type(v) for v in (None, 1, "s", 1.5, object(), [], {})] == [
        "None",
        "an int",
        "a str",
        "a float",
        "an object",
        "a list",
        "a dict",
    ]


def test_text_joins_non_empty_text_blocks() -> None:
    result = AgentToolResult(content=[TextContent("a"), TextContent(""), TextContent("b")])
    assert result.text == "a\nb"
