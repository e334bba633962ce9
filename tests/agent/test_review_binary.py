"""Partial apply, preview ids, rebuilt previews and rewrites that would not parse,
through the real ``xcsh -p`` with the scripted model (what the model is told, what lands)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import run_xcsh


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def edit(pat: str, out: str, **extra: Any) -> dict[str, Any]:
    return call("ast_edit", ops=[{"pat": pat, "out": out}], **extra)


def resolve(action: str = "apply", reason: str = "checked", **extra: Any) -> dict[str, Any]:
    return call("resolve", action=action, reason=reason, **extra)


def run_steps(
    root: Path, home: Path, steps: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run the steps (then a closing text); returns every event and the tool results."""
    script = root.parent / "steps.json"
    script.write_text(json.dumps([*steps, {"text": "Done."}]))
    done = run_xcsh(
        ["--provider", "scripted", "--model", str(script), "--mode", "json", "-p", "go"],
        cwd=root,
        home=home,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return events, [e for e in events if e["type"] == "tool_result"]


def texts(results: list[dict[str, Any]]) -> list[str]:
    return [r["text"] for r in results]


def test_only_a_file_then_only_a_change_id(tmp_path: Path, xcsh_home: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print(1)\n")
    (root / "b.py").write_text("print(2)\nprint(3)\n")
    events, results = run_steps(
        root,
        xcsh_home,
        [
            {"tool_calls": [edit("print($A)", "log($A)")]},
            {"tool_calls": [resolve(only=["a.py"], id="p1")]},
            {"tool_calls": [edit("print($A)", "show($A)", path="b.py")]},
            {"tool_calls": [resolve(only=["c5"])]},
        ],
    )
    preview, by_file, second, by_id = texts(results)
    assert "  c1 -1:1 print(1)" in preview and "  c3 -2:1 print(3)" in preview
    assert by_file == (
        "Applied 1 of 3 changes of p1 (AST Edit: 3 replacements in 2 files): c1 in a.py. "
        "Discarded: c2, c3 in b.py.\n"
        "The change is written; nothing is left to apply or resolve. Tell the user what changed."
        "\nApplied 1 replacement in 1 file: a.py."
    )
    assert "This is preview p2" in second and "  c5 -2:1 print(3)" in second
    assert by_id.startswith(
        "Applied 1 of 2 changes of p2 (AST Edit: 2 replacements in 1 file): c5 in b.py. "
        "Discarded: c4 in b.py."
    )
    assert (root / "a.py").read_text() == "log(1)\n"
    assert (root / "b.py").read_text() == "print(2)\nshow(3)\n"
    assert events[-1]["type"] == "run_end" and events[-1]["pending"] == 0


def test_wrong_id_refused_then_a_stale_preview_is_rebuilt(tmp_path: Path, xcsh_home: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print(1)\nprint(2)\n")
    events, results = run_steps(
        root,
        xcsh_home,
        [
            {"tool_calls": [edit("print($A)", "log($A)"), edit("print(2)", "out(2)")]},
            {"tool_calls": [resolve(id="p1")]},
            {"tool_calls": [resolve(id="p2")]},
            {"tool_calls": [resolve(id="p1")]},
            {"tool_calls": [resolve(id="p3")]},
        ],
    )
    _, second, refused, applied, rebuilt, last = results
    assert "Pending previews below this one touch the same files: p1 (a.py)." in second["text"]
    assert refused["message"]["is_error"] and refused["text"] == (
        "p1 is not the top pending preview: the top is p2 (AST Edit: 1 replacement in 1 file). "
        "Previews are resolved last first: resolve p2 first, or leave out `id`."
    )
    assert (
        not applied["message"]["is_error"]
        and "Applied 1 replacement in 1 file: a.py." in applied["text"]
    )
    assert rebuilt["text"].startswith(
        "Not applied: the files of p1 changed since its preview (a.py). It was previewed again "
        'against them as p3, which is now pending instead: it was "AST Edit: 2 replacements '
        'in 1 file" and is now "AST Edit: 1 replacement in 1 file". Check it, then resolve p3.'
    )
    assert "  c1 -1:1 print(1)" in rebuilt["text"]  # the same change keeps its id
    assert not last["message"]["is_error"]
    assert (root / "a.py").read_text() == "log(1)\nout(2)\n"
    assert events[-1]["pending"] == 0


def test_a_rewrite_that_would_not_parse_leaves_the_files_out(
    tmp_path: Path, xcsh_home: Path
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("print(1)\n")
    (root / "b.py").write_text("x = 1\nprint(x, 2)\n")
    original = {p.name: p.read_text() for p in root.iterdir()}
    events, results = run_steps(
        root, xcsh_home, [{"tool_calls": [edit("print($$$A)", "print($$$A")]}]
    )
    (result,) = results
    assert result["text"] == (
        "No replacements made\n"
        "Nothing was changed, and nothing is pending.\n"
        "Left out 2 files whose rewrite would not parse (new parse errors, first at): "
        "a.py (line 1, column 1), b.py (line 2, column 1). Check the rewrite; "
        "`include_broken` writes them anyway."
    )
    assert {p.name: p.read_text() for p in root.iterdir()} == original
    assert events[-1]["pending"] == 0
