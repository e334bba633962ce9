"""JSON values as types: :data:`JsonValue`, :data:`JsonObject`, and their one adapter.

A value that crosses a JSON edge (a tool call's arguments, a tool's parameter
schema, a session file's record) is typed with these aliases instead of
``Any``; :func:`json_object` checks an untyped value (what ``json.loads`` or
an SDK returns) into one.
"""

from __future__ import annotations

import functools
from typing import TypeAlias

import pydantic
from pydantic import JsonValue

JsonObject: TypeAlias = dict[str, JsonValue]
"""A JSON object (:data:`JsonValue`: pydantic's, a value JSON can carry)."""


@functools.cache
def _object_adapter() -> pydantic.TypeAdapter[JsonObject]:
    """The one adapter of a JSON object (built on first use: it costs milliseconds)."""
    return pydantic.TypeAdapter(JsonObject)


def json_object(value: object) -> JsonObject | None:
    """``value`` as a :data:`JsonObject`, or ``None`` when it is not one.

    Args:
        value: any value, typically parsed JSON (``dict`` of ``str`` to lists,
            dicts, strings, numbers, booleans and ``None``).

    Returns:
        A copy of ``value`` typed as a JSON object; ``None`` when ``value`` is
        not a ``dict`` with ``str`` keys holding JSON values only.
    """
    if not isinstance(value, dict):
        return None
    try:
        return _object_adapter().validate_python(value, strict=True)
    except pydantic.ValidationError:
        return None


__all__ = ["JsonObject", "JsonValue", "json_object"]
