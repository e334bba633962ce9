"""The tool interface: :class:`AgentTool` and the context a call runs in.

A tool has a name the model calls it by, a label people read, a description,
and a parameter schema. Schemas come from a pydantic model class or a JSON
Schema dict; arguments are validated against it before the tool's code runs,
and a validation failure is a :class:`~xcsh.core.errors.ToolError` that names
the field and what was expected. What a call returns is
:mod:`xcsh.core.tool_result`.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, cast

import jsonschema
import pydantic
from typing_extensions import TypeVar

from xcsh.core.details import JsonObject, JsonValue
from xcsh.core.errors import ToolError
from xcsh.core.tool_result import (
    AgentToolResult,
    coerce_tool_result,
    describe_value_type,
)
from xcsh.core.validation import problems

ToolUpdateCallback = Callable[[AgentToolResult], None]
"""Receives partial results while a tool runs. Must not raise; called on the event loop."""


@dataclass(frozen=True, kw_only=True)
class Progress:
    """The details of a partial result that reports how far a call is (front ends show it).

    Args:
        text: the progress in one line (``40% (4/10): indexing``).
    """

    text: str


@dataclass
class ToolCallContext:
    """Per-call context handed to a tool's implementation.

    Args:
        tool_call_id: the provider's id for this call.
        cancel: set when the user cancels; long-running tools should check it.
            Tools are also cancelled through normal asyncio task cancellation.
        on_update: optional progress callback.
        tool_name: the name of the tool being run (``""`` when unknown).
        tool_label: its label (``"AST Edit"``).
        arguments: the model-facing arguments of the call, as given.
    """

    tool_call_id: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    on_update: ToolUpdateCallback | None = None
    tool_name: str = ""
    tool_label: str = ""
    arguments: Mapping[str, JsonValue] | None = None

    def update(self, result: AgentToolResult) -> None:
        """Send a partial result to the progress callback, if any."""
        if self.on_update is not None:
            self.on_update(result)


_RUNNING: contextvars.ContextVar[ToolCallContext | None] = contextvars.ContextVar(
    "xcsh_running_tool_call", default=None
)


def running_tool_call() -> ToolCallContext | None:
    """The tool call whose ``run`` is executing in this task, or ``None``.

    :meth:`AgentTool.execute` sets it for the duration of ``run`` (code that
    ``run`` starts with the task's context, such as ``asyncio.to_thread``, sees
    it too). The pending-action store reads it to stamp which call pushed an
    action, so a tool pushing through an API without a call id (custom tools'
    ``api.push_pending_action``) is still attributed to its call.
    """
    return _RUNNING.get()


P = TypeVar("P")
"""The type ``run`` receives: the parameters' pydantic model, or the validated dict."""
R = TypeVar("R", covariant=True, default=object)
"""The details type of the tool's results."""

ToolRun = Callable[[P, ToolCallContext], Awaitable[AgentToolResult[R]] | AgentToolResult[R]]
ParametersSpec = type[pydantic.BaseModel] | Mapping[str, JsonValue]
"""A tool's parameters: a pydantic model class, or a JSON Schema object."""

ToolGuard = Callable[[Mapping[str, object]], Awaitable[None]]
"""Checks a call's validated arguments (as a dict) before the tool runs; raises
:class:`ToolError` to refuse it."""


class Tool(Protocol):
    """Any tool, whatever its parameters' and details' types.

    It is what the agent, the front ends and the MCP server use of an
    :class:`AgentTool` (which is one).
    """

    @property
    def name(self) -> str:
        """The name the model calls the tool by."""
        ...

    @property
    def label(self) -> str:
        """The short human-readable name front ends show for the tool."""
        ...

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        ...

    @property
    def parameters(self) -> ParametersSpec:
        """The tool's arguments: a pydantic model or a JSON Schema mapping."""
        ...

    @property
    def hidden(self) -> bool:
        """True for a runtime tool a user does not select (``resolve``)."""
        ...

    @property
    def read_only(self) -> bool:
        """True when the tool never changes anything outside xcsh."""
        ...

    def json_schema(self) -> JsonObject:
        """The parameters as a JSON Schema object."""
        ...

    async def execute(
        self,
        tool_call_id: str,
        params: Mapping[str, JsonValue] | None,
        *,
        cancel: asyncio.Event | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        """Validate ``params`` and run the tool (see :meth:`AgentTool.execute`)."""
        ...

    def guarded(self, guard: ToolGuard) -> Tool:
        """The same tool, with ``guard`` run on each call's arguments before it runs."""
        ...


@dataclass(frozen=True)
class AgentTool(Generic[P, R]):
    """A tool the model can call, generic over its parameters and its results' details.

    Args:
        name: the name the model calls (``[a-zA-Z0-9_-]``, at most 64 characters).
        label: a short human-readable name for front ends.
        description: what the tool does and when to use it, for the model.
        parameters: a pydantic model class (``run`` receives an instance) or a
            JSON Schema dict for an object (``run`` receives the validated dict).
        run: the implementation, ``run(params, ctx)``, sync or async, returning an
            :class:`AgentToolResult` (a str or a dict with ``content`` is coerced;
            ``None`` is not accepted); raise :class:`ToolError` to fail the call.
        hidden: True for runtime tools a user does not select (``resolve``).
        read_only: True when the tool never changes anything outside xcsh.
    """

    name: str
    label: str
    description: str
    parameters: ParametersSpec
    run: ToolRun[P, R]
    hidden: bool = False
    read_only: bool = False

    def json_schema(self) -> JsonObject:
        """The parameters as a JSON Schema object, as providers expect it."""
        if isinstance(self.parameters, type) and issubclass(self.parameters, pydantic.BaseModel):
            return _model_facing(self.parameters.model_json_schema())
        return dict(self.parameters)

    def validate(self, params: Mapping[str, JsonValue] | None) -> P:
        """Check ``params`` against the schema.

        Returns:
            A model instance (pydantic schema) or the dict itself (JSON Schema).

        Raises:
            ToolError: the arguments do not fit; the message names each bad
                field and what was expected.
        """
        raw: Mapping[str, JsonValue] = {} if params is None else params
        if isinstance(self.parameters, type) and issubclass(self.parameters, pydantic.BaseModel):
            try:
                return cast(P, self.parameters.model_validate(raw))
            except pydantic.ValidationError as exc:
                raise ToolError(_describe_pydantic_error(self.name, exc)) from exc
        schema = dict(self.parameters)
        validator = jsonschema.Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(raw), key=lambda e: list(e.absolute_path))
        if errors:
            lines = [f"Invalid arguments for tool '{self.name}':"]
            for err in errors:
                where = ".".join(str(p) for p in err.absolute_path) or "(arguments)"
                lines.append(f"- {where}: {err.message}")
            raise ToolError("\n".join(lines))
        return cast(P, raw)

    async def execute(
        self,
        tool_call_id: str,
        params: Mapping[str, JsonValue] | None,
        *,
        cancel: asyncio.Event | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult[R]:
        """Validate ``params`` and run the tool.

        Args:
            tool_call_id: the provider's id for this call.
            params: the model-facing arguments as a dict.
            cancel: optional event that signals cancellation to the tool.
            on_update: optional progress callback.

        Returns:
            The tool's result.

        Raises:
            ToolError: invalid arguments, the tool failed, or it returned
                something other than :data:`TOOL_RESULT_SHAPES` (``None`` included).
        """
        value = self.validate(params)
        ctx = ToolCallContext(
            tool_call_id=tool_call_id,
            cancel=cancel if cancel is not None else asyncio.Event(),
            on_update=on_update,
            tool_name=self.name,
            tool_label=self.label,
            arguments=params,
        )
        token = _RUNNING.set(ctx)
        try:
            outcome = self.run(value, ctx)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        finally:
            _RUNNING.reset(token)
        try:
            # a built-in tool returns its own typed result, which comes back as it is
            return cast(AgentToolResult[R], coerce_tool_result(outcome))
        except TypeError as exc:
            raise ToolError(f"Tool '{self.name}' returned a bad result: {exc}.") from exc

    def guarded(self, guard: ToolGuard) -> AgentTool[P, R]:
        """The same tool, with ``guard`` awaited on each call's validated arguments before ``run``.

        ``guard`` gets the arguments as a dict; what it raises fails the call unrun.
        """
        inner = self.run

        async def run(params: P, ctx: ToolCallContext) -> AgentToolResult[R]:
            await guard(_argument_values(params))
            outcome = inner(params, ctx)
            if inspect.isawaitable(outcome):
                return await outcome
            return outcome

        return replace(self, run=run)


def _argument_values(params: object) -> dict[str, object]:
    """A call's validated arguments as a dict: the model's fields, or the dict itself."""
    if isinstance(params, pydantic.BaseModel):
        return params.model_dump()
    if isinstance(params, Mapping):
        return dict(params)
    raise TypeError(
        f"expected a pydantic model or a dict of arguments; got {describe_value_type(params)}"
    )


def _model_facing(schema: JsonObject) -> JsonObject:
    """Drop what pydantic takes from class docstrings and names.

    Those are written for developers, while the model reads the tool's description
    and each field's ``description``.
    """
    for key in ("title", "description"):
        schema.pop(key, None)
    definitions = schema.get("$defs", {})
    for definition in definitions.values() if isinstance(definitions, dict) else ():
        if isinstance(definition, dict):
            definition.pop("description", None)
    return schema


def _describe_pydantic_error(tool_name: str, exc: pydantic.ValidationError) -> str:
    lines = [f"Invalid arguments for tool '{tool_name}':"]
    for problem in problems(exc):
        suffix = f" (got {problem.got!r})" if problem.shown else ""
        lines.append(f"- {problem.worded('(arguments)')}{suffix}")
    return "\n".join(lines)
