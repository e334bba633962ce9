"""The ``xcsh`` dispatcher: a reader that closes standard output early (``| head``)
ends every subcommand quietly with exit code 141, never with a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xcsh.cli import EXIT_BROKEN_PIPE


def run_into_closed_pipe(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m xcsh ARGS`` with stdout a pipe whose reader is already gone."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "xcsh", *args],
            cwd=cwd,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ("tools", "--json"),  # json.dumps + print
        ("tools",),  # rich Console, which handles a broken pipe itself
        ("trust",),
        ("--version",),
    ],
)
def test_closed_stdout_exits_quietly_with_141(tmp_path: Path, args: tuple[str, ...]) -> None:
    proc = run_into_closed_pipe(tmp_path, *args)
    assert proc.stderr == ""
    assert proc.returncode == EXIT_BROKEN_PIPE == 141


def test_print_mode_into_closed_stdout(tmp_path: Path) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([{"text": "hello"}]))
    for mode in ("text", "json"):
        proc = run_into_closed_pipe(
            tmp_path, "--provider", "scripted", "--model", str(steps), "-p", "hi", "--mode", mode
        )
        assert proc.stderr == ""
        assert proc.returncode == 141


def test_help_into_closed_stdout_is_quiet(tmp_path: Path) -> None:
    # argparse writes --help in one call and ignores a failed write: exit 0, no traceback.
    proc = run_into_closed_pipe(tmp_path, "--help")
    assert (proc.returncode, proc.stderr) == (0, "")


def test_stdout_already_devnull_keeps_the_real_exit_code(tmp_path: Path) -> None:
    # Only a pipe that broke counts: a command whose stdout is /dev/null from the
    # start keeps its own exit code, including argparse's usage error (2).
    with open(os.devnull, "w") as devnull:
        bad = subprocess.run(
            [sys.executable, "-m", "xcsh", "tools", "--no-such-flag"],
            cwd=tmp_path,
            stdout=devnull,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
        good = subprocess.run(
            [sys.executable, "-m", "xcsh", "tools"], cwd=tmp_path, stdout=devnull, timeout=60
        )
    assert bad.returncode == 2 and "unrecognized arguments: --no-such-flag" in bad.stderr
    assert good.returncode == 0
