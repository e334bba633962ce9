"""AGENTS.md files from the repository root down to the working folder, then the user's."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_xcsh
from xcsh.agent import load_instructions


def repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with AGENTS.md at its root and in a sub-folder; returns (root, sub)."""
    root = tmp_path / "repo"
    sub = root / "pkg" / "mod"
    sub.mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("ABOVE THE REPOSITORY: never read\n")
    (root / "AGENTS.md").write_text("Use tabs.\n")
    (root / "pkg" / "AGENTS.md").write_text("pkg: run make check.\n")
    return root, sub


def test_root_down_to_the_working_folder_then_the_user_file(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root, sub = repo(tmp_path)
    (xcsh_home / "AGENTS.md").write_text("Answer in French.\n")
    found = load_instructions(sub, xcsh_home)
    assert [f.path for f in found.files] == [
        root / "AGENTS.md",
        root / "pkg" / "AGENTS.md",
        xcsh_home / "AGENTS.md",
    ]
    assert found.text == (
        f"Instructions from {root / 'AGENTS.md'}:\nUse tabs.\n\n"
        f"Instructions from {root / 'pkg' / 'AGENTS.md'}:\npkg: run make check.\n\n"
        f"Instructions from {xcsh_home / 'AGENTS.md'}:\nAnswer in French."
    )
    assert found.note == ""


def test_outside_a_repository_only_the_working_folder_counts(
    tmp_path: Path, xcsh_home: Path
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (tmp_path / "AGENTS.md").write_text("parent\n")
    (folder / "AGENTS.md").write_text("here\n")
    assert [f.path for f in load_instructions(folder, xcsh_home).files] == [folder / "AGENTS.md"]


def test_the_cap_cuts_with_a_note_and_unreadable_files_are_listed(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root, sub = repo(tmp_path)
    (root / "AGENTS.md").write_text("x" * 50)
    (root / "pkg" / "AGENTS.md").write_bytes(b"\xff\xfe not utf-8")
    (xcsh_home / "AGENTS.md").write_text("user rules\n")
    found = load_instructions(sub, xcsh_home, limit=30)
    assert [(f.chars, f.total) for f in found.files] == [(30, 50), (0, 10)]
    assert found.text.startswith(f"Instructions from {root / 'AGENTS.md'}:\n" + "x" * 30 + "\n")
    assert "capped at 30 characters" in found.text and "user rules" not in found.text
    assert "instructions cut at" in found.note and str(root / "AGENTS.md") in found.note
    assert len(found.unreadable) == 1 and "pkg/AGENTS.md" in found.unreadable[0]


def test_print_mode_sends_them_in_the_system_prompt_and_says_which(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root, sub = repo(tmp_path)
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "ok"}, {"text": "ok"}]))
    args = ["--provider", "scripted", "--model", str(steps), "--mode", "json", "-p", "go"]
    done = run_xcsh(args, cwd=sub, home=xcsh_home)
    assert done.returncode == 0, done.stderr
    header = json.loads(done.stdout.splitlines()[0])
    assert header["instructions"] == [str(root / "AGENTS.md"), str(root / "pkg" / "AGENTS.md")]
    off = run_xcsh(["--no-instructions", *args], cwd=sub, home=xcsh_home)
    assert json.loads(off.stdout.splitlines()[0])["instructions"] == []
    log = tmp_path / "steps.requests.jsonl"
    first, second = (json.loads(line)["system"] for line in log.read_text().splitlines())
    assert first.index("Use tabs.") < first.index("pkg: run make check.")
    assert "ABOVE THE REPOSITORY" not in first
    assert "Use tabs." not in second and "Instructions from" not in second
