"""A scripted model: plays back a JSON list of steps, offline.

Use it to test custom tools, or the agent itself, without an API key::

    xcsh --provider scripted --model steps.json -p "rename foo to bar"

``steps.json`` is a JSON list; each step is the model's whole answer to one
request::

    [
      {"tool_calls": [{"name": "ast_edit", "arguments": {"ops": [{"pat": "foo", "out": "bar"}]}}]},
      {"tool_calls": [{"name": "resolve", "arguments": {"action": "apply", "reason": "ok"}}]},
      {"text": "Renamed foo to bar."}
    ]

A step holds ``"text"``, ``"tool_calls"`` or both (text first); a step
``{"error": "message"}`` makes that request fail with
:class:`xcsh.core.ProviderError`. When the steps run out, the model ends its
turn with no text and no tool calls. Tool call ids are generated.

Every request received is appended as one JSON line to
``<steps>.requests.jsonl`` beside the steps file (``steps.json`` →
``steps.requests.jsonl``) with ``index`` (1-based), ``system``, ``messages``
(each message as a dict), ``tools`` (the names offered, in order),
``tool_choice`` (``"auto"``, or ``{"name": "resolve"}`` when a tool is
forced), and ``thinking``. The file is appended to, never truncated: delete it
between runs when you want a fresh log.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError

from xcsh.core import (
    AssistantMessage,
    ForcedTool,
    JsonObject,
    JsonValue,
    Message,
    ModelRequest,
    ProviderError,
    StopReason,
    TextContent,
    ToolCall,
    ToolChoice,
    UsageError,
)
from xcsh.core.json_read import loads as bounded_json
from xcsh.core.validation import problems
from xcsh.providers.base import ResponseDone, StreamEvent, TextChunk

_STEP_KEYS = {"text", "tool_calls", "error"}


@dataclasses.dataclass(frozen=True, kw_only=True)
class ScriptedStep:
    """One scripted answer: optional text, then tool calls; or an error."""

    text: str = ""
    tool_calls: tuple[tuple[str, JsonObject], ...] = ()
    error: str | None = None


class _StepFile(BaseModel):
    """A step as the file holds it: the one adapter of the steps file's JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: StrictStr = ""
    error: StrictStr | None = None
    tool_calls: list[JsonValue] = []


class _CallFile(BaseModel):
    """A tool call of a step as the file holds it (other keys ignored)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: StrictStr = Field(min_length=1)
    arguments: JsonObject = {}


_FIELD_PROBLEMS = {
    "text": "'text' must be a string",
    "error": "'error' must be a string",
    "tool_calls": "'tool_calls' must be a list",
}
"""What a step's field must be, by field, for the message naming the first bad one."""


def requests_log_path(steps_path: Path) -> Path:
    """Where requests are logged: ``steps.json`` → ``steps.requests.jsonl``."""
    return steps_path.with_name(f"{steps_path.stem}.requests.jsonl")


def load_steps(steps_path: Path) -> list[ScriptedStep]:
    """Read and check a steps file.

    Raises:
        UsageError: the file is missing, is not JSON, or a step has the wrong
            shape; the message names the step and the expected shape.
    """
    try:
        raw = bounded_json(steps_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(
            f"scripted model: steps file not found: {steps_path}",
            hint="pass a JSON list of steps with --model STEPS.json",
        ) from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(
            f"scripted model: cannot read {steps_path}: {exc}",
            hint='the file must be a JSON list like [{"text": "done"}]',
        ) from exc
    if not isinstance(raw, list):
        raise UsageError(
            f"scripted model: {steps_path} must hold a JSON list of steps, "
            f"not {type(raw).__name__}",
            hint='e.g. [{"tool_calls": [{"name": "ls", "arguments": {}}]}, {"text": "done"}]',
        )
    return [_parse_step(steps_path, i, step) for i, step in enumerate(raw, start=1)]


def _parse_step(path: Path, index: int, step: object) -> ScriptedStep:
    where = f"scripted model: {path} step {index}"
    shape = '{"text": "..."} or {"tool_calls": [{"name": "...", "arguments": {...}}]}'
    if not isinstance(step, dict) or not step or not set(step) <= _STEP_KEYS:
        raise UsageError(f"{where} must be {shape}; got {json.dumps(step)[:200]}")
    try:
        parsed = _StepFile.model_validate(step)
    except ValidationError as exc:
        field = problems(exc)[0].where.split(".")[0]
        raise UsageError(f"{where}: {_FIELD_PROBLEMS[field]}") from exc
    calls: list[tuple[str, JsonObject]] = []
    for j, call in enumerate(parsed.tool_calls, start=1):
        try:
            read = _CallFile.model_validate(call)
        except ValidationError as exc:
            raise UsageError(
                f"{where}, tool call {j}: expected "
                '{"name": "<tool>", "arguments": {...}}; '
                f"got {json.dumps(call)[:200]}"
            ) from exc
        calls.append((read.name, read.arguments))
    return ScriptedStep(text=parsed.text, tool_calls=tuple(calls), error=parsed.error)


def tool_choice_to_json(choice: ToolChoice) -> str | dict[str, str]:
    """``"auto"`` (or ``"none"``/``"required"``) as is; a forced tool as ``{"name": ...}``."""
    if isinstance(choice, ForcedTool):
        return {"name": choice.name}
    return choice


class ScriptedProvider:
    """A :class:`~xcsh.providers.base.Provider` that plays back a steps file.

    Args:
        steps_path: the JSON steps file (see the module docstring).
        log_requests: append each request to :attr:`requests_path` (default);
            False skips the log, whose cost grows with the history (benchmarks).

    Attributes:
        name: ``"scripted"``.
        model: the steps file's path.
        supports_forced_tool_choice: True (it records the forced choice).
        compatible_server: False.
        requests_path: where requests are logged.
        position: how many steps were played so far.

    Raises:
        UsageError: the steps file is missing or malformed (at construction).
    """

    supports_forced_tool_choice = True
    compatible_server = False

    def __init__(self, steps_path: Path | str, *, log_requests: bool = True) -> None:
        self.steps_path = Path(steps_path)
        self.steps = load_steps(self.steps_path)
        self.name = "scripted"
        self.model = str(self.steps_path)
        self.requests_path = requests_log_path(self.steps_path)
        self.position = 0
        self.log_requests = log_requests
        self._requests = 0
        self._sent: list[tuple[Message, str]] = []  # the last request's messages, serialised
        self._id_prefix = secrets.token_hex(3)

    def _serialise(self, messages: list[Message]) -> list[str]:
        # The history only grows between requests: reuse the shared prefix.
        reused = 0
        for (old, _), new in zip(self._sent, messages, strict=False):
            if old is not new:
                break
            reused += 1
        fresh = [
            (m, json.dumps(dataclasses.asdict(m), ensure_ascii=False, default=str))
            for m in messages[reused:]
        ]
        self._sent = self._sent[:reused] + fresh
        return [text for _, text in self._sent]

    def _log(self, request: ModelRequest) -> None:
        self._requests += 1
        head = {"index": self._requests, "system": request.system}
        tail = {
            "tools": [t.name for t in request.tools],
            "tool_choice": tool_choice_to_json(request.tool_choice),
            "thinking": request.thinking,
        }
        messages = ", ".join(self._serialise(request.messages))
        line = (
            json.dumps(head, ensure_ascii=False)[:-1]
            + f', "messages": [{messages}], '
            + json.dumps(tail, ensure_ascii=False, default=str)[1:]
        )
        with self.requests_path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")

    async def stream(
        self, request: ModelRequest, *, cancel: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Log ``request``, then yield the next step as stream events.

        Raises:
            ProviderError: the step is ``{"error": ...}``.
        """
        if self.log_requests:
            self._log(request)
        step = self.steps[self.position] if self.position < len(self.steps) else None
        self.position += 1
        await asyncio.sleep(0)  # a real await point, so cancellation behaves as with a network
        if step is not None and step.error is not None:
            raise ProviderError(f"scripted model: {step.error}")
        if step is None:
            step = ScriptedStep()
        content: list[TextContent | ToolCall] = []
        if step.text:
            yield TextChunk(text=step.text)
            content.append(TextContent(step.text))
        for j, (name, arguments) in enumerate(step.tool_calls, start=1):
            call_id = f"call_{self._id_prefix}_{self.position}_{j}"
            content.append(ToolCall(id=call_id, name=name, arguments=dict(arguments)))
        stop: StopReason = "tool_use" if step.tool_calls else "stop"
        yield ResponseDone(
            message=AssistantMessage(
                content=list(content), stop_reason=stop, provider=self.name, model=self.model
            )
        )
