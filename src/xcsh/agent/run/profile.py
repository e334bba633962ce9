"""Prompt profiles: the full prompt, or a compact one for small models with small windows.

The ``compact`` profile sends what a 1-3B model on a 16K-token window can
use: a short system prompt, each tool's first sentences, parameter schemas
without titles, null branches, long descriptions and the advanced parameters listed in
:data:`ADVANCED_PARAMETERS` (the tools still accept them). Every tool,
``resolve`` included, is offered on every turn, so the tool list a server
renders into its prompt never changes within a session and its prompt cache
holds across a preview (a ``resolve`` with nothing pending is refused by the
tool). ``auto`` (the default) picks ``compact``
for a ``--base-url`` server whose context window is at most
:data:`COMPACT_WINDOW` tokens.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from xcsh.core import (
    AssistantMessage,
    JsonObject,
    JsonValue,
    Message,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
)
from xcsh.pending import PendingActionStore, resolve_outcome

Profile = Literal["full", "compact"]
"""What the model is sent: everything, or the compact profile."""

ProfileSetting = Literal["auto", "full", "compact"]
"""The values of the ``profile`` setting."""

PROFILE_SETTINGS: tuple[ProfileSetting, ...] = ("auto", "full", "compact")
"""The values of the ``profile`` setting, in the order messages list them."""

COMPACT_WINDOW = 32768
"""``auto`` picks the compact profile for servers whose window is at most this many tokens."""

ADVANCED_PARAMETERS: dict[str, frozenset[str]] = {
    "ast_grep": frozenset({"glob", "sel", "strictness", "rule", "offset", "limit"}),
    "ast_edit": frozenset(
        {"glob", "sel", "strictness", "rule", "limit", "include_broken", "include_parse_errors"}
    ),
    "grep": frozenset({"context", "limit", "ignore_case"}),
    "ls": frozenset({"limit"}),
    "find": frozenset({"limit"}),
    "read": frozenset({"offset", "limit"}),
    "bash": frozenset({"timeout", "preview", "check"}),
    "resolve": frozenset({"id", "only", "check"}),
}
"""Parameters a compact tool schema leaves out, by tool (sent only in the full profile)."""


GRAMMAR_SCHEMA_BYTES = 100_000
"""Bytes of tool list JSON past which llama.cpp's grammar builder was reported to fail.

llama.cpp issue 25895 (2026-07): a tools array of 97,102 bytes was accepted and one
of 100,026 bytes refused with "failed to parse grammar". The llama.cpp that
``make e2e-model`` builds built the grammar of tool lists up to 946,800 bytes
(1,200 tools, forced call); what it refused was the prompt, past its context
window. So with the window known the warning is about the window, and this
reported size is only the bound when the server did not say its window.
"""

SCHEMA_BYTES_PER_TOKEN = 3.7
"""Bytes of tool list JSON per prompt token, measured with Qwen2.5's tokenizer on
filesystem-server-like tool schemas (``devtools/grammar_limit.py``: 10 tools, 7,890
bytes, made 2,819 prompt tokens and 1,200 tools, 946,800 bytes, 253,909)."""


def offered_schema_bytes(tools: Iterable[Tool]) -> int:
    """The bytes of the tools array the compact profile sends for ``tools``.

    As Chat Completions carries it: each tool's name, description and trimmed parameters.
    """
    listed: list[JsonValue] = []
    for tool in tools:
        spec = compact_spec(
            ToolSpec(name=tool.name, description=tool.description, parameters=tool.json_schema())
        )
        function: JsonObject = {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        }
        listed.append({"type": "function", "function": function})
    return len(json.dumps(listed, separators=(",", ":")).encode("utf-8"))


def compact_schema_warning(tools: Iterable[Tool], window: int | None = None) -> str:
    """A warning when the compact profile offers more tools than a llama.cpp server takes.

    Args:
        tools: the tools offered.
        window: the server's context window in tokens, ``None`` when it did not say.

    Returns:
        ``""`` when the tool list takes at most half of ``window`` (estimated at
        :data:`SCHEMA_BYTES_PER_TOKEN`), or, without a window, stays within
        :data:`GRAMMAR_SCHEMA_BYTES`; else the warning.
    """
    size = offered_schema_bytes(tools)
    fix = 'offer fewer MCP tools (a server\'s tools list) or set mcp_tools = "none"'
    if window is not None:
        tokens = round(size / SCHEMA_BYTES_PER_TOKEN)
        if tokens <= window // 2:
            return ""
        return (
            f"the tools offered to the model take about {tokens:,} prompt tokens ({size:,} "
            f"bytes of JSON), more than half of the server's context window of {window:,} "
            f"tokens (a request past the window is refused): {fix}"
        )
    if size <= GRAMMAR_SCHEMA_BYTES:
        return ""
    return (
        f"the tools offered to the model take {size:,} bytes of JSON, past the "
        f"{GRAMMAR_SCHEMA_BYTES:,} at which llama.cpp's grammar builder was reported to fail "
        f"(a forced turn may be refused): {fix}"
    )


def choose_profile(
    setting: ProfileSetting, *, compatible_server: bool, window: int | None
) -> Profile:
    """The profile for a ``profile`` setting of ``"auto"``, ``"full"`` or ``"compact"``.

    ``auto`` is ``compact`` only for a ``--base-url`` server that reported a
    window of at most :data:`COMPACT_WINDOW` tokens.
    """
    if setting in ("full", "compact"):
        return "compact" if setting == "compact" else "full"
    small = window is not None and window <= COMPACT_WINDOW
    return "compact" if compatible_server and small else "full"


COMPACT_RESULT_CHARS = 16_000
"""The compact profile's cap on one text block of a tool result (about 4,000-5,000 tokens).

The default cap (50,000 characters) is more than a 16K-token window holds: Qwen2.5
1.5B read a 1,100-line module whole and the next request passed the server's window.
"""

REPEATED_CALL_NOTE = (
    "This is the same call as your previous one, with the same arguments, and the "
    "same result. Answer from the results you have, or call a different tool."
)
"""Appended, in the compact profile, to the result of a read-only call that repeats the
call just before it: a small model at temperature 0 otherwise repeats it until it gives up."""


NOTHING_PREVIEWED_NOTE = (
    "resolve only applies or discards a preview that an earlier ast_edit call made, and "
    "none is pending. To change code, call ast_edit first; if the task needs no change, "
    "answer it now."
)
"""Appended, in the compact profile, to a ``resolve`` refused because nothing was pending:
a small model told to discard a change calls ``resolve`` before making the preview."""


def applied_note(pending: int) -> str:
    """Appended, in every profile, to the result of a ``resolve`` that applied a change.

    Small models told the user, after the apply, how to apply the change; the note
    says it is written and what is left. ``pending``: previews still on the stack.
    """
    if not pending:
        return (
            "The change is written; nothing is left to apply or resolve. "
            "Tell the user what changed."
        )
    previews = "1 more preview is" if pending == 1 else f"{pending} more previews are"
    return f"The change is written; {previews} pending: resolve the next one."


def with_applied_note(
    result: ToolResultMessage, store: PendingActionStore | None
) -> ToolResultMessage:
    """``result`` with :func:`applied_note` as its second line, for a ``resolve`` that applied.

    ``store``: the session's, read after the apply (what is still pending).
    """
    outcome = resolve_outcome(result.tool_name, result.details)
    if result.is_error or outcome is None or outcome.status != "applied":
        return result
    note = applied_note(store.count if store is not None else 0)
    content = list(result.content)
    first = content[0] if content else None
    if isinstance(first, TextContent) and first.text:
        # second: what the apply says last (a check's verdict, a call to make) stays last
        head, _, rest = first.text.partition("\n")
        content[0] = TextContent("\n".join([head, note, *([rest] if rest else [])]))
    else:
        content.insert(0, TextContent(note))
    return dataclasses.replace(result, content=content)


def repeats_previous_call(history: Sequence[Message], call: ToolCall) -> bool:
    """Whether ``call`` has the name and arguments of the last call of the turn before its own.

    ``history`` holds ``call``'s own assistant message (found by the call's id);
    the turn before is the latest earlier assistant message with calls.
    False when there is no earlier call or ``call`` is not in ``history``.
    """
    own = False
    for message in reversed(history):
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        if not own:
            own = any(c.id == call.id for c in message.tool_calls)
            continue
        last = message.tool_calls[-1]
        return (last.name, last.arguments) == (call.name, call.arguments)
    return False


DESCRIPTION_CHARS = 200
"""A compact description keeps whole sentences up to this many characters (at least one)."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def compact_spec(spec: ToolSpec) -> ToolSpec:
    """``spec`` with its description cut to its first sentences and its schema trimmed.

    Property descriptions are cut to their first sentence; advanced parameters are left out.
    """
    hidden = ADVANCED_PARAMETERS.get(spec.name, frozenset())
    parameters = _trim_object(spec.parameters)
    match parameters:
        case {"properties": dict(properties)}:
            parameters["properties"] = {
                name: _short_description(value, 1)
                for name, value in properties.items()
                if name not in hidden
            }
    return ToolSpec(
        name=spec.name,
        description=first_sentences(spec.description, DESCRIPTION_CHARS),
        parameters=parameters,
    )


def first_sentences(text: str, limit: int) -> str:
    """The leading whole sentences of ``text`` within ``limit`` characters (at least one)."""
    sentences = _SENTENCE_END.split(" ".join(text.split()))
    kept = sentences[:1]
    for sentence in sentences[1:]:
        if len(" ".join([*kept, sentence])) > limit:
            break
        kept.append(sentence)
    return " ".join(kept)


def _short_description(schema: JsonValue, sentences: int) -> JsonValue:
    if not isinstance(schema, dict):
        return schema
    match schema:
        case {"description": str(description)}:
            first = _SENTENCE_END.split(" ".join(description.split()))[:sentences]
            return {**schema, "description": " ".join(first)}
    return schema


def _trim(value: JsonValue) -> JsonValue:
    """A schema without ``title``, ``default: null``, and with ``anyOf [X, null]`` as ``X``."""
    if isinstance(value, list):
        return [_trim(v) for v in value]
    if not isinstance(value, dict):
        return value
    return _trim_object(value)


def _trim_object(value: JsonObject) -> JsonObject:
    out: JsonObject = {}
    for key, item in value.items():
        if key == "title" and isinstance(item, str):
            continue
        if key == "default" and item is None:
            continue
        out[key] = _trim(item)
    match out:
        case {"anyOf": list(branches)}:
            kept = [b for b in branches if b != {"type": "null"}]
            if len(kept) == 1 and isinstance(kept[0], dict):
                del out["anyOf"]
                out = {**kept[0], **out}
            elif len(kept) != len(branches):
                out["anyOf"] = kept
    return out
