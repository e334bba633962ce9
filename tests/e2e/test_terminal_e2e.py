"""The interactive terminal in tmux on the standard-library tree: a pooled search, and
one ``ast_edit`` preview applied with ``/apply``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_run import REPEAT, REPRODUCTION, Tree, env, rounds, write_steps
from tmux_harness import TmuxXcsh, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def term(tmp_path: Path) -> Iterator[TmuxXcsh]:
    """The terminal, read with its scrollback (the searches scroll off the screen)."""
    terminal = TmuxXcsh(tmp_path, scrollback=200, timeout=60.0)
    try:
        yield terminal
    finally:
        terminal.close()


@pytest.mark.parametrize("round_", rounds())
def test_searches_then_an_edit_applied_with_slash_apply(
    tree: Tree, tmp_path: Path, xcsh_home: Path, term: TmuxXcsh, round_: int
) -> None:
    grep = {"name": "ast_grep", "arguments": {"pat": [REPRODUCTION], "path": tree.scope}}
    edit = {
        "name": "ast_edit",
        "arguments": {
            "ops": [{"pat": "isinstance($A, $B)", "out": "isinstance_tui($A, $B)"}],
            "path": tree.scope,
        },
    }
    turns = [t for _ in range(REPEAT) for t in ({"tool_calls": [grep]}, {"text": "searched"})]
    turns += [{"tool_calls": [edit]}, {"text": "over to you"}]
    steps = write_steps(tmp_path, "tui", turns)
    try:
        term.start(tree.root, env(xcsh_home), "--provider", "scripted", "--model", str(steps))
        term.wait_for("no pending")
        for n in range(REPEAT):
            term.type(f"search {n}")
            assert term.wait_count("searched", n + 1), term.screen()
        term.type("rewrite isinstance")
        term.wait_for("Preview: AST Edit:", "1 pending")
        assert "isinstance_tui(" not in tree.scope_text()
        term.type("/apply e2e")
        screen = term.wait_for("Accept:", "reason: e2e", "no pending")
        assert "isinstance_tui(" in tree.scope_text()
        assert "[xcsh exited" not in screen, screen
        term.keys("C-d")
        term.wait_for("[xcsh exited 0]")
    finally:
        tree.restore()
