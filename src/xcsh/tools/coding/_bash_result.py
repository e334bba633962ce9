"""What a ``bash`` call's result says: output, exit status, and the notes beside them.

:func:`command_result` words a finished command (its output, ``Exit code: N`` or
the signal that killed it, a timeout or cancellation as a
:class:`~xcsh.core.ToolError`, with the undo journal's entry in the details);
:func:`with_notes` adds the writes the sandbox refused and the variables
withheld; :func:`record_notes` what the undo journal could not record.
"""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path

from xcsh.core import AgentToolResult, TextContent, ToolError
from xcsh.core.wording import plural
from xcsh.journal.commands import BashRecording, Recorded, background_note, recorded_note
from xcsh.sandbox import SandboxPlan, find_denials, withheld_note
from xcsh.sandbox.run import RunOutcome
from xcsh.sandbox.supervisor import Confinement, KillReport
from xcsh.tools.coding._bash_output import Output
from xcsh.tools.coding.details import BashDetails


def with_notes(
    result: AgentToolResult[BashDetails],
    output: Output,
    confine: Confinement | None,
    root: Path,
    withheld: tuple[str, ...],
) -> AgentToolResult[BashDetails]:
    """Add to ``result`` the notes a person and the model need.

    Those are the writes the sandbox denied (found in the output), and the variables
    ``withheld`` (named in the first result only).
    """
    notes: list[str] = []
    details = result.details
    if confine is not None:
        denials = find_denials(output.render(), confine, root)
        note = denials.note(confine)
        if note:
            notes.append(note)
            if details is not None:
                details = replace(details, sandbox_denied=denials.refused)
    if withheld:
        notes.append(withheld_note(withheld))
        if details is not None:
            details = replace(details, env_withheld=withheld)
    if not notes:
        return result
    text = "".join(c.text for c in result.content if isinstance(c, TextContent))
    return AgentToolResult(content=[TextContent("\n".join([text, *notes]))], details=details)


def record_notes(
    earlier: Recorded | None, recorded: Recorded | None, recording: BashRecording
) -> str:
    """What the result says of the undo journal: background changes, files not recorded."""
    lines = [background_note(earlier) if earlier is not None else ""]
    if recorded is not None:
        lines.append(recorded_note(recorded, recording.max_bytes))
    return "\n".join(line for line in lines if line)


def command_result(
    command: str,
    timeout: float,
    outcome: RunOutcome,
    output: Output,
    recorded: Recorded | None = None,
    notes: str = "",
) -> AgentToolResult[BashDetails]:
    body = output.render().rstrip("\n") if output.total else "(no output)"
    if notes:
        body = f"{body}\n{notes}"
    details = BashDetails(
        command=command,
        exit_code=outcome.exit_code,
        seconds=round(outcome.seconds, 3),
        output_bytes=output.total,
        full_output_path=output.log_path,
        log_omitted_bytes=output.log_omitted,
        journal_entry=recorded.seq if recorded is not None else None,
        recorded=recorded.files if recorded is not None else (),
        ignored_touched=recorded.ignored if recorded is not None else 0,
        not_recorded=recorded.not_recorded if recorded is not None else (),
        not_kept=recorded.not_kept if recorded is not None else (),
    )
    if outcome.how == "timeout":
        raise ToolError(
            f"{body}\n\nCommand timed out after {timeout:g} s; {_killed_text(outcome.killed)} "
            "Run it with a larger timeout, or in the background with its output redirected "
            "to a file.",
            details=replace(details, timed_out=True),
        )
    if outcome.how == "cancelled":
        raise ToolError(
            f"{body}\n\nCommand cancelled after {outcome.seconds:.1f} s; "
            f"{_killed_text(outcome.killed)}",
            details=replace(details, cancelled=True),
        )
    code = outcome.exit_code
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        status = f"Killed by {name} (exit code {code})"
    else:
        status = f"Exit code: {code}"
    notes = ""
    if outcome.detached:
        notes = (
            "\n[Background processes still hold the output open; their later output is "
            "not captured. Redirect it to a file to keep it.]"
        )
    return AgentToolResult(content=[TextContent(f"{body}{notes}\n\n{status}")], details=details)


def _killed_text(report: KillReport | None) -> str:
    """What the kill did, as the supervisor reported it."""
    if report is None or report.killed == 0:
        return "it had already ended, and nothing it started was left running."
    if report.left:
        return (
            f"{plural(report.killed, 'process', 'processes')} were signalled, but "
            f"{plural(report.left, 'process', 'processes')} could not be killed."
        )
    if report.killed == 1:
        return "it was killed (it had started no other process)."
    return f"it and every process it started were killed ({report.killed} processes)."


def sandbox_description(plan: SandboxPlan) -> str:
    """What the model should know about the sandbox before it writes a command."""
    if plan.refusal:
        return f" bash is unavailable in this session: {plan.refusal}."
    if plan.confinement is None:
        return ""
    network = "" if plan.confinement.network else " Network access is denied."
    return (
        " Commands run in a sandbox: they may read anything but write only inside the "
        "workspace and $TMPDIR (plus folders the user allowed); a write elsewhere fails with "
        f"'Permission denied'.{network}"
    )


__all__ = ["command_result", "record_notes", "sandbox_description", "with_notes"]
