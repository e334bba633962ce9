"""The one reader of JSON from disk or a provider bounds its nesting (core/json_read.py)."""

from __future__ import annotations

import json

import pytest

from xcsh.core.json_read import MAX_DEPTH, JsonTooDeep, loads


@pytest.mark.parametrize("levels", [MAX_DEPTH + 1, 1000, 200_000])
def test_nesting_past_the_bound_is_a_decode_error_at_the_first_level_too_deep(
    levels: int,
) -> None:
    text = '{"a": "[[[[", "b": ' + "[" * levels + "]" * levels + "}"
    with pytest.raises(JsonTooDeep) as caught:
        loads(text)
    assert isinstance(caught.value, json.JSONDecodeError)  # callers' own handling applies
    assert caught.value.msg == f"nested more than {MAX_DEPTH} levels deep"
    assert caught.value.pos == text.index("[[[[[") + MAX_DEPTH - 1  # brackets in strings skipped


def test_values_within_the_bound_read_as_json_loads_reads_them() -> None:
    text = json.dumps({"x": [[{"y": "[" * 500}]] * 3, "n": None})
    assert loads(text) == json.loads(text) == loads(text.encode())
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert loads(deep) == json.loads(deep)
