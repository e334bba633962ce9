"""Folder trust: records under $XCSH_HOME, ask_trust, malformed files (contract §5, §5a)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin_helpers import write_tool

from xcsh import UsageError
from xcsh.plugins import (
    aask_trust,
    ask_trust,
    is_trusted,
    trust_folder,
    trusted_folders,
    untrust_folder,
)


def test_trust_records_the_real_path_with_a_schema_version(tmp_path: Path, xcsh_home: Path) -> None:
    real = tmp_path / "repo"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert trust_folder(link) == real.resolve()
    assert trust_folder(real) == real.resolve()  # again: harmless, no duplicate
    data = json.loads((xcsh_home / "trusted.json").read_text())
    assert data["version"] == 1
    assert [entry["path"] for entry in data["folders"]] == [str(real.resolve())]
    assert is_trusted(link) and is_trusted(real)
    sub = real / "sub"
    sub.mkdir()
    assert not is_trusted(sub)  # trust is per folder, not inherited
    assert untrust_folder(link) is True
    assert untrust_folder(link) is False
    assert trusted_folders() == []


def test_trusting_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a folder"):
        trust_folder(tmp_path / "nope")


def test_malformed_trust_file_is_reported_and_never_overwritten(
    tmp_path: Path, xcsh_home: Path
) -> None:
    path = xcsh_home / "trusted.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid JSON") as info:
        trust_folder(tmp_path)
    assert "fix or delete" in str(info.value)
    assert path.read_text() == "{not json"
    path.write_text('{"version": 99, "folders": []}', encoding="utf-8")
    with pytest.raises(UsageError, match="unknown format"):
        is_trusted(tmp_path)


def test_hand_edited_trust_entries_without_a_path_are_left_out(
    tmp_path: Path, xcsh_home: Path
) -> None:
    path = xcsh_home / "trusted.json"
    folders = [
        {"path": str(tmp_path), "trusted_at": "2026-01-01T00:00:00Z", "note": "mine"},
        {"path": 3},
        "just a string",
        {"trusted_at": "2026"},
    ]
    path.write_text(json.dumps({"version": 1, "folders": folders}), encoding="utf-8")
    assert [(r.path, r.trusted_at, r.fingerprint) for r in trusted_folders()] == [
        (str(tmp_path), "2026-01-01T00:00:00Z", "")
    ]
    for not_a_list in ('{"path": "/x"}', '"/x"', "5"):
        path.write_text(f'{{"version": 1, "folders": {not_a_list}}}', encoding="utf-8")
        assert trusted_folders() == []


def test_malformed_trust_file_becomes_a_load_error(
    project: Path, project_tools: Path, xcsh_home: Path
) -> None:
    from xcsh import load_custom_tools

    write_tool(project_tools, "p.py", "def factory(api):\n    return []\n")
    (xcsh_home / "trusted.json").write_text("[]", encoding="utf-8")
    result = load_custom_tools(project, store=None, entry_points=False)
    kinds = [(e.kind, e.path) for e in result.errors]
    assert kinds == [("error", str(xcsh_home / "trusted.json")), ("untrusted", str(project_tools))]


@pytest.mark.parametrize(
    ("answer", "loads", "remembered"),
    [
        ("y", True, True),
        (True, True, True),
        ("always", True, True),
        ("o", True, False),
        ("once", True, False),
        ("n", False, False),
        ("", False, False),
        (False, False, False),
    ],
)
def test_ask_trust_answers(
    project: Path, project_tools: Path, answer: bool | str, loads: bool, remembered: bool
) -> None:
    write_tool(project_tools, "p.py", "def factory(api):\n    return []\n")
    questions: list[str] = []

    def prompt(question: str) -> bool | str:
        questions.append(question)
        return answer

    assert ask_trust(project, prompt) is loads
    assert len(questions) == 1
    assert str(project_tools) in questions[0] and "Trust" in questions[0]
    assert is_trusted(project) is remembered


def test_ask_trust_asks_only_when_needed(project: Path, project_tools: Path) -> None:
    def never(question: str) -> bool:
        raise AssertionError("must not ask")

    assert ask_trust(project, never) is False  # no project tools: nothing to ask
    write_tool(project_tools, "p.py", "def factory(api):\n    return []\n")
    trust_folder(project)
    assert ask_trust(project, never) is True  # already trusted


def test_ask_trust_end_of_input_means_no(project: Path, project_tools: Path) -> None:
    write_tool(project_tools, "p.py", "def factory(api):\n    return []\n")

    def eof(question: str) -> str:
        raise EOFError

    assert ask_trust(project, eof) is False
    assert not is_trusted(project)


async def test_async_prompt_for_async_front_ends(project: Path, project_tools: Path) -> None:
    write_tool(project_tools, "p.py", "def factory(api):\n    return []\n")

    async def prompt(question: str) -> str:
        return "yes"

    assert await aask_trust(project, prompt) is True
    assert is_trusted(project)
