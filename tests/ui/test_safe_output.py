"""Nothing raw reaches the terminal: control characters in file contents, file
names, labels, tool output and model text are shown in visible notation, so they
cannot move the cursor or forge diff lines; JSON output keeps the exact bytes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xcsh.ui import TerminalStyle, make_console, render_preview, visible, visible_line

HOSTILE_SOURCE = "def f():\n    print('ok\x1b[2K\x1b[1A\x1b[2K\r-    print(\"hello\")')\n"
FORGED_NAME = "zz\n+++ b\u2215fake.py"


def test_visible_uses_caret_and_escape_notation() -> None:
    assert visible("a\x1b[2Kb") == "a^[[2Kb"
    assert visible("x\ry\x07\x7f") == "x^My^G^?"
    assert visible("\x9b31m \u202eevil") == "\\x9b31m \\u202eevil"
    assert visible("two\nlines\tand tab") == "two\nlines\tand tab"
    assert visible_line("two\nlines") == "two^Jlines"
    plain = "nothing to change: é ✔"
    assert visible(plain) is plain


def test_console_output_never_carries_a_raw_escape() -> None:
    from rich.text import Text

    buffer = io.StringIO()
    console = make_console(buffer, TerminalStyle(color=True, unicode=True))
    console.print("model says \x1b]0;title\x07 and \r back")
    console.print(Text("tool output \x1b[1A up"))
    style = TerminalStyle(color=True, unicode=True)
    diff = "--- a/x\n+++ b/x\n-a\x1b[2K\n+b\n"
    console.print(render_preview("AST Edit: \x1b[31mred", diff, style=style))
    out = buffer.getvalue()
    # colour escapes from rich itself are allowed; none of the input's sequences survive
    assert "\x1b]0;" not in out and "\x1b[1A" not in out and "\x1b[2K" not in out
    assert "\x1b[31mred" not in out and "\r" not in out and "\x07" not in out
    assert "^[]0;title^G" in out and "^M back" in out and "^[[1A up" in out and "-a^[[2K" in out


@pytest.fixture
def hostile_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_bytes(HOSTILE_SOURCE.encode())
    (root / FORGED_NAME).write_text("print(1)\n", encoding="utf-8")
    return root


def _ast_edit(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xcsh", "ast-edit", "-p", "print($A)", "-r", "log($A)", *extra, "."],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"},
    )


def test_ast_edit_diff_through_a_pipe_shows_no_raw_control_and_no_forged_header(
    hostile_repo: Path,
) -> None:
    done = _ast_edit(hostile_repo, "--dry-run")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "\x1b" not in out and "\r" not in out
    assert "-    print('ok^[[2K^[[1A^[[2K^M-    print(\"hello\")')" in out
    headers = [line for line in out.splitlines() if line.startswith(("+++", "---"))]
    # two files, two header pairs; the name's newline is shown, never a line of its own
    assert headers == [
        "--- a/a.py",
        "+++ b/a.py",
        "--- a/zz^J+++ b\u2215fake.py\t",  # a name with a space ends with a tab (git)
        "+++ b/zz^J+++ b\u2215fake.py\t",
    ]
    assert (hostile_repo / "a.py").read_bytes() == HOSTILE_SOURCE.encode()


def test_ast_edit_json_keeps_the_exact_text(hostile_repo: Path) -> None:
    done = _ast_edit(hostile_repo, "--dry-run", "--json")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    by_file = {record["file"]: record for record in records}
    assert set(by_file) == {"a.py", FORGED_NAME}
    assert "\x1b[2K\x1b[1A" in by_file["a.py"]["replacement"]
    assert "\r" in by_file["a.py"]["replacement"]


def test_print_mode_text_shows_model_text_and_tool_output_visibly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from xcsh.cli.agent_cmd import build_parser, run_print

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = 1\n")
    steps = [
        {
            "text": "looking \x1b[2J",
            "tool_calls": [{"name": "resolve", "arguments": {"action": "x\x1b[1A", "reason": "r"}}],
        },
        {"text": "Done \x1b[1A\x1b[2K\rall good"},
    ]
    path = tmp_path / "steps.json"
    path.write_text(json.dumps(steps))
    args = build_parser().parse_args(["--provider", "scripted", "--model", str(path), "-p", "go"])
    out = io.StringIO()
    code = asyncio.run(run_print(args, stdout=out))
    err = capsys.readouterr().err
    assert code == 0, err
    assert out.getvalue() == "Done ^[[1A^[[2K^Mall good\n"
    assert "\x1b[2J" not in err and "\x1b[1A" not in err and "looking ^[[2J" in err
