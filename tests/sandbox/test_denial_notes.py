"""What the `bash` tool says about refusals it reads in a command's output, through the
installed binary (``-p`` with the scripted provider driving ``bash``).

Reading the output never costs the command its result: a path that xcsh itself cannot
inspect (another process's ``/proc`` entry, a name holding a NUL) leaves the output
and the exit code intact. And the note says what the sandbox refused, a read of
another process's entry or a write outside the writable places.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_steps, tool_results
from xcsh.sandbox import kernel_support

SUPPORT = kernel_support()
needs_sandbox = pytest.mark.skipif(
    not SUPPORT.confines, reason=f"the kernel cannot confine: {SUPPORT.reason}"
)


def bash_results(tmp_path: Path, home: Path, commands: list[str]) -> list[tuple[bool, str]]:
    calls = [{"name": "bash", "arguments": {"command": c}} for c in commands]
    code, events, err = run_steps(tmp_path, home, calls, "", one_per_turn=True)
    assert code == 0, err
    results = tool_results(events)
    assert len(results) == len(commands), events
    return results


@pytest.mark.parametrize(
    "line",
    [
        "touch: cannot touch /proc/1/root/x: Permission denied",
        "rm: cannot remove /var/a\\0b: Permission denied",
        "cp: cannot create regular file /proc/1/root/../../x: Operation not permitted",
    ],
    ids=["another-process-root", "nul-in-the-name", "through-a-process-root"],
)
def test_output_naming_a_path_xcsh_cannot_inspect_keeps_the_output_and_the_exit_code(
    tmp_path: Path, xcsh_home: Path, line: str
) -> None:
    [(is_error, text)] = bash_results(tmp_path, xcsh_home, [f"printf '{line}\\n'; exit 3"])
    assert not is_error, text
    assert "failed unexpectedly" not in text
    assert text.startswith(line.replace("\\0", "\0").split(":")[0])
    assert "Exit code: 3" in text


@needs_sandbox
def test_a_denied_read_is_labelled_a_read_and_a_denied_write_a_write(
    tmp_path: Path, xcsh_home: Path
) -> None:
    [(_, read), (_, write), (_, both)] = bash_results(
        tmp_path,
        xcsh_home,
        [
            "cat /proc/1/environ",
            "touch /etc/xcsh-denied",
            "head -c 1 /proc/1/environ; echo x > /usr/xcsh-denied",
        ],
    )
    assert "Permission denied" in read
    assert (
        "[sandbox] The sandbox denied reading /proc/1/environ: a command may not look into "
        "processes outside its own (their environment, memory, open files or root folder)."
    ) in read
    assert "denied writing" not in read and "sandbox_write" not in read
    assert "The sandbox denied writing /etc/xcsh-denied: commands may write only in" in write
    assert "denied reading" not in write
    assert "The sandbox denied writing /usr/xcsh-denied:" in both
    assert "The sandbox denied reading /proc/1/environ:" in both
