"""The terminal task: the ``xcsh`` terminal with ``--approve ask`` in tmux, the question answered.

A person types the rename into the interactive terminal; the model previews
it with ``ast_edit`` and asks to apply it; ``--approve ask`` puts the
question ``[a]pply / [d]iscard ...`` on the screen, and the harness answers
``a`` as that person would. The check reads the files and the screen, never
the model's account.

The terminal prints no JSON events; the run's turns, tokens and tool calls
are read back from the session file xcsh saved (one JSON record a line, the
same ``turn_end`` and ``tool_call_start`` records ``--mode json`` prints), so
the table and the failure classes treat this task like the others.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from tmux_harness import TmuxXcsh

from model_e2e.runner import MODEL_NAME, Event, RunLog
from model_e2e.tasks import Context, Outcome, rename_problem

QUESTION = "[a]pply / [d]iscard"
"""The end of the approval question (``--approve ask``), whatever the preview."""
IDLE = f"openai:{MODEL_NAME}"
"""The status line's model name: on screen only while the prompt waits for the person."""


def _last_line(term: TmuxXcsh) -> str:
    lines = [line for line in term.screen().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _drive(term: TmuxXcsh, deadline: float) -> tuple[int, str]:
    """Answer every approval question with ``a`` until the prompt is back.

    Returns the number of questions answered and how the run ended
    (``""``, ``"timeout"`` or ``"exited"``).
    """
    answered = 0
    busy = False
    while time.monotonic() < deadline:
        screen = term.screen()
        if "[xcsh exited" in screen:
            return answered, "exited"
        # the question is wider than the terminal: the prompt wraps it anywhere
        asked = re.sub(r"\s", "", screen).count(re.sub(r"\s", "", QUESTION))
        if asked > answered and _last_line(term).endswith(":"):
            term.type("a")
            answered += 1
            busy = True
        elif IDLE not in _last_line(term):
            busy = True  # the run is under way: no status line
        elif busy:
            return answered, ""
        time.sleep(0.5)
    return answered, "timeout"


def terminal_approve(ctx: Context) -> Outcome:
    """The rename in the terminal with ``--approve ask``; the question answered ``a``."""
    term = TmuxXcsh(ctx.repo.parent, scrollback=3000, timeout=60.0)
    start = time.monotonic()
    log = RunLog()
    try:
        env = {"XCSH_HOME": str(ctx.home), "NO_COLOR": "1"}
        argv = ("--approve", "ask", "--provider", "openai", "--base-url", ctx.base_url)
        term.start(ctx.repo, env, *argv, "--model", MODEL_NAME, *ctx.extra)
        term.wait_for(IDLE)
        term.type(ctx.rename.prompt())
        answered, ending = _drive(term, start + ctx.timeout)
        screen = term.screen()
        if ending != "exited":
            if ending == "timeout":
                term.keys("C-c")  # cancel the run, then leave
            term.keys("C-d")
            term.wait_for("[xcsh exited", timeout=30)
            screen = term.screen()
    finally:
        term.close()
    log.wall = time.monotonic() - start
    log.timed_out = ending == "timeout"
    log.stderr = screen
    log.events = session_events(ctx.home)
    log.model_wait = exchange_seconds(ctx.exchange)
    if ending == "exited":
        return Outcome(False, "the terminal exited during the run", [log])
    if not answered and ending == "timeout":
        reason = f"timed out ({ctx.timeout:.0f} s) before any approval question"
        return Outcome(False, reason, [log])
    if not answered:
        return Outcome(False, "no approval question: the model never asked to apply", [log])
    problem = rename_problem(ctx.repo, ctx.rename)
    return Outcome(problem is None, f"answered apply, but {problem}" if problem else "", [log])


def session_events(home: Path) -> list[Event]:
    """The newest session file under ``home`` as ``--mode json`` events (untimed).

    Each assistant message becomes a ``turn_end`` (with its usage) preceded by
    a ``tool_call_start`` per call; ``pending_pushed`` and ``resolved``
    records keep their fields.
    """
    files = sorted((home / "sessions").glob("*.jsonl"), key=lambda p: p.stat().st_mtime)
    events: list[Event] = []
    for line in files[-1].read_text().splitlines() if files else []:
        record = json.loads(line)
        kind = record.get("type")
        message = record.get("message")
        if kind == "message" and isinstance(message, dict) and message.get("role") == "assistant":
            for block in message.get("content", []):
                if "arguments" in block and "id" in block:
                    events.append(Event(0.0, {"type": "tool_call_start", "name": block["name"]}))
            events.append(Event(0.0, {"type": "turn_end", "message": message}))
        elif kind in ("pending_pushed", "resolved"):
            events.append(Event(0.0, record))
    return events


def exchange_seconds(exchange: Path | None) -> float:
    """Seconds the model server took over the run's recorded requests."""
    if exchange is None or not exchange.is_file():
        return 0.0
    lines = exchange.read_text().splitlines()
    return sum(float(json.loads(line).get("seconds", 0.0)) for line in lines)
