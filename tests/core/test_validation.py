"""A pydantic report worded as ``place: problem``, the same for every layer."""

from __future__ import annotations

import pydantic
import pytest

from xcsh.core.validation import problems


class _Edit(pydantic.BaseModel):
    old_text: str


class _Args(pydantic.BaseModel):
    path: str
    edits: list[_Edit]


def test_each_error_names_its_dotted_place_and_the_scalar_given() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        _Args.model_validate({"path": 5, "edits": [{"old_text": None}, {}]})
    found = problems(caught.value)
    assert [p.worded() for p in found] == [
        "path: Input should be a valid string",
        "edits.0.old_text: Input should be a valid string",
        "edits.1.old_text: Field required",
    ]
    assert [(p.shown, p.got) for p in found] == [(True, 5), (True, None), (False, None)]


def test_an_error_of_the_whole_input_takes_the_given_name_or_none() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        _Args.model_validate([1, 2])
    (problem,) = problems(caught.value)
    assert problem.where == ""
    assert problem.worded("(arguments)").startswith("(arguments): Input should be")
    assert problem.worded() == problem.message
    assert not problem.shown
