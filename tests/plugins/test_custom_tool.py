"""CustomTool construction: clear errors for bad definitions (contract §5)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from xcsh import CustomTool


class Params(BaseModel):
    x: int


def make(**overrides: Any) -> CustomTool:
    spec: dict[str, Any] = {
        "name": "ok_tool",
        "description": "d",
        "parameters": Params,
        "execute": lambda i, p: "ok",
    }
    spec.update(overrides)
    return CustomTool(**spec)


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        ({"name": ""}, ValueError, "Invalid tool name ''"),
        ({"name": "x" * 65}, ValueError, "Invalid tool name"),
        ({"name": "has space"}, ValueError, "Invalid tool name 'has space'"),
        ({"description": "  "}, ValueError, "needs a non-empty description"),
        ({"parameters": [1]}, TypeError, "pydantic model class or a JSON Schema dict, got a list"),
        ({"parameters": {"properties": {}}}, ValueError, '"type": "object"'),
        (
            {"parameters": {"type": "object", "properties": {"a": {"type": "nope"}}}},
            ValueError,
            "invalid JSON Schema",
        ),
        ({"execute": "run"}, TypeError, "execute must be a function"),
    ],
)
def test_bad_definitions_are_refused_with_the_reason(
    overrides: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make(**overrides)


def test_keyword_only_and_label_default() -> None:
    tool = make(label="")
    assert tool.label == "ok_tool"
    agent_tool = tool.to_agent_tool()
    assert (agent_tool.name, agent_tool.label, agent_tool.hidden) == ("ok_tool", "ok_tool", False)
    assert agent_tool.json_schema()["required"] == ["x"]
    with pytest.raises(TypeError):
        CustomTool("positional", "d", Params, lambda i, p: "ok")  # type: ignore[misc]
