"""What a pending action touches, and how a preview rebuilt on resume is compared."""

from __future__ import annotations

from xcsh.agent import RebuiltPreview, action_files, preview_digest, preview_text
from xcsh.agent.previews import compare_rebuilt

DIFF = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-foo(1)\n+bar(1)\n"


def test_action_files_reads_the_known_shapes() -> None:
    ast_edit = {"files": [{"file": "a.py", "replacements": 2, "diff": ""}, {"file": "b.py"}]}
    assert action_files(ast_edit) == ["a.py (2 replacements)", "b.py"]
    assert action_files({"files": [{"file": "c.py", "replacements": 1}]}) == [
        "c.py (1 replacement)"
    ]
    assert action_files({"files": ["x.txt", 3]}) == ["x.txt"]
    assert action_files({"path": "notes.txt"}) == ["notes.txt"]
    assert action_files(None) == [] and action_files({"diff": DIFF}) == []


def test_digest_ignores_context_and_line_numbers_only() -> None:
    moved = DIFF.replace("@@ -1,2 +1,2 @@\n x = 1", "@@ -7,2 +7,2 @@\n y = 2")
    assert preview_digest({"diff": DIFF}) == preview_digest({"diff": moved})
    assert preview_digest({"diff": DIFF}) != preview_digest({"diff": DIFF.replace("bar", "baz")})
    assert preview_digest({"diff": ""}) is None and preview_digest("x") is None
    assert preview_text({"diff": DIFF}, "fallback") == DIFF
    assert preview_text({}, "fallback") == "fallback"


def test_compare_rebuilt_names_each_difference() -> None:
    details = {"files": [{"file": "a.py", "replacements": 1}], "diff": DIFF}
    same = compare_rebuilt(
        previous_label="E: 1",
        previous_files=["a.py (1 replacement)"],
        previous_digest=preview_digest(details),
        label="E: 1",
        details=details,
    )
    assert same == []
    assert compare_rebuilt(
        previous_label="E: 2", previous_files=None, previous_digest=None, label="E: 1", details={}
    ) == ['it was "E: 2" and is now "E: 1"']
    other = compare_rebuilt(
        previous_label="E: 1",
        previous_files=["b.py (1 replacement)"],
        previous_digest="x",
        label="E: 1",
        details=details,
    )
    assert other == ["it touched b.py (1 replacement); it now touches a.py (1 replacement)"]
    note = RebuiltPreview(
        label="E: 1", previous_label="E: 1", source_tool_name="t", preview="", changes=other
    ).note()
    assert note.startswith("This preview differs from the one left pending: it touched b.py")
    unchanged = RebuiltPreview(label="E", previous_label="E", source_tool_name="t", preview="")
    assert not unchanged.changed and "same change" in unchanged.note()
