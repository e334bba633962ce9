"""One ``xcsh -p --mode json`` run against the model server, its events timed as they arrive."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

XCSH = str(Path(sys.executable).with_name("xcsh"))
MODEL_NAME = "local"


@dataclass
class Event:
    """One JSON line of ``--mode json``, with seconds since the run started."""

    at: float
    data: dict[str, Any]

    @property
    def type(self) -> str:
        """The event's ``type``."""
        return str(self.data.get("type", ""))


@dataclass
class RunLog:
    """What one xcsh process did.

    Attributes:
        events: the JSON events in order.
        returncode: the exit status (negative: killed by that signal).
        stderr: its standard error.
        wall: seconds from start to exit.
        timed_out: the harness ended it at the time limit.
        idle_at_timeout: seconds without an event when it was ended.
        model_wait: seconds spent waiting on the model, when measured elsewhere
            (the terminal task times the server's answers; it has no timed events).
    """

    events: list[Event] = field(default_factory=list)
    returncode: int = 0
    stderr: str = ""
    wall: float = 0.0
    timed_out: bool = False
    idle_at_timeout: float = 0.0
    model_wait: float | None = None

    def of(self, kind: str) -> list[dict[str, Any]]:
        """The data of every event of ``kind``."""
        return [e.data for e in self.events if e.type == kind]

    def answer(self) -> str:
        """The final answer text (``run_end``'s ``final_text``), or ``""``."""
        ends = self.of("run_end")
        return str(ends[-1].get("final_text") or "") if ends else ""

    def model_seconds(self) -> float:
        """Seconds spent waiting on the model (:attr:`model_wait` when set).

        Counted from each turn's start to its first tool call or, without one, to its end.
        """
        if self.model_wait is not None:
            return self.model_wait
        total, started = 0.0, None
        for event in self.events:
            if event.type == "turn_start":
                started = event.at
            elif event.type in ("tool_call_start", "turn_end", "error") and started is not None:
                total += event.at - started
                started = None
        if started is not None:
            total += self.wall - started
        return total

    def first_turn_seconds(self) -> float | None:
        """Seconds the first turn's answer took.

        None when there was no turn (or no timed events).
        """
        start = next((e.at for e in self.events if e.type == "turn_start"), None)
        if start is None:
            return None
        done = next(
            (e.at for e in self.events if e.type in ("tool_call_start", "turn_end", "error")),
            None,
        )
        return (done if done is not None else self.wall) - start

    def prompt_tokens(self) -> list[int]:
        """Prompt tokens (new plus cached) of each turn."""
        out = []
        for end in self.of("turn_end"):
            usage = end.get("message", {}).get("usage", {}) or {}
            out.append(int(usage.get("input_tokens", 0)) + int(usage.get("cache_read_tokens", 0)))
        return out

    def output_tokens(self) -> list[int]:
        """Output tokens of each turn."""
        return [
            int((end.get("message", {}).get("usage", {}) or {}).get("output_tokens", 0))
            for end in self.of("turn_end")
        ]


def write_settings(home: Path, settings: dict[str, Any]) -> None:
    """``$XCSH_HOME/settings.toml`` with ``settings`` (str, int, float and bool values)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = []
    for key, value in settings.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{key} = {value}")
        else:
            lines.append(f"{key} = {json.dumps(str(value))}")
    (home / "settings.toml").write_text("\n".join(lines) + "\n")


def run_xcsh(
    repo: Path,
    home: Path,
    base_url: str,
    prompt: str,
    *,
    extra: Sequence[str] = (),
    timeout: float = 300.0,
    stop_when: Callable[[Event], bool] | None = None,
) -> RunLog:
    """Run ``xcsh -p PROMPT --mode json`` in ``repo`` with ``XCSH_HOME=home``.

    Args:
        repo: the working copy xcsh runs in.
        home: the folder given as ``XCSH_HOME`` (its ``settings.toml`` applies).
        base_url: the OpenAI-compatible server the model is served on.
        prompt: the task, given as ``-p``.
        extra: more command-line words, after the provider options.
        stop_when: called with each event; when it returns True the process
            gets SIGTERM (as a person stopping it), and the run is not a timeout.
        timeout: seconds before the harness sends SIGTERM (then SIGKILL).

    Returns:
        The events read from stdout with their times, the exit code, stderr and the
        wall time; a run past ``timeout`` is marked ``timed_out`` rather than raising.
    """
    env = {**os.environ, "XCSH_HOME": str(home), "NO_COLOR": "1"}
    env.pop("OPENAI_API_KEY", None)
    env.pop("ANTHROPIC_API_KEY", None)
    command = [XCSH, "-p", prompt, "--mode", "json", "--provider", "openai"]
    command += ["--base-url", base_url, "--model", MODEL_NAME, *extra]
    log = RunLog()
    start = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=repo,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stderr is not None
    stopped = threading.Event()

    def read_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            event = Event(at=time.monotonic() - start, data=data)
            log.events.append(event)
            if stop_when is not None and not stopped.is_set() and stop_when(event):
                stopped.set()
                process.send_signal(signal.SIGTERM)

    errors: list[str] = []
    readers = [
        threading.Thread(target=read_stdout, daemon=True),
        threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True),  # type: ignore[union-attr]
    ]
    for reader in readers:
        reader.start()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        log.timed_out = True
        last = log.events[-1].at if log.events else 0.0
        log.idle_at_timeout = (time.monotonic() - start) - last
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for reader in readers:
        reader.join(10)
    log.wall = time.monotonic() - start
    log.returncode = process.returncode
    log.stderr = "".join(errors)
    return log


_TOOL_CALL_BLOCK = re.compile(
    r"<(?:tool_call|tools)>\s*(.*?)\s*(?:</(?:tool_call|tools)>|$)", re.DOTALL
)
_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def written_calls(text: str, offered: Sequence[str]) -> list[dict[str, Any]]:
    """Find the well-formed tool calls a model wrote as text instead of calling them.

    Looks in ``<tool_call>`` (or ``<tools>``) blocks, fenced JSON and the bare text for
    JSON objects (one or several one after another) or lists of
    ``{"name": <offered tool>, "arguments": {...}}``.

    Args:
        text: the model's answer.
        offered: the tool names the turn offered; calls to other names are not counted.

    Returns:
        The calls found, each once, as its JSON object; ``[]`` when there is none.
    """
    candidates = [m.group(1) for m in _TOOL_CALL_BLOCK.finditer(text)]
    candidates += [m.group(1) for m in _FENCED.finditer(text)]
    candidates.append(text.strip())
    calls: list[dict[str, Any]] = []
    for candidate in candidates:
        for value in _json_values(candidate):
            for item in value if isinstance(value, list) else [value]:
                _add_call(calls, item, offered)
    return calls


def _json_values(text: str) -> list[Any]:
    """Decode the JSON values written one after another in ``text``.

    ``[]`` when anything else is there.
    """
    decoder = json.JSONDecoder()
    values: list[Any] = []
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        try:
            value, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return []
        values.append(value)
    return values


def _add_call(calls: list[dict[str, Any]], item: Any, offered: Sequence[str]) -> None:
    """Add ``item`` to ``calls`` when it is a call of an ``offered`` tool not seen yet."""
    if not isinstance(item, dict) or item.get("name") not in offered:
        return
    arguments = item.get("arguments", item.get("parameters"))
    if isinstance(arguments, dict) and item not in calls:
        calls.append(item)


def offered_by_turn(exchange: Path | None) -> list[list[str]]:
    """The tools each answered request of a run offered, in order: one list per turn.

    Read from the recording proxy's exchange file (requests the server
    refused, such as a schema it could not take, are not turns).
    """
    if exchange is None or not exchange.is_file():
        return []
    turns = []
    for line in exchange.read_text().splitlines():
        record = json.loads(line)
        if record.get("status") == 200 and isinstance(record.get("request"), dict):
            tools = record["request"].get("tools") or []
            turns.append([str(t.get("function", {}).get("name")) for t in tools])
    return turns


def xcsh_failure(
    log: RunLog, offered: Sequence[Sequence[str]], fallback: Sequence[str]
) -> str | None:
    """Why this run failed through xcsh's fault, or ``None``.

    xcsh's faults: a traceback or an internal error; refusing to start; a request the server
    refused (HTTP status); a hang (no event for 120 s while not waiting on
    the model); a well-formed call of a tool that turn offered (``offered``,
    one list per turn; ``fallback`` past its end) written as text and not
    run. A call of a tool the turn did not offer (``resolve`` with nothing
    pending) stays text: the model's mistake.
    """
    if "Traceback (most recent call last)" in log.stderr:
        return "crash: " + log.stderr.strip().splitlines()[-1][:160]
    if not log.events and log.stderr.startswith("xcsh:"):
        return "did not start: " + log.stderr.splitlines()[0][:160]
    for error in log.of("error"):
        message = str(error.get("message", ""))
        if error.get("kind") == "internal":
            return "internal error: " + message[:160]
        if re.search(r"\b(400|404|413|422|500)\b", message):
            return "request refused: " + message.splitlines()[0][:160]
    if log.timed_out:
        waiting = log.events and log.events[-1].type in ("turn_start", "text_delta")
        if not waiting and log.idle_at_timeout > 120:
            return f"hang: no event for {log.idle_at_timeout:.0f} s"
    for turn, end in enumerate(log.of("turn_end")):
        message = end.get("message", {})
        content = message.get("content", [])
        if any("arguments" in block and "id" in block for block in content):
            continue
        text = "".join(str(block.get("text", "")) for block in content if "text" in block)
        calls = written_calls(text, offered[turn] if turn < len(offered) else fallback)
        if calls:
            return f"call written as text not run: {json.dumps(calls[0])[:120]}"
    return None
