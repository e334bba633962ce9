"""A server's tool schema made one the model providers take, or refused with a reason.

Providers take a tool's parameters as a JSON Schema object (``"type":
"object"`` at the top). A server may send a schema without ``type`` (repaired:
the top level is an object, since MCP arguments always are) or one that is
no valid JSON Schema, or whose top level is another type (the tool is left
out with a notice naming the problem, as a custom tool with such a schema is
refused).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass

import jsonschema

from xcsh.core import JsonObject, JsonValue


@dataclass(frozen=True, kw_only=True)
class CheckedSchema:
    """A tool's input schema as offered, or why it is not.

    Args:
        schema: the schema to offer (``None``: the tool is left out).
        problem: why it was left out (``""`` when it is offered).
        repaired: what was changed to make it offerable (``""``: nothing).
    """

    schema: JsonObject | None
    problem: str = ""
    repaired: str = ""


def check_schema(raw: Mapping[str, object]) -> CheckedSchema:
    """``raw`` (a tool's ``inputSchema``) as providers take it.

    Returns:
        The schema (a copy, repaired when it lacked ``"type": "object"``), or the
        problem that leaves the tool out: not JSON, no valid JSON Schema, or a top
        level that is not an object.
    """
    try:
        schema: JsonValue = json.loads(json.dumps(raw))
    except (TypeError, ValueError) as exc:
        return CheckedSchema(schema=None, problem=f"its input schema is not JSON ({exc})")
    if not isinstance(schema, dict):
        return CheckedSchema(schema=None, problem="its input schema is not a JSON object")
    repaired = ""
    top = schema.get("type")
    if top is None:
        schema = {**copy.deepcopy(schema), "type": "object"}
        repaired = 'added "type": "object" to its input schema'
    elif top != "object":
        return CheckedSchema(
            schema=None, problem=f'its input schema is of type {top!r}, not "object"'
        )
    try:
        validator = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        return CheckedSchema(
            schema=None,
            problem=f"its input schema is not valid JSON Schema at {where}: {exc.message}",
        )
    return CheckedSchema(schema=schema, repaired=repaired)


def schema_bytes(schema: JsonObject) -> int:
    """The size of ``schema`` as JSON, in bytes (what a grammar builder reads)."""
    return len(json.dumps(schema, separators=(",", ":")).encode("utf-8"))


__all__ = ["CheckedSchema", "check_schema", "schema_bytes"]
