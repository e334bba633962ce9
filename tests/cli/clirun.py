"""Running ``xcsh`` as a real subprocess, with pipes or on a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

AST_GREP = str(Path(sys.executable).with_name("ast-grep"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"NO_COLOR", "FORCE_COLOR"}}
    env.update({"PYTHONIOENCODING": "utf-8", "COLUMNS": "200", **extra})
    return env


def run_xcsh(
    *args: str, cwd: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m xcsh ARGS`` with pipes (no terminal anywhere)."""
    return subprocess.run(
        [sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=60,
        check=False,
    )


def run_xcsh_to(
    stdout: IO[str] | int, *args: str, cwd: Path, **env: str
) -> subprocess.CompletedProcess[str]:
    """``python -m xcsh ARGS`` writing its standard output to ``stdout`` (an open file or
    a file descriptor), its standard error captured, no input."""
    return subprocess.run(
        [sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(**env),
        timeout=60,
        check=False,
    )


def run_ast_grep(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real ``ast-grep`` binary of this environment."""
    if not Path(AST_GREP).exists():  # pragma: no cover - the dev install always has it
        found = shutil.which("ast-grep")
        assert found, "ast-grep (PyPI ast-grep-cli) is not installed"
        binary = found
    else:
        binary = AST_GREP
    return subprocess.run(
        [binary, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )


CTRL_C = "\x03"
"""Ctrl-C typed on the terminal (SIGINT to the program)."""
CTRL_D = "\x04"
"""Ctrl-D typed on the terminal (end of input)."""
CONTROL_KEYS = frozenset({CTRL_C, CTRL_D})


def _take_terminal() -> None:
    """In the child, after ``setsid``: make stdin (the pty) the controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@dataclass
class PtyRun:
    """A finished run on a pseudo-terminal: everything it wrote, and its exit code."""

    output: str
    returncode: int


def run_on_pty(
    args: Sequence[str],
    *,
    cwd: Path,
    answers: Sequence[tuple[str, str]] = (),
    before_answer: object = None,
    **env: str,
) -> PtyRun:
    """Run ``python -m xcsh ARGS`` with stdin, stdout and stderr on one pseudo-terminal.

    The terminal is the child's controlling terminal (its own session), so
    typing a control key works as in a real terminal: ``CTRL_C`` sends SIGINT
    to it, ``CTRL_D`` ends its input.

    Args:
        answers: ``(prompt text to wait for, line to type)`` pairs, in order; a
            line that is exactly ``CTRL_C`` or ``CTRL_D`` is typed without Enter.
        before_answer: optional callable run once, just before the first answer.
    """
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "xcsh", *args],
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_take_terminal,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=_env(TERM="xterm", **env),
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    pending = list(answers)
    deadline = time.monotonic() + 60
    first = True
    searched_from = 0
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the child closed the terminal
                    chunk = b""
                if not chunk:
                    if proc.poll() is not None:
                        break
                    continue
                seen += chunk
            if pending and pending[0][0].encode() in seen[searched_from:]:
                _, line = pending.pop(0)
                if first and callable(before_answer):
                    before_answer()
                first = False
                searched_from = len(seen)
                os.write(master, line.encode() + (b"" if line in CONTROL_KEYS else b"\r"))
            if proc.poll() is not None and not ready:
                break
        else:  # pragma: no cover - a hung child is a failure
            proc.kill()
            pytest.fail(f"xcsh did not finish; output so far:\n{seen.decode(errors='replace')}")
    finally:
        os.close(master)
    return PtyRun(output=seen.decode("utf-8", errors="replace"), returncode=proc.wait(timeout=10))
