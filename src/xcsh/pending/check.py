"""The verdict of the project's check on a preview: a typed field of :class:`Preview`.

The check itself (staging the changed files, running the command, the
baseline) lives in :mod:`xcsh.checks`; this module holds only the value every
front end reads, so ``pending`` need not know how a check is run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from xcsh.core.details import JsonObject

CheckStatus = Literal[
    "passes", "newly_fails", "fails_before_and_after", "timed_out", "not_run", "not_checked"
]
"""What the check said about a preview:

- ``passes``: the check passed on the staged change (``before_passed`` says
  whether it passed on the unchanged tree too);
- ``newly_fails``: it fails with the change and did not fail that way before
  (``new_failures`` names the tests, or the first new error lines);
- ``fails_before_and_after``: it fails on the unchanged tree and with the
  change, nothing new failing (``changed`` holds output lines that differ);
- ``timed_out``: it was ended at ``check_timeout``, with its process tree;
- ``not_run``: it could not run (``reason`` says why; nothing was decided);
- ``not_checked``: a check was wanted, but the action does not declare the
  files it writes, so there was nothing to stage.
"""

STATUS_WORDS: Mapping[CheckStatus, str] = {
    "passes": "passes",
    "newly_fails": "newly fails",
    "fails_before_and_after": "fails before and after",
    "timed_out": "timed out",
    "not_run": "could not run",
    "not_checked": "not checked",
}
"""How the statuses read in text."""


@dataclass(frozen=True, kw_only=True)
class CheckVerdict:
    """The project's check run on a staged copy of the workspace with a preview applied.

    Args:
        status: see :data:`CheckStatus`.
        command: the check's command line (``pytest -x -q``).
        staging: how the staged tree was made: ``"overlay"`` (an overlay mount in a
            user and mount namespace) or ``"copy"`` (a copy of the workspace).
        before_passed: whether the check passed on the unchanged tree.
        new_failures: failing tests (``tests/test_a.py::test_b``) or, when the
            output names none, the first error lines, that did not fail before.
        changed: for ``fails_before_and_after``, output lines that appear only
            after the change (at most a few).
        exit_code: the check's exit code on the staged change (``-N``: killed by
            signal ``N``; ``None`` when it timed out or did not run).
        seconds: how long the run on the staged change took (wall clock).
        output_tail: the last lines of its output (for the model).
        log: the file holding the whole output (``""`` when none was kept).
        reason: for ``not_run``, why; for ``timed_out``, the timeout in words.
    """

    status: CheckStatus
    command: str
    staging: str = ""
    before_passed: bool = False
    new_failures: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    exit_code: int | None = None
    seconds: float = 0.0
    output_tail: str = ""
    log: str = ""
    reason: str = ""

    def contract(self) -> JsonObject:
        """Every field as plain JSON values (tuples as lists), for a reader by key."""
        return {
            "status": self.status,
            "command": self.command,
            "staging": self.staging,
            "before_passed": self.before_passed,
            "new_failures": list(self.new_failures),
            "changed": list(self.changed),
            "exit_code": self.exit_code,
            "seconds": self.seconds,
            "output_tail": self.output_tail,
            "log": self.log,
            "reason": self.reason,
        }

    @property
    def words(self) -> str:
        """The status as it reads: ``"newly fails"``."""
        return STATUS_WORDS[self.status]

    @property
    def blocks_apply(self) -> bool:
        """True for a verdict ``apply_requires_checks`` refuses without the person's word."""
        return self.status in ("newly_fails", "timed_out")

    def summary(self) -> str:
        """Say the verdict in one line.

        For example ``Check `pytest -q`: newly fails: tests/test_a.py::test_b.``
        """
        if self.status == "not_checked":
            return NOT_CHECKED
        head = f"Check `{self.command}`: {self.words}"
        match self.status:
            case "passes":
                tail = "" if self.before_passed else " (it failed before the change)"
            case "newly_fails":
                tail = ": " + "; ".join(self.new_failures) if self.new_failures else ""
            case "fails_before_and_after":
                tail = " (nothing new fails)"
            case _:
                tail = f" ({self.reason})" if self.reason else ""
        return f"{head}{tail}."

    def text(self, *, tail_lines: int = 15) -> str:
        """Word the verdict as the model reads it.

        The summary comes first; a failing or timed-out check adds the last ``tail_lines``
        of its output and where the whole output is.
        """
        lines = [self.summary()]
        if self.status == "fails_before_and_after" and self.changed:
            lines.append("Lines new in its output: " + " | ".join(self.changed[:5]))
        if self.status in ("newly_fails", "fails_before_and_after", "timed_out"):
            shown = self.output_tail.splitlines()[-tail_lines:]
            if shown:
                lines.append("Last lines of its output:")
                lines += ["  " + line for line in shown]
        if self.log and self.status != "passes":
            lines.append(f"Whole output: {self.log}")
        return "\n".join(lines)


NOT_CHECKED = "Check: not checked (this action does not declare the files it writes)."
"""The line for a preview a check was asked for but that cannot be staged."""


__all__ = ["NOT_CHECKED", "STATUS_WORDS", "CheckStatus", "CheckVerdict"]
