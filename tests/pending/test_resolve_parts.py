"""resolve's `id` and `only`, stale previews rebuilt, and the texts of docs/resolve.md."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from xcsh import AgentToolResult, PendingAction, PendingActionStore, ToolError
from xcsh.pending import Preview, PreviewChange, PreviewFile, ResolveOutcome
from xcsh.tools import create_ast_edit_tool, create_resolve_tool

DOCS = Path(__file__).resolve().parents[2] / "docs" / "resolve.md"


def documented() -> list[re.Pattern[str]]:
    """Each line of the fenced blocks of docs/resolve.md, ``<...>`` as a wildcard."""
    blocks = re.findall(r"```\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    return [
        re.compile(".+?".join(re.escape(part) for part in re.split(r"<[^<>]+>", line)))
        for line in lines
    ]


def assert_documented(text: str) -> None:
    """The first line of ``text`` is one of the documented texts, exactly."""
    first = text.splitlines()[0]
    assert any(p.fullmatch(first) for p in documented()), f"not in docs/resolve.md: {first!r}"


async def resolve(store: PendingActionStore, **params: Any) -> AgentToolResult:
    params.setdefault("action", "apply")
    params.setdefault("reason", "test")
    return await create_resolve_tool(store).execute("r", params)


def part_action(applied: list[list[str]], label: str = "Rename") -> PendingAction:
    changes = (
        PreviewChange(id="r1", file="a.txt", summary="a"),
        PreviewChange(id="r2", file="b.txt", summary="b"),
    )
    return PendingAction(
        label=label,
        source_tool_name="t",
        apply=lambda reason: applied.append(["r1", "r2"]),
        preview=Preview(
            files=(
                PreviewFile(path="a.txt", changes=("r1",)),
                PreviewFile(path="b.txt", changes=("r2",)),
            ),
            changes=changes,
        ),
        apply_parts=lambda subset, reason: applied.append([c.id for c in subset.changes]),
    )


async def test_ids_refusals_are_exact_and_pop_nothing() -> None:
    store = PendingActionStore()
    applied: list[list[str]] = []
    store.push(part_action(applied, "Lower"))
    store.push(PendingAction(label="Whole", source_tool_name="t", apply=lambda r: None))
    assert [a.id for a in store.snapshot()] == ["p2", "p1"]
    cases = [
        (
            {"reason": "  "},
            "`reason` is blank. Say in a few words why you apply or discard this preview.",
        ),
        (
            {"id": "p1"},
            "p1 is not the top pending preview: the top is p2 (Whole). Previews are resolved "
            "last first: resolve p2 first, or leave out `id`.",
        ),
        (
            {"id": "p9"},
            "p9 is not a pending preview: the top is p2 (Whole). Previews are "
            "resolved last first: resolve p2 first, or leave out `id`.",
        ),
        (
            {"action": "discard", "only": ["c1"]},
            "`only` goes with action 'apply' (it names the parts to apply); to discard a whole "
            "preview leave `only` out.",
        ),
        (
            {"only": ["r1"]},
            "p2 (Whole) cannot be applied in parts: its tool applies it whole. Leave out `only` "
            "to apply all of it, or discard it.",
        ),
    ]
    for params, text in cases:
        with pytest.raises(ToolError) as info:
            await resolve(store, **params)
        assert str(info.value) == text
        assert_documented(text)
    assert store.count == 2
    done = await resolve(store, id="p2")
    assert done.text == "Applied: Whole." and isinstance(done.details, ResolveOutcome)
    with pytest.raises(ToolError) as info:
        await resolve(store, only=["r3", "b.txt"])
    assert str(info.value) == (
        "`only` names what p1 does not have: r3. p1 has r1 in a.txt; r2 in b.txt. Nothing was "
        "applied; p1 is still pending."
    )
    assert_documented(str(info.value))
    assert store.count == 1 and applied == []


async def test_only_applies_exactly_the_named_parts_and_says_so() -> None:
    store = PendingActionStore()
    applied: list[list[str]] = []
    store.push(part_action(applied))
    result = await resolve(store, only=["./b.txt"])
    assert applied == [["r2"]] and store.count == 0
    assert result.text.startswith(
        "Applied 1 of 2 changes of p1 (Rename): r2 in b.txt. Discarded: r1 in a.txt."
    )
    assert_documented(result.text)
    outcome = result.details
    assert isinstance(outcome, ResolveOutcome) and outcome.status == "applied"
    assert [c.id for c in outcome.applied] == ["r2"] and [c.id for c in outcome.dropped] == ["r1"]
    # the mapping view stays the four documented keys
    assert dict(outcome) == {
        "action": "apply",
        "reason": "test",
        "source_tool_name": "t",
        "label": "Rename",
    }


async def test_only_naming_another_previews_change_says_whose_it_is(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(1)\nprint(2)\n")
    store = PendingActionStore()
    tool = create_ast_edit_tool(str(tmp_path), store)
    await tool.execute("e1", {"ops": [{"pat": "print($A)", "out": "log($A)"}]})
    second = await tool.execute("e2", {"ops": [{"pat": "print(2)", "out": "show(2)"}]})
    assert_documented(
        next(line for line in second.text.splitlines() if line.startswith("Pending previews"))
    )
    assert "p1 (a.py)" in second.text
    with pytest.raises(ToolError) as info:
        await resolve(store, only=["c1"])
    assert "(c1 belongs to p1, which is not the top)" in str(info.value)
    assert_documented(str(info.value))


async def test_ast_edit_partial_apply_writes_only_the_chosen_change(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(1)\nprint(2)\n")
    (tmp_path / "b.py").write_text("print(3)\n")
    store = PendingActionStore()
    preview = await create_ast_edit_tool(str(tmp_path), store).execute(
        "e", {"ops": [{"pat": "print($A)", "out": "log($A)"}]}
    )
    assert_documented(preview.text.splitlines()[-1])
    result = await resolve(store, only=["c2", "b.py"])
    assert (tmp_path / "a.py").read_text() == "print(1)\nlog(2)\n"
    assert (tmp_path / "b.py").read_text() == "log(3)\n"
    assert result.text == (
        "Applied 2 of 3 changes of p1 (AST Edit: 3 replacements in 2 files): c2 in a.py; c3 in "
        "b.py. Discarded: c1 in a.py.\nApplied 2 replacements in 2 files: a.py, b.py."
    )
    assert store.count == 0
