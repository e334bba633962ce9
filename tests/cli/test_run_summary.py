"""``xcsh -p`` says what the run applied and left pending, whatever the model answers.

Qwen2.5 1.5B, after an apply, told the user to apply the change "with the
`resolve` tool". The run's own summary, read from the undo journal and the
pending stack, goes to stderr and, in ``--mode json``, is the event just
before ``run_end``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import run_xcsh


def _run(root: Path, home: Path, steps: list[dict[str, Any]], *mode: str) -> Any:
    script = root.parent / "steps.json"
    script.write_text(json.dumps(steps))
    args = ["-p", "go", "--provider", "scripted", "--model", str(script), *mode]
    return run_xcsh(args, cwd=root, home=home)


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n")
    (root / "b.py").write_text("print(x)\n")
    return root


EDIT = {"name": "edit", "arguments": {"path": "a.py", "old_text": "x = 1", "new_text": "x = 2"}}
AST_EDIT = {"name": "ast_edit", "arguments": {"ops": [{"pat": "print($A)", "out": "log($A)"}]}}
APPLY = {"name": "resolve", "arguments": {"action": "apply", "reason": "asked"}}
WRONG = {"text": "To apply the change, call the `resolve` tool with `only`."}


def test_the_summary_names_every_change_written_and_comes_just_before_run_end(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = _project(tmp_path)
    steps = [{"tool_calls": [EDIT]}, {"tool_calls": [AST_EDIT]}, {"tool_calls": [APPLY]}, WRONG]
    done = _run(root, xcsh_home, steps, "--mode", "json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    summary, end = events[-2:]
    assert end["type"] == "run_end" and end["final_text"] == WRONG["text"]
    assert summary["type"] == "run_summary" and summary["pending"] == []
    applied = [(a["source_tool_name"], a["files"], a["file_count"]) for a in summary["applied"]]
    assert applied == [("edit", ["a.py"], 1), ("ast_edit", ["b.py"], 1)]
    assert summary["applied"][1]["label"] == "AST Edit: 1 replacement in 1 file"
    assert (root / "a.py").read_text() == "x = 2\n" and (root / "b.py").read_text() == "log(x)\n"
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("xcsh: this run applied 2 changes to 2 files: ")
    assert last.endswith("'AST Edit: 1 replacement in 1 file' (b.py). Nothing is left to apply.")
    # the model read, after its apply, that nothing was left to do
    (resolved,) = [e for e in events if e["type"] == "resolved"]
    assert resolved["text"].splitlines() == [
        "Applied 1 replacement in 1 file: b.py.",
        "The change is written; nothing is left to apply or resolve. Tell the user what changed.",
    ]


def test_a_preview_left_pending_is_named_and_nothing_is_said_applied(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = _project(tmp_path)
    steps = [{"tool_calls": [AST_EDIT]}, *[WRONG] * 6]
    done = _run(root, xcsh_home, steps)
    assert done.returncode == 1, done.stderr  # the forced turns ran out
    assert done.stdout.strip() == WRONG["text"]
    lines = done.stderr.strip().splitlines()
    assert lines[-2:] == [
        "xcsh: this run applied no change.",
        "xcsh: pending: p1 'AST Edit: 1 replacement in 1 file' (apply or discard it with "
        "--continue).",
    ]
    assert (root / "b.py").read_text() == "print(x)\n"
