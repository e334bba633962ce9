"""``release_bump_preview``: one call, two previews, resolved last-first.

Given a version and a note, it stages two independent changes:

1. ``VERSION`` gets the new version (pushed first);
2. ``CHANGELOG.md`` gets a new entry at the top (pushed second).

Pending actions form a stack, so the first ``resolve`` decides the changelog
entry and the second one the version bump. Each change is stateless (nothing
to clean up on discard), so neither has a ``reject`` and ``resolve`` uses its
default ``Discarded: ...`` text. Each ``apply`` writes exactly the previewed
bytes, atomically, and refuses if the file changed since the preview.

The parameters are a JSON Schema dict, so ``execute`` receives a plain dict.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

from xcsh import (
    AgentToolResult,
    CustomTool,
    CustomToolAPI,
    CustomToolPendingAction,
    TextContent,
    ToolError,
)

PARAMETERS = {
    "type": "object",
    "properties": {
        "version": {
            "type": "string",
            "pattern": r"^\d+\.\d+\.\d+$",
            "description": "The new version, MAJOR.MINOR.PATCH.",
        },
        "note": {"type": "string", "minLength": 1, "description": "One line for the changelog."},
    },
    "required": ["version", "note"],
    "additionalProperties": False,
}


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _diff(path: Path, new: bytes) -> str:
    """The unified diff of writing ``new`` over ``path``: this action's own preview."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.decode("utf-8").splitlines(keepends=True),
        fromfile=f"a/{path.name}",
        tofile=f"b/{path.name}",
    )
    return "".join(lines)


def _stage(api: CustomToolAPI, path: Path, new: bytes, label: str) -> None:
    """Push a pending write of ``new`` to ``path`` that refuses if ``path`` changed.

    ``details["diff"]`` is what front ends show for this action alone (without
    it they would show the call's whole result text under both previews).
    """
    seen = _digest(path)

    def apply(reason: str) -> str:
        if _digest(path) == hashlib.sha256(new).hexdigest():
            return f"{path.name} already up to date. Reason: {reason}"
        if _digest(path) != seen:
            raise ToolError(f"{path.name} changed since the preview; nothing was written.")
        _write_atomic(path, new)
        return f"Wrote {path.name}. Reason: {reason}"

    details = {"path": path.name, "diff": _diff(path, new)}
    api.push_pending_action(CustomToolPendingAction(label=label, apply=apply, details=details))


def factory(api: CustomToolAPI) -> list[CustomTool]:
    """Build ``release_bump_preview`` for the workspace ``api.cwd`` (a list of one tool).

    xcsh calls this once when it loads the file; a factory may return several tools.
    """
    root = Path(api.cwd)

    def execute(tool_call_id: str, params: dict[str, Any]) -> AgentToolResult:
        version, note = params["version"], params["note"].strip()
        version_file, changelog = root / "VERSION", root / "CHANGELOG.md"
        old_version = ""
        if version_file.exists():
            old_version = version_file.read_text(encoding="utf-8").strip()
        if old_version == version:
            raise ToolError(f"VERSION is already {version}; nothing to stage.")
        old_log = changelog.read_bytes() if changelog.exists() else b"# Changelog\n"
        head, sep, rest = old_log.partition(b"\n")
        entry = f"\n## {version}\n\n- {note}\n".encode()
        new_log = head + sep + entry + rest if head.startswith(b"# ") else entry + old_log

        _stage(api, version_file, f"{version}\n".encode(), f"Release: VERSION -> {version}")
        _stage(api, changelog, new_log, f"Release: CHANGELOG entry for {version}")
        text = (
            f"Staged 2 previews for {version} (was {old_version or 'unset'}):\n"
            f"1. CHANGELOG.md gets:{entry.decode().rstrip()}\n"
            f"2. VERSION becomes {version}\n"
            "Resolve decides them in this order (last staged first)."
        )
        return AgentToolResult(content=[TextContent(text)])

    return [
        CustomTool(
            name="release_bump_preview",
            label="Release Bump Preview",
            description="Stage a version bump and a changelog entry; resolve applies each.",
            parameters=PARAMETERS,
            execute=execute,
        )
    ]
