"""The verdict: a check's run on the staged change compared with its run on the unchanged tree.

Failing tests are read from the output the way the common runners print them
(pytest's ``FAILED path::test`` and ``ERROR path`` summary lines, unittest's
``FAIL: test (module.Class)``); when the output names none, the first error
lines the baseline did not print stand for them. Lines are compared with
timings, addresses and counts of seconds blanked, so ``in 0.31s`` against
``in 0.29s`` is no difference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from xcsh.pending import CheckVerdict

TAIL_LINES = 30
"""Lines of output a verdict keeps for the model."""
NAMED_MAX = 10
"""Failing tests (or new error lines) a verdict names at most."""

_PYTEST = re.compile(r"^(?:FAILED|ERROR) (\S+)")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): (\S+ \([\w.]+\))")
_ERRORISH = re.compile(r"error|fail|traceback|assert|exception", re.IGNORECASE)
_NOISE = (
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:s|ms|sec|seconds)\b"), "<time>"),
    (re.compile(r"0x[0-9a-fA-F]+"), "0x?"),
    (re.compile(r"\b\d{1,3}%"), "<pct>"),
)


@dataclass(frozen=True, kw_only=True)
class CheckRun:
    """One run of the check command.

    Args:
        exit_code: its exit code (``None`` when it timed out).
        timed_out: ended at the timeout.
        output: its output, decoded (stdout and stderr interleaved; a long
            output keeps its head and tail).
        seconds: wall-clock time.
        log: the file holding the whole output (``""``: none kept).
        killed: processes ended at the timeout.
    """

    exit_code: int | None
    timed_out: bool
    output: str
    seconds: float
    log: str = ""
    killed: int = 0

    @property
    def passed(self) -> bool:
        """True when it exited 0."""
        return self.exit_code == 0 and not self.timed_out


def failing_tests(output: str) -> list[str]:
    """The tests the output says failed, in order, each once."""
    names: dict[str, None] = {}
    for line in output.splitlines():
        found = _PYTEST.match(line) or _UNITTEST.match(line)
        if found:
            names.setdefault(found.group(1), None)
    return list(names)


def _normal(line: str) -> str:
    text = line.strip()
    for pattern, mark in _NOISE:
        text = pattern.sub(mark, text)
    return text


def new_lines(before: str, after: str) -> list[str]:
    """Lines of ``after`` (stripped, non-blank) whose normal form ``before`` lacks, in order."""
    seen = {_normal(line) for line in before.splitlines()}
    out: list[str] = []
    for line in after.splitlines():
        text = line.strip()
        if text and _normal(text) not in seen and text not in out:
            out.append(text)
    return out


def tail(output: str, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` non-blank-ended lines of ``output``."""
    return "\n".join(output.rstrip().splitlines()[-lines:])


def _first_errors(before: str, after: str) -> tuple[str, ...]:
    fresh = new_lines(before, after)
    errorish = [line for line in fresh if _ERRORISH.search(line)]
    return tuple((errorish or fresh)[:NAMED_MAX])


def verdict(
    command: str, staging: str, before: CheckRun, after: CheckRun, timeout: float
) -> CheckVerdict:
    """Compare the run on the staged change (``after``) with the baseline (``before``)."""
    base = CheckVerdict(
        status="passes",
        command=command,
        staging=staging,
        before_passed=before.passed,
        exit_code=after.exit_code,
        seconds=round(after.seconds, 3),
        output_tail=tail(after.output),
        log=after.log,
    )
    if after.timed_out:
        ended = f", {after.killed} processes ended" if after.killed > 1 else ""
        return replace(base, status="timed_out", reason=f"ended after {timeout:g} s{ended}")
    if after.passed:
        return base
    old = set(failing_tests(before.output))
    fresh = tuple(name for name in failing_tests(after.output) if name not in old)
    if before.passed or fresh:
        named = fresh[:NAMED_MAX] or _first_errors(before.output, after.output)
        return replace(base, status="newly_fails", new_failures=named)
    changed = tuple(new_lines(before.output, after.output)[:NAMED_MAX])
    return replace(base, status="fails_before_and_after", changed=changed)


__all__ = ["CheckRun", "failing_tests", "new_lines", "tail", "verdict"]
