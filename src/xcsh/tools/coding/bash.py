"""The ``bash`` tool: run a command in the workspace, bounded in time and output.

The command runs as ``bash -c`` in its own session under a supervisor
(:mod:`xcsh.sandbox.supervisor`) that keeps every descendant, ``setsid`` and
double forks included. A timeout, the call's cancel event, or cancellation of
the asyncio task ends the whole tree: SIGTERM, then SIGKILL after a grace
period. With a :class:`~xcsh.sandbox.SandboxPlan` that confines, the command
may write only in the workspace, a private temporary folder (``$TMPDIR``) and
the paths the user listed, and the result says when the sandbox refused a write.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from pydantic import BaseModel, Field

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    TextContent,
    ToolCallContext,
    ToolError,
    text_result,
)
from xcsh.journal import finish_in_thread
from xcsh.journal.commands import (
    BashRecording,
    CommandRecorder,
)
from xcsh.sandbox import (
    ProcessSupervisor,
    SandboxPlan,
    SupervisorError,
    command_environment,
)
from xcsh.sandbox.run import RunOutcome, run_to_end
from xcsh.tools.coding._bash_output import (
    LOG_HEAD_BYTES,
    LOG_KEEP,
    LOG_MAX_AGE,
    LOG_TAIL_BYTES,
    LogPolicy,
    Output,
    default_log_dir,
)
from xcsh.tools.coding._bash_previewing import Previewer, summary_text
from xcsh.tools.coding._bash_result import (
    command_result,
    record_notes,
    sandbox_description,
    with_notes,
)
from xcsh.tools.coding.details import BashDetails

DEFAULT_TIMEOUT = 120.0
"""Seconds a command may run when the call gives no ``timeout``."""
MAX_TIMEOUT = 3600.0
HEAD_BYTES = 8 * 1024
"""Bytes kept from the start of a long output."""
TAIL_BYTES = 24 * 1024
"""Bytes kept from the end of a long output (errors tend to be at the end)."""
KILL_GRACE = 2.0
"""Seconds between SIGTERM and SIGKILL."""
DRAIN_AFTER_EXIT = 1.0
"""Seconds to keep reading after bash exits while background processes hold the output."""
_UPDATE_INTERVAL = 0.5

DESCRIPTION = f"""\
Run a shell command with `bash -c` in the workspace folder and return its output \
(stdout and stderr interleaved) and exit code. A non-zero exit code is reported, not \
treated as a failure of the tool. Commands time out after `timeout` seconds (default \
{DEFAULT_TIMEOUT:g}); on timeout or cancellation the command and every process it started \
are killed. Long output keeps the first {HEAD_BYTES // 1024} KiB and the last \
{TAIL_BYTES // 1024} KiB, and the output is saved to a log file whose path is given (only its \
first and last {LOG_HEAD_BYTES // 1024 // 1024} MiB when it is longer). \
stdin is closed: do not run interactive programs. Use it for builds, tests, git and other \
programs; prefer `read`, `grep`, `find` and `ls` to inspect files, and `edit`/`write` to \
change them. For sweeping structural code changes, `ast_edit` is the better choice over \
sed or scripts: it previews the change before applying it."""


class BashParams(BaseModel):
    """Arguments of ``bash``."""

    command: str = Field(min_length=1, description="The command line, run with bash -c.")
    timeout: float | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT,
        description=f"Seconds before the command is killed (default {DEFAULT_TIMEOUT:g}).",
    )
    preview: bool = Field(
        default=False,
        description=(
            "Run the command on a staged copy of the workspace and propose what it would "
            "create, change or delete as a preview (resolve applies it); the workspace is "
            "not written. For commands that rewrite many files (formatters, sed -i, codemods)."
        ),
    )
    check: bool = Field(
        default=False,
        description="With preview: run the project's check on the staged change too.",
    )


def create_bash_tool(
    cwd: str | Path,
    *,
    head_bytes: int = HEAD_BYTES,
    tail_bytes: int = TAIL_BYTES,
    kill_grace: float = KILL_GRACE,
    log_dir: str | Path | None = None,
    log_head_bytes: int = LOG_HEAD_BYTES,
    log_tail_bytes: int = LOG_TAIL_BYTES,
    keep_logs: int = LOG_KEEP,
    sandbox: SandboxPlan | None = None,
    recorder: CommandRecorder | None = None,
    previewer: Previewer | None = None,
    previews: Callable[[str], bool] | None = None,
) -> AgentTool[BashParams, BashDetails]:
    """Build the ``bash`` tool.

    Args:
        cwd: the folder commands run in (the workspace).
        head_bytes: bytes kept from the start of a long output.
        tail_bytes: bytes kept from the end of a long output.
        kill_grace: seconds between SIGTERM and SIGKILL to the command's processes.
        log_dir: where the log of a long output is written (default
            :func:`default_log_dir`, ``$XCSH_HOME/logs/bash``, read when the
            tool is built). Nothing is written outside it (contract §5a). When the
            folder cannot be created the result says so and no log is kept.
        log_head_bytes: bytes a log keeps from the start of the output.
        log_tail_bytes: bytes a log keeps from the end; the middle of a longer
            output is left out and the log says how much. A log is therefore
            at most about ``log_head_bytes + log_tail_bytes``.
        keep_logs: how many logs the folder keeps: starting a log removes the
            oldest beyond this and any older than :data:`LOG_MAX_AGE`.
        sandbox: how commands are confined (:func:`xcsh.sandbox.prepare_sandbox`);
            None runs them unconfined. A plan with a ``refusal`` makes every
            call fail with that reason.
        recorder: records what each command creates, changes or deletes in the
            workspace's undo journal as one ``bash`` entry (the session's one
            :class:`~xcsh.journal.commands.CommandRecorder`, shared with direct MCP
            tool calls; its first look at the workspace starts now, in the
            background). ``None``: not recorded.
        previewer: runs a command as a preview (``preview: true``) and pushes what it
            would change; ``None``: ``preview`` is refused.
        previews: ``previews(command)`` is true for a command the user's approval
            rules preview even when the call did not ask (``[approval]`` ``preview``).

    Returns:
        A tool whose result text is the output followed by ``Exit code: N``.
        ``run`` raises :class:`ToolError` on timeout or cancellation (with the
        output so far), or when bash cannot be started. Cancelling the asyncio
        task kills the command's processes and re-raises ``CancelledError``.
    """
    root = Path(os.path.realpath(cwd))
    policy = LogPolicy(
        folder=Path(log_dir) if log_dir is not None else default_log_dir(),
        head_bytes=log_head_bytes,
        tail_bytes=log_tail_bytes,
        keep=keep_logs,
        max_age=LOG_MAX_AGE,
    )

    plan = sandbox if sandbox is not None else SandboxPlan()
    supervisor = ProcessSupervisor()
    announced = False  # the withheld variables are named in the first result only
    if recorder is not None and not plan.refusal:
        recorder.start()

    async def run(params: BashParams, ctx: ToolCallContext) -> AgentToolResult[BashDetails]:
        nonlocal announced
        if plan.refusal:
            raise ToolError(f"bash is refused: {plan.refusal}.")
        timeout = params.timeout if params.timeout is not None else DEFAULT_TIMEOUT
        output = Output(head_bytes, tail_bytes, policy)
        inherited = command_environment(plan.env, os.environ)
        env = _environment(inherited.env, plan.temp_dir)
        feed, how = _feeder(output, ctx), (plan, kill_grace, ctx.cancel)
        if params.preview or (previews is not None and previews(params.command)):
            return await _previewed(previewer, params, env, timeout, feed, output)
        earlier = await finish_in_thread(recorder.before) if recorder is not None else None
        started = time.time_ns()
        outcome: RunOutcome | None = None
        try:
            outcome = await _run_bash(supervisor, params.command, (root, env), timeout, feed, how)
        finally:
            output.close()
            recorded = None
            if recorder is not None:
                code = outcome.exit_code if outcome is not None else None
                left = outcome is not None and outcome.background
                record = functools.partial(
                    recorder.after, params.command, code, since_ns=started, background=left
                )
                recorded = await finish_in_thread(record)
        assert outcome is not None
        notes = record_notes(earlier, recorded, recorder.settings if recorder else BashRecording())
        result = command_result(params.command, timeout, outcome, output, recorded, notes)
        withheld = () if announced else inherited.withheld
        announced = True
        return with_notes(result, output, plan.confinement, root, withheld)

    return AgentTool(
        name="bash",
        label="Bash",
        description=DESCRIPTION + sandbox_description(plan),
        parameters=BashParams,
        run=run,
    )


def _feeder(output: Output, ctx: ToolCallContext) -> Callable[[bytes], None]:
    """Make the callback that takes each chunk of output into ``output``.

    It also sends the caller the recent output, at most every :data:`_UPDATE_INTERVAL`
    seconds.
    """
    loop = asyncio.get_running_loop()
    last_update = loop.time()

    def feed(chunk: bytes) -> None:
        nonlocal last_update
        output.feed(chunk)
        if ctx.on_update is not None and loop.time() - last_update >= _UPDATE_INTERVAL:
            last_update = loop.time()
            ctx.update(text_result(output.recent(), details={"partial": True}))

    return feed


async def _run_bash(
    supervisor: ProcessSupervisor,
    command: str,
    where: tuple[Path, Mapping[str, str]],
    timeout: float,
    feed: Callable[[bytes], None],
    how: tuple[SandboxPlan, float, asyncio.Event],
) -> RunOutcome:
    """Run ``bash -c command`` to its end.

    Args:
        supervisor: the process supervisor that starts and ends it.
        command: the command line.
        where: the folder it runs in and its environment.
        timeout: seconds before it is ended.
        feed: takes each chunk of output.
        how: the sandbox plan, the kill grace (seconds) and the call's cancel event.

    Raises:
        ToolError: bash cannot be started (the message names the folder and why).
    """
    root, env = where
    plan, grace, cancel = how
    try:
        # Background processes of a command that exited on its own run on (until
        # they end, or xcsh does); anything else is ended with the command.
        return await run_to_end(
            supervisor,
            ["bash", "-c", command],
            cwd=root,
            env=env,
            timeout=timeout,
            on_output=feed,
            confine=plan.confinement,
            grace=grace,
            cancel=cancel,
            keep_background=True,
            drain=DRAIN_AFTER_EXIT,
        )
    except SupervisorError as exc:
        raise ToolError(f"Cannot start bash in {root}: {exc.strerror or exc}.") from exc


def _environment(inherited: Mapping[str, str], temp_dir: Path | None) -> dict[str, str]:
    """Build a command's environment: what it inherits, with no pager.

    The private temporary folder ``temp_dir``, when there is one, is created now and
    named in ``TMPDIR``, ``TMP`` and ``TEMP``.
    """
    env = {**inherited, "PAGER": "cat", "GIT_PAGER": "cat"}
    if temp_dir is not None:
        temp_dir.mkdir(parents=True, exist_ok=True)
        env.update(TMPDIR=str(temp_dir), TMP=str(temp_dir), TEMP=str(temp_dir))
    return env


async def _previewed(
    previewer: Previewer | None,
    params: BashParams,
    env: Mapping[str, str],
    timeout: float,
    feed: Callable[[bytes], None],
    output: Output,
) -> AgentToolResult[BashDetails]:
    """Run ``params.command`` as a preview: its output, then what it would change."""
    if previewer is None:
        raise ToolError("bash cannot preview commands in this session; run it without preview.")
    try:
        found, action = await previewer.run(
            params.command, env=env, timeout=timeout, on_output=feed, check=params.check
        )
    except SupervisorError as exc:
        raise ToolError(f"Cannot start bash for the preview: {exc.strerror or exc}.") from exc
    finally:
        output.close()
    result = command_result(params.command, timeout, found.outcome, output)
    text = f"{result.text}\n{summary_text(action, found)}"
    details = result.details
    if details is not None:
        details = replace(details, preview_id=action.id if action is not None else None)
    return AgentToolResult(content=[TextContent(text)], details=details)
