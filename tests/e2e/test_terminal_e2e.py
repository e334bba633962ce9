"""The interactive terminal in tmux on the standard-library tree: a pooled search, and
one ``ast_edit`` preview applied with ``/apply``."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_run import REPEAT, REPRODUCTION, XCSH_BIN, Tree, env, rounds, write_steps

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """``xcsh`` in a private tmux server (its own socket), read through its screen."""

    def __init__(self) -> None:
        self.socket = f"xcsh-e2e-{uuid.uuid4().hex[:10]}"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20
        )
        return done.stdout

    def start(self, cwd: Path, environ: dict[str, str], *argv: str) -> None:
        words = ["env", "-i", *[f"{k}={v}" for k, v in environ.items()], XCSH_BIN, *argv]
        script = f'{shlex.join(words)}; echo "[xcsh exited $?]"; sleep 600'
        self.tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", str(cwd), script)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-S", "-200")

    def wait_for(self, *texts: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(t in screen for t in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"waited {timeout}s for {texts!r}; screen:\n{screen}")
            time.sleep(0.05)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-l", text)
        self.tmux("send-keys", "Enter")

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def term() -> Iterator[Terminal]:
    terminal = Terminal()
    try:
        yield terminal
    finally:
        terminal.close()


@pytest.mark.parametrize("round_", rounds())
def test_searches_then_an_edit_applied_with_slash_apply(
    tree: Tree, tmp_path: Path, xcsh_home: Path, term: Terminal, round_: int
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
        term.start(
            tree.root,
            {**env(xcsh_home), "TERM": "tmux-256color", "LANG": "C.UTF-8"},
            "--provider",
            "scripted",
            "--model",
            str(steps),
        )
        term.wait_for("no pending")
        for n in range(REPEAT):
            term.type(f"search {n}")
            assert wait_count(term, "searched", n + 1), term.screen()
        term.type("rewrite isinstance")
        term.wait_for("Preview: AST Edit:", "1 pending")
        assert "isinstance_tui(" not in tree.scope_text()
        term.type("/apply e2e")
        screen = term.wait_for("Accept:", "reason: e2e", "no pending")
        assert "isinstance_tui(" in tree.scope_text()
        assert "[xcsh exited" not in screen, screen
        term.tmux("send-keys", "C-d")
        term.wait_for("[xcsh exited 0]")
    finally:
        tree.restore()


def wait_count(term: Terminal, text: str, count: int, timeout: float = 60.0) -> bool:
    """Wait until ``text`` shows at least ``count`` times in the scrollback."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if term.screen().count(text) >= count:
            return True
        time.sleep(0.05)
    return False
