"""The ``xcsh`` dispatcher: a reader that closes standard output early (``| head``)
ends every subcommand quietly with exit code 141, never with a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from xcsh.cli import EXIT_BROKEN_PIPE, SUBCOMMANDS, command_main


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


def test_print_mode_into_head_stops_the_run_quietly_with_141(tmp_path: Path) -> None:
    # The reader goes away mid-run (| head -c 10): no traceback per event, exit 141,
    # and the run stops (the call after the first answer never happens).
    big = "y" * 200_000  # more than a pipe holds, so the write meets the closed pipe
    write = {"name": "write", "arguments": {"path": "after.txt", "content": "x"}}
    grep = {"name": "ast_grep", "arguments": {"pat": ["print($A)"]}}
    (tmp_path / "a.py").write_text("print(1)\n")
    for mode, steps in (
        ("json", [{"text": big, "tool_calls": [grep]}, {"tool_calls": [write]}, {"text": "ok"}]),
        ("text", [{"tool_calls": [grep]}, {"text": big}]),
    ):
        steps_file = tmp_path / f"{mode}.json"
        steps_file.write_text(json.dumps(steps))
        command = [sys.executable, "-m", "xcsh", "--provider", "scripted"]
        command += ["--model", str(steps_file), "-p", "go", "--mode", mode]
        proc = subprocess.run(
            ["bash", "-c", '"$@" | head -c 10 >/dev/null; exit "${PIPESTATUS[0]}"', "-", *command],
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == EXIT_BROKEN_PIPE, proc.stderr[-2000:]
        assert "Traceback" not in proc.stderr
        assert "Broken pipe" not in proc.stderr
        if mode == "json":
            assert proc.stderr == ""
            assert not (tmp_path / "after.txt").exists()


def test_every_listed_subcommand_dispatches_to_its_own_main() -> None:
    mains = {name: command_main(name) for name in SUBCOMMANDS}
    assert all(callable(main) for main in mains.values())
    # ast-grep, ast-edit and scan come with owns_process bound (functools.partial)
    modules = {getattr(main, "func", main).__module__ for main in mains.values()}
    assert len(modules) == len(SUBCOMMANDS)  # no two names share a module by mistake
    assert command_main(None).__module__ == "xcsh.cli.agent_cmd"
    with pytest.raises(KeyError):
        command_main("no-such-command")
