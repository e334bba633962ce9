"""Reading JSON that xcsh did not write itself, with its nesting bounded.

Session files, journal records, steps files, the trust file and the tool calls
a model sends are JSON from disk or from a provider: anyone (or any bug) can
put a value nested a thousand levels deep there. Python's parser then raises
:class:`RecursionError` (a traceback, not a message), and pydantic, which
checks the records, gives up past about 250 levels with an error that names
the wrong thing. :func:`loads` is the one reader for such JSON: nesting deeper
than :data:`MAX_DEPTH` is a :class:`JsonTooDeep`, a
:class:`json.JSONDecodeError` (so the callers' own "not valid JSON" handling
applies, with the line and column where the limit is passed).

Standard library only, so every layer can use it.
"""

from __future__ import annotations

import json
import re

MAX_DEPTH = 100
"""How deeply arrays and objects may nest in JSON xcsh reads (xcsh's own records
nest about ten levels; a model's tool call arguments rarely more than five)."""

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonTooDeep(json.JSONDecodeError):
    """JSON nested deeper than the bound (a :class:`json.JSONDecodeError`, position included)."""


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> object:
    """``json.loads(text)``, refusing nesting deeper than ``max_depth`` levels.

    Args:
        text: the JSON text (bytes are read as UTF-8, as :func:`json.loads` does).
        max_depth: the deepest nesting of arrays and objects allowed.

    Returns:
        The parsed value.

    Raises:
        JsonTooDeep: the value nests deeper than ``max_depth`` (its ``msg`` says so,
            ``lineno``/``colno`` where it first does).
        json.JSONDecodeError: the text is not JSON.
        UnicodeDecodeError: ``text`` is bytes that are not UTF-8.
    """
    doc = text.decode("utf-8") if isinstance(text, bytes) else text
    if doc.count("[") + doc.count("{") <= max_depth:  # cannot nest that deep
        return json.loads(doc)
    try:
        value = json.loads(doc)
    except RecursionError:
        value = None
    else:
        if _depth(value) <= max_depth:
            return value
    raise JsonTooDeep(
        f"nested more than {max_depth} levels deep", doc, _too_deep_at(doc, max_depth)
    )


def _depth(value: object) -> int:
    """How deeply lists and dicts nest in ``value`` (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: list[object] | None = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            children = None
        if children is not None:
            deepest = max(deepest, depth + 1)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _too_deep_at(doc: str, max_depth: int) -> int:
    """The offset in ``doc`` of the bracket that opens level ``max_depth + 1`` (0 if none)."""
    depth = 0
    for token in _TOKEN.finditer(doc):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > max_depth:
                return token.start()
        elif char in "]}":
            depth -= 1
    return 0
