"""One JSON Schema that admits exactly a call of one of the offered tools.

A server that constrains its output to a JSON Schema (llama.cpp's
``response_format``) then cannot answer a forced turn with anything but a
well-formed call: ``{"name": <tool>, "arguments": <that tool's parameters>}``.
Each tool's own ``$defs`` are moved to the root (a ``$ref`` resolves from
the root of the whole schema, and llama.cpp refuses ``#/$defs/X`` that is not
there); two tools defining the same name differently get prefixed names.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from xcsh.core import JsonObject, JsonValue, ToolSpec

_DEFS_KEYS = ("$defs", "definitions")


def tool_call_schema(tools: Sequence[ToolSpec]) -> JsonObject:
    """The schema of ``{"name": ..., "arguments": ...}`` for a call of one of ``tools``.

    Args:
        tools: the tools the call may name (at least one).

    Returns:
        ``{"oneOf": [...], "$defs": {...}}`` (no ``oneOf`` for a single tool),
        every definition at the root and every ``$ref`` pointing there.

    Raises:
        ValueError: ``tools`` is empty.
    """
    if not tools:
        raise ValueError("a tool-call schema needs at least one tool")
    root_defs: JsonObject = {}
    branches: list[JsonValue] = []
    for tool in tools:
        parameters = copy.deepcopy(tool.parameters) or {"type": "object"}
        renames: dict[str, str] = {}
        for key in _DEFS_KEYS:
            for name, definition in _object(parameters.pop(key, None)).items():
                new = name
                if new in root_defs and root_defs[new] != definition:
                    new = f"{tool.name}__{name}"
                renames[f"#/{key}/{name}"] = f"#/$defs/{new}"
                root_defs[new] = definition
        branch: JsonObject = {
            "type": "object",
            "properties": {"name": {"const": tool.name}, "arguments": parameters},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        branches.append(_rewrite_refs(branch, renames))
    # definitions that refer to each other keep pointing at the root
    among = {f"#/definitions/{name}": f"#/$defs/{name}" for name in root_defs}
    for name, definition in list(root_defs.items()):
        root_defs[name] = _rewrite_refs(definition, among)
    schema: JsonObject = _object(branches[0]) if len(branches) == 1 else {"oneOf": branches}
    if root_defs:
        schema["$defs"] = root_defs
    return schema


def _object(value: JsonValue) -> JsonObject:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _rewrite_refs(value: JsonValue, renames: Mapping[str, str]) -> JsonValue:
    """``value`` with every ``$ref`` named in ``renames`` pointing at its new place."""
    if isinstance(value, dict):
        out = {k: _rewrite_refs(v, renames) for k, v in value.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref in renames:
            out["$ref"] = renames[ref]
        return out
    if isinstance(value, list):
        return [_rewrite_refs(v, renames) for v in value]
    return value
