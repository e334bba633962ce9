"""A deferred call of another server's tool: its preview, and the effect that makes the call.

The preview shows the server, the tool, its annotations and the arguments as
pretty JSON. A long string argument that holds a file's content, beside an
argument naming that file in the workspace (``path``, ``file``, ...), is
shown as a unified diff against the file instead. Every workspace file the
call names (:func:`xcsh.mcpclient.paths.named_files`: the file written,
however short the content; both ends of a move) is one of the preview's
files: the session's undo journal records them around the real call
(``xcsh undo`` takes the server's write back). A tool that takes a dry-run
argument is previewed by the server itself: the preview is what the call
with ``dryRun: true`` answered.

:class:`McpCallEffect` makes the real call only on apply; a discard never
calls the server.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import mcp_types as types

from xcsh.core import AgentToolResult, JsonValue, TextContent, ToolError
from xcsh.journal import proposed_changes
from xcsh.mcpclient.paths import CONTENT_KEYS, PATH_KEYS, first_path, named_files
from xcsh.pending import ApplyReport, PendingEffect, Preview, PreviewFile, Supports
from xcsh.pending.diff import file_diff

CallTool = Callable[[Mapping[str, object]], Awaitable[AgentToolResult]]
"""``await call(arguments)``: the real call, its result as the model reads it."""

DRY_RUN_KEYS = ("dryRun", "dry_run", "dry-run")
"""Boolean parameters that make a tool only say what it would do."""
LONG_STRING = 200
"""A string argument at least this long (or with a line break) is shown as a diff when it can be."""


@dataclass(frozen=True, kw_only=True)
class CallPreview:
    """What a deferred call would do, as shown and as the pending action carries it.

    Args:
        text: the whole preview (server, tool, annotations, arguments, diffs or the
            server's dry run).
        files: the workspace files the call writes, each with its diff.
    """

    text: str
    files: tuple[PreviewFile, ...] = ()

    def preview(self) -> Preview:
        """The typed preview (all or nothing: no parts)."""
        return Preview(files=self.files, diff=self.text)


def annotations_text(annotations: types.ToolAnnotations | None) -> str:
    """The tool's behaviour hints in one line (``readOnlyHint: false, destructiveHint: true``)."""
    if annotations is None:
        return "none (the server gives no hints, so the call is treated as a write)"
    hints = [
        ("readOnlyHint", annotations.read_only_hint),
        ("destructiveHint", annotations.destructive_hint),
        ("idempotentHint", annotations.idempotent_hint),
        ("openWorldHint", annotations.open_world_hint),
    ]
    shown = [f"{name}: {str(value).lower()}" for name, value in hints if value is not None]
    return ", ".join(shown) or "none given"


def dry_run_parameter(schema: Mapping[str, object]) -> str | None:
    """The name of a boolean dry-run parameter of ``schema`` (``dryRun``), or ``None``."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return None
    for key in DRY_RUN_KEYS:
        prop = properties.get(key)
        if isinstance(prop, Mapping) and prop.get("type") == "boolean":
            return key
    return None


def build_preview(
    *,
    server: str,
    tool: str,
    annotations: types.ToolAnnotations | None,
    arguments: Mapping[str, JsonValue],
    workspace: Path,
    dry_run: str = "",
) -> CallPreview:
    """The preview of calling ``tool`` on ``server`` with ``arguments``.

    Args:
        server: the server's name.
        tool: the tool's name on the server.
        annotations: its hints.
        arguments: the call's arguments.
        workspace: where file arguments are looked up.
        dry_run: the server's own answer to the call made as a dry run (``""``: none).
    """
    files: list[PreviewFile] = []
    shown: dict[str, JsonValue] = dict(arguments)
    diffs: list[str] = []
    if not dry_run:
        for key, diff, path in _content_diffs(arguments, workspace):
            shown[key] = f"<{len(str(arguments[key]))} characters: shown below as a diff of {path}>"
            files.append(PreviewFile(path=path, diff=diff))
            diffs.append(diff)
    # every file the call may write (a short write, both ends of a move) is recorded
    # around the call; the server's dry run or the arguments show the change
    with_diff = {f.path for f in files}
    files += [PreviewFile(path=p) for p in named_files(arguments, workspace) if p not in with_diff]
    lines = [
        f"MCP server: {server}",
        f"Tool: {tool}",
        f"Annotations: {annotations_text(annotations)}",
        "Arguments:",
        json.dumps(shown, indent=2, ensure_ascii=False),
    ]
    if dry_run:
        lines += ["The server's dry run of this call:", dry_run.rstrip("\n")]
    text = "\n".join(lines) + "\n" + "".join(diffs)
    return CallPreview(text=text, files=tuple(files))


def _content_diffs(
    arguments: Mapping[str, JsonValue], workspace: Path
) -> list[tuple[str, str, str]]:
    """``(content key, diff, file)`` for a file's new content given beside its path."""
    path = first_path(arguments, PATH_KEYS)
    if path is None:
        return []
    found: list[tuple[str, str, str]] = []
    for key in CONTENT_KEYS:
        value = arguments.get(key)
        if not isinstance(value, str) or (len(value) < LONG_STRING and "\n" not in value):
            continue
        try:
            (change,) = proposed_changes(workspace, {path: value.encode("utf-8")})
        except ToolError:
            return []  # outside the workspace, protected, or not a regular file: JSON only
        diff = file_diff(change.shown, change.before, change.after)
        if diff:
            found.append((key, diff, change.shown))
        break
    return found


@dataclass(frozen=True, kw_only=True)
class McpCallEffect(PendingEffect):
    """The real call of a deferred MCP tool call, made only on apply.

    Args:
        label: the action's label (``Applied: <label>.`` starts the result).
        call: makes the call with ``arguments`` and returns its result.
        arguments: the arguments to call with (a dry run's flag removed).
    """

    label: str
    call: CallTool
    arguments: Mapping[str, object] = field(default_factory=dict)

    @property
    def supports(self) -> Supports:
        """All or nothing; nothing to clean up on discard (the server never heard of it)."""
        return Supports()

    async def apply(self, reason: str) -> ApplyReport:
        """Call the tool now.

        Returns:
            The server's result after ``Applied: <label>.``; an error result when
            the server says the call failed (the action is resolved all the same:
            the call was made).

        Raises:
            ToolError: the call could not be made (the server is down, timed out
                or refused it); the action stays pending.
        """
        result = await self.call(self.arguments)
        head = TextContent(
            f"Applied: {self.label}."
            if not result.is_error
            else f"Called: {self.label}; the server says the call failed:"
        )
        return ApplyReport(
            result=AgentToolResult(content=[head, *result.content], is_error=result.is_error)
        )


__all__ = [
    "CONTENT_KEYS",
    "DRY_RUN_KEYS",
    "PATH_KEYS",
    "CallPreview",
    "CallTool",
    "McpCallEffect",
    "annotations_text",
    "build_preview",
    "dry_run_parameter",
]
