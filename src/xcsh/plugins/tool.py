"""A custom tool as its file defines it, and the core tool the agent runs from it (contract §5).

:class:`CustomTool` mirrors the description's object literal (name, label,
description, parameters, execute); it checks them when built and
:meth:`CustomTool.to_agent_tool` turns it into the core
:class:`~xcsh.core.AgentTool`, validating the model's arguments against the
parameters and coercing what ``execute`` returns.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import jsonschema
import pydantic

from xcsh.core import (
    AgentTool,
    AgentToolResult,
    ParametersSpec,
    Tool,
    ToolCallContext,
    ToolError,
    coerce_tool_result,
    describe_value_type,
)

TOOL_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Names providers accept for a tool: letters, digits, ``_`` and ``-``, 1 to 64 characters."""


ExecuteFunction = Callable[..., object]
"""``execute(tool_call_id, params, *, signal=..., on_update=..., ctx=...)``: returns, or
resolves to, what :func:`~xcsh.core.coerce_tool_result` accepts (checked when it returns)."""

_OPTIONAL_ARGUMENTS = ("signal", "cancel", "on_update", "ctx")


@dataclass(kw_only=True)
class CustomTool:
    """A tool defined by a custom tool module, built like the description's object literal.

    Args:
        name: the name the model calls it by: letters, digits, ``_``, ``-``, at
            most 64 characters; it must not clash with a built-in or another tool.
        label: a short human-readable name (defaults to ``name``).
        description: what it does and when to use it, for the model.
        parameters: a pydantic model class, or a JSON Schema dict with
            ``"type": "object"``. Arguments are validated before ``execute`` runs.
        execute: ``execute(tool_call_id, params)``, sync or async. ``params`` is
            the validated **model instance** for a pydantic schema and the
            validated **dict** for a JSON Schema. Optional keyword parameters,
            passed only when the function declares them (or ``**kwargs``):
            ``signal`` or ``cancel`` (an :class:`asyncio.Event` set on
            cancellation), ``on_update`` (progress callback taking an
            ``AgentToolResult``), ``ctx`` (the :class:`~xcsh.core.ToolCallContext`).
            Returns an ``AgentToolResult`` (a str or ``{"content": [...]}`` dict
            is coerced); returning ``None`` fails the call, since the model
            must get a result (``None`` is accepted only from a pending
            action's ``apply``/``reject``, meaning "use the default text").
            Raise :class:`~xcsh.core.ToolError` to fail the call; any other
            exception fails it too, with its type and message.
            A sync ``execute`` runs on the event loop: use ``api.exec`` (async)
            for anything slow.
        read_only: True when the tool never changes anything outside xcsh.

    Raises:
        ValueError: a bad name, an empty description, or an invalid JSON Schema.
        TypeError: ``parameters`` or ``execute`` has the wrong type.
    """

    name: str
    label: str = ""
    description: str
    parameters: ParametersSpec
    execute: ExecuteFunction
    read_only: bool = False
    _accepts: frozenset[str] = field(init=False, repr=False, default=frozenset())

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not TOOL_NAME_PATTERN.match(self.name):
            raise ValueError(
                f"Invalid tool name {self.name!r}: use 1-64 letters, digits, '_' or '-'."
            )
        if not self.label:
            self.label = self.name
        if not isinstance(self.description, str) or not self.description.strip():
            raise ValueError(f"Tool '{self.name}' needs a non-empty description.")
        _check_parameters(self.name, self.parameters)
        if not callable(self.execute):
            raise TypeError(f"Tool '{self.name}': execute must be a function.")
        self._accepts = _optional_arguments(self.execute)

    def to_agent_tool(self) -> Tool:
        """The core tool the agent runs: validates arguments, then calls ``execute``."""
        spec = self

        async def run(params: object, ctx: ToolCallContext) -> AgentToolResult:
            kwargs: dict[str, object] = {}
            if "signal" in spec._accepts:
                kwargs["signal"] = ctx.cancel
            if "cancel" in spec._accepts:
                kwargs["cancel"] = ctx.cancel
            if "on_update" in spec._accepts:
                kwargs["on_update"] = ctx.on_update
            if "ctx" in spec._accepts:
                kwargs["ctx"] = ctx
            try:
                outcome = spec.execute(ctx.tool_call_id, params, **kwargs)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
            except ToolError:
                raise
            except Exception as exc:
                message = str(exc) or "(no message)"
                raise ToolError(
                    f"Tool '{spec.name}' failed: {type(exc).__name__}: {message}"
                ) from exc
            try:
                return coerce_tool_result(outcome)
            except TypeError as exc:
                raise ToolError(f"Tool '{spec.name}' returned a bad result: {exc}.") from exc

        return AgentTool(
            name=self.name,
            label=self.label,
            description=self.description,
            parameters=self.parameters,
            run=run,
            read_only=self.read_only,
        )


def _check_parameters(name: str, parameters: object) -> None:
    if isinstance(parameters, type) and issubclass(parameters, pydantic.BaseModel):
        return
    if not isinstance(parameters, Mapping):
        raise TypeError(
            f"Tool '{name}': parameters must be a pydantic model class or a JSON Schema "
            f"dict, got {describe_value_type(parameters)}."
        )
    match parameters:
        case {"type": "object"}:
            pass
        case _:
            raise ValueError(
                f'Tool \'{name}\': the JSON Schema of parameters must have "type": "object".'
            )
    try:
        jsonschema.Draft202012Validator.check_schema(dict(parameters))
    except jsonschema.SchemaError as exc:
        raise ValueError(f"Tool '{name}': invalid JSON Schema: {exc.message}.") from exc


def _optional_arguments(func: Callable[..., object]) -> frozenset[str]:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return frozenset()
    names: set[str] = set()
    for param in sig.parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            return frozenset(("signal", "on_update", "ctx"))
        if param.name in _OPTIONAL_ARGUMENTS and param.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            names.add(param.name)
    return frozenset(names)
