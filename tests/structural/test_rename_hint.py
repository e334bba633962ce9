"""Which ``ast_edit`` ops count as renaming a callee, and the places a call rename leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.structural import EditOp, EditSpec, ScopeSpec, preview_edit
from xcsh.structural.tools.rename_hint import CalleeRename, callee_renames, left_places


def spec(*ops: tuple[str, str], **more: object) -> EditSpec:
    return EditSpec(ops=tuple(EditOp(pat=p, out=o) for p, o in ops), **more)  # type: ignore[arg-type]


def test_a_call_of_a_bare_name_with_all_its_arguments_renamed_is_a_callee_rename() -> None:
    assert callee_renames(spec(("old($$$A)", "new($$$A)"), (" f($$$)", "g($$$) "))) == (
        CalleeRename("old", "new"),
        CalleeRename("f", "g"),
    )


@pytest.mark.parametrize(
    "ops",
    [
        [("old($$$A)", "new($$$B)")],  # the arguments are not carried over as they are
        [("old($A)", "new($A)")],  # one argument: calls with others are not the same name
        [("old($$$A)", "old($$$A)")],
        [("m.old($$$A)", "m.new($$$A)")],
        [("old($$$A)", "new($$$A, 1)")],
        [("old($$$A)", "new($$$A)"), ("print($A)", "log($A)")],  # not every op renames
    ],
)
def test_other_ops_are_not_callee_renames(ops: list[tuple[str, str]]) -> None:
    assert callee_renames(spec(*ops)) == ()


def test_an_edit_with_a_selector_is_left_alone() -> None:
    assert callee_renames(spec(("old($$$A)", "new($$$A)"), selector="call")) == ()


def test_the_places_left_put_the_definition_first(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import b\nb.old(1)\nold(2)\n")
    (tmp_path / "b.py").write_text("x = 1\n\n\nasync def old(n):\n    return old(n - 1)\n")
    where = ScopeSpec(root=tmp_path, lang="python")
    narrow = preview_edit(spec(("old($$$A)", "new($$$A)")), where)
    wide = preview_edit(spec(("old", "new")), where)
    assert narrow.total == 2 and wide.total == 4
    assert left_places(narrow, wide) == ["b.py:4 (definition)", "a.py:2"]
