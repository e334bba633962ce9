"""How a preview rebuilt on resume is compared with the one left pending."""

from __future__ import annotations

from xcsh.agent import RebuiltPreview, preview_digest
from xcsh.pending import Preview, PreviewFile, compare_rebuilt

DIFF = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-foo(1)\n+bar(1)\n"


def test_file_labels_count_each_files_changes() -> None:
    preview = Preview(
        files=(PreviewFile(path="a.py", changes=("c1", "c2")), PreviewFile(path="b.py"))
    )
    assert preview.file_labels() == ["a.py (2 replacements)", "b.py"]
    assert Preview(files=(PreviewFile(path="c.py", changes=("c3",)),)).file_labels() == [
        "c.py (1 replacement)"
    ]
    assert Preview().file_labels() == []


def test_digest_ignores_context_and_line_numbers_only() -> None:
    moved = DIFF.replace("@@ -1,2 +1,2 @@\n x = 1", "@@ -7,2 +7,2 @@\n y = 2")
    assert preview_digest(Preview(diff=DIFF)) == preview_digest(Preview(diff=moved))
    assert preview_digest(Preview(diff=DIFF)) != preview_digest(
        Preview(diff=DIFF.replace("bar", "baz"))
    )
    assert preview_digest(Preview()) is None


def test_compare_rebuilt_names_each_difference() -> None:
    preview = Preview(files=(PreviewFile(path="a.py", changes=("c1",)),), diff=DIFF)
    same = compare_rebuilt(
        previous_label="E: 1",
        previous_files=["a.py (1 replacement)"],
        previous_digest=preview_digest(preview),
        label="E: 1",
        preview=preview,
    )
    assert same == []
    assert compare_rebuilt(
        previous_label="E: 2",
        previous_files=None,
        previous_digest=None,
        label="E: 1",
        preview=Preview(),
    ) == ['it was "E: 2" and is now "E: 1"']
    other = compare_rebuilt(
        previous_label="E: 1",
        previous_files=["b.py (1 replacement)"],
        previous_digest="x",
        label="E: 1",
        preview=preview,
    )
    assert other == ["it touched b.py (1 replacement); it now touches a.py (1 replacement)"]
    note = RebuiltPreview(
        label="E: 1", previous_label="E: 1", source_tool_name="t", preview="", changes=other
    ).note()
    assert note.startswith("This preview differs from the one left pending: it touched b.py")
    unchanged = RebuiltPreview(label="E", previous_label="E", source_tool_name="t", preview="")
    assert not unchanged.changed and "same change" in unchanged.note()
