"""Rendering of resolved actions and previews (contract §6)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xcsh.pending import PreviewChange, ResolveOutcome
from xcsh.ui import (
    TerminalStyle,
    detect_style,
    make_console,
    render_preview,
    render_resolution,
    split_label,
)

PLAIN = TerminalStyle(color=False, unicode=False)
RICH = TerminalStyle(color=True, unicode=True)


def draw(renderable: object, style: TerminalStyle) -> str:
    buf = io.StringIO()
    console = make_console(buf, style)
    console.print(renderable)
    return buf.getvalue()


def details(action: str) -> ResolveOutcome:
    return ResolveOutcome(
        action=action,
        reason="tests pass",
        source_tool_name="ast_edit",
        label="AST Edit: 2 replacements in 1 file",
        status="applied" if action == "apply" else "discarded",
    )


def test_partial_apply_names_the_changes_applied_and_discarded() -> None:
    outcome = ResolveOutcome(
        action="apply",
        reason="tests pass",
        source_tool_name="ast_edit",
        label="AST Edit: 2 replacements in 1 file",
        status="applied",
        applied=(PreviewChange(id="c2", file="a.py"),),
        dropped=(PreviewChange(id="c1", file="a.py"),),
    )
    out = draw(render_resolution(outcome, style=PLAIN), PLAIN)
    assert out.startswith("+ Accept: 1 of 2 changes in 1 file  [AST Edit]\n")  # what was applied
    assert "  applied 1 of 2 changes: c2; discarded: c1\n" in out


def test_split_label() -> None:
    assert split_label("AST Edit: 2 replacements in 1 file", "ast_edit") == (
        "AST Edit",
        "2 replacements in 1 file",
    )
    assert split_label("Rename things", "custom_tool") == ("custom_tool", "Rename things")


def test_accept_block_plain_ascii() -> None:
    out = draw(render_resolution(details("apply"), style=PLAIN), PLAIN)
    assert out == "+ Accept: 2 replacements in 1 file  [AST Edit]\n  reason: tests pass\n"
    assert out.isascii()
    assert "\x1b[" not in out


def test_discard_block_plain_ascii() -> None:
    out = draw(render_resolution(details("discard"), style=PLAIN), PLAIN)
    assert out.splitlines()[0] == "- Discard: 2 replacements in 1 file  [AST Edit]"


def test_colours_follow_outcome() -> None:
    green = draw(render_resolution(details("apply"), style=RICH), RICH)
    yellow = draw(render_resolution(details("discard"), style=RICH), RICH)
    red = draw(render_resolution(details("apply"), is_error=True, message="boom", style=RICH), RICH)
    assert "\x1b[1;32m" in green
    assert "\x1b[1;33m" in yellow
    assert "\x1b[1;31m" in red and "boom" in red


def test_preview_shows_label_and_diff() -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-print(x)\n+log.info(x)\n"
    out = draw(render_preview("AST Edit: 1 replacement in 1 file", diff, style=PLAIN), PLAIN)
    assert out.startswith("* Preview: AST Edit: 1 replacement in 1 file\n")
    assert "-print(x)\n+log.info(x)\n" in out


def test_preview_on_the_terminal_is_bounded() -> None:
    diff = "".join(f"+line {i}\n" for i in range(5000)) + "+" + "w" * 10_000 + "\n"
    out = draw(render_preview("Huge: many lines", diff, style=PLAIN), PLAIN)
    lines = out.splitlines()
    assert len(lines) < 210
    assert "+line 199" in out and "+line 200\n" not in out
    assert "... 4801 more lines not shown" in out
    long = draw(render_preview("Wide", "+" + "w" * 10_000 + "\n", style=PLAIN), PLAIN)
    assert len(long) < 700 and "(9501 more characters)" in long


class Utf8Stream(io.StringIO):
    encoding = "utf-8"  # type: ignore[assignment]


@pytest.mark.parametrize(
    ("env", "unicode"),
    [
        ({}, True),  # no locale set: the stream's encoding decides
        ({"LANG": "C.UTF-8"}, True),
        ({"LANG": "en_US.utf8"}, True),
        ({"LC_ALL": "C", "LANG": "en_US.UTF-8"}, False),  # LC_ALL wins
        ({"LC_ALL": "", "LC_CTYPE": "POSIX", "LANG": "en_US.UTF-8"}, False),  # empty = unset
        ({"LANG": "C"}, False),
        ({"LANG": "de_DE.ISO-8859-1"}, False),
        ({"LANG": "en_US"}, False),  # no codeset: the locale's default is not UTF-8
        ({"LC_CTYPE": "C.UTF-8", "LANG": "C"}, True),
    ],
)
def test_detect_style_follows_the_locale(env: dict[str, str], unicode: bool) -> None:
    assert detect_style(Utf8Stream(), env).unicode is unicode


def test_ascii_under_lc_all_c_in_a_real_process(tmp_path: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(
        json.dumps(
            [{"tool_calls": [{"name": "ls", "arguments": {"path": "missing"}}]}, {"text": "ok"}]
        )
    )
    env = {"PATH": os.environ.get("PATH", ""), "XCSH_HOME": str(tmp_path), "LC_ALL": "C"}
    done = subprocess.run(
        [sys.executable, "-m", "xcsh", "--provider", "scripted", "--model", str(steps), "-p", "go"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.isascii() and b"-> ls" in done.stderr, done.stderr
