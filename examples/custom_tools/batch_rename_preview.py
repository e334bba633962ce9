"""``batch_rename_preview``: rename files, but only after ``resolve`` approves it.

Copy this file to ``.xcsh/tools/`` of a project (then ``xcsh trust``) or to
``$XCSH_HOME/tools/``. The model calls it with a list of renames::

    {"renames": [{"from": "notes.txt", "to": "docs/notes.md"}, ...]}

The call only previews: it checks every path, prints the plan, writes a plan
file ``.xcsh/batch_rename/<call id>.json`` (it doubles as a lock, so two
pending plans cannot move the same file), and pushes a pending action.

- ``resolve`` ``apply`` renames every file, creating missing target folders.
  It refuses, renaming nothing, when a source vanished or a target appeared
  since the preview; if a rename fails half-way, the ones already done are
  moved back (all or nothing). It is idempotent: a plan already carried out
  is reported as such.
- ``resolve`` ``discard`` deletes the plan file (and the plan folder when it is
  left empty) and renames nothing. So does the end of an ``xcsh -p`` run or a
  terminal session that leaves the plan pending (xcsh discards it then).

Only regular files inside the workspace are renamed (not folders, not
symlinks); a target must not exist, so chains and swaps (``a -> b``,
``b -> a``) are refused: do them in two steps through a temporary name.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from xcsh import (
    AgentToolResult,
    CustomTool,
    CustomToolAPI,
    CustomToolPendingAction,
    TextContent,
    ToolError,
)

PLAN_DIR = Path(".xcsh") / "batch_rename"


class Rename(BaseModel):
    """One file to rename."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: str = Field(alias="from", description="Current path, relative to the workspace.")
    to: str = Field(description="New path, relative to the workspace; must not exist.")


class BatchRenameParams(BaseModel):
    """Arguments of ``batch_rename_preview``."""

    model_config = ConfigDict(extra="forbid")

    renames: list[Rename] = Field(
        min_length=1, max_length=500, description="The files to rename, each {from, to}."
    )


@dataclass(frozen=True)
class Move:
    """One checked rename: where the file is, where it goes, and how the plan shows it."""

    source: Path  # absolute
    target: Path  # absolute
    shown: str  # "a.txt -> b.txt", relative to the workspace


def _plural(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _inside(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


def _plan(root: Path, renames: list[Rename]) -> list[Move]:
    """Check every rename against the workspace; raises ToolError naming each problem."""
    problems: list[str] = []
    moves: list[Move] = []
    sources: set[Path] = set()
    targets: set[Path] = set()
    for item in renames:
        source = root / item.source
        target = root / item.to
        shown = f"{item.source} -> {item.to}"
        # Real paths: symlinked folders may not lead out of the workspace.
        real_source = Path(os.path.realpath(source.parent)) / source.name
        real_target = Path(os.path.realpath(target))
        if not _inside(root, real_source) or not _inside(root, real_target):
            problems.append(f"{shown}: outside the workspace {root}")
            continue
        if not os.path.lexists(source):
            problems.append(f"{shown}: {item.source} does not exist")
            continue
        if source.is_symlink() or not source.is_file():
            problems.append(f"{shown}: {item.source} is not a regular file")
            continue
        if os.path.lexists(target):
            problems.append(f"{shown}: {item.to} already exists")
            continue
        if real_source in sources:
            problems.append(f"{shown}: {item.source} is renamed twice")
            continue
        if real_target in targets:
            problems.append(f"{shown}: two files would be renamed to {item.to}")
            continue
        sources.add(real_source)
        targets.add(real_target)
        moves.append(Move(real_source, real_target, shown))
    if problems:
        raise ToolError(
            "Nothing was previewed; fix these renames:\n" + "\n".join(f"- {p}" for p in problems)
        )
    return moves


def _locked_paths(plan_dir: Path) -> dict[str, str]:
    """Paths held by other pending plans of live processes: path -> plan file."""
    held: dict[str, str] = {}
    for plan_file in sorted(plan_dir.glob("*.json")):
        try:
            data = json.loads(plan_file.read_text(encoding="utf-8"))
            os.kill(int(data["pid"]), 0)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable or left by a process that is gone: stale, ignore
        for move in data.get("moves", []):
            held[move["from"]] = plan_file.name
            held[move["to"]] = plan_file.name
    return held


def _move_no_clobber(source: Path, target: Path) -> None:
    """Rename without ever replacing an existing file (hard link, then unlink)."""
    try:
        os.link(source, target, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        # File systems without hard links: check, then rename.
        if os.path.lexists(target):
            raise FileExistsError(f"{target} already exists") from None
        os.rename(source, target)
        return
    os.unlink(source)


def _remove_plan(plan_file: Path) -> None:
    """Delete a plan file, then its folder and ``.xcsh`` when they are left empty."""
    plan_file.unlink(missing_ok=True)
    for folder in (plan_file.parent, plan_file.parent.parent):
        try:
            folder.rmdir()
        except OSError:  # not empty (another plan, the project's tools): keep it
            return


def factory(api: CustomToolAPI) -> CustomTool:
    """Build the ``batch_rename_preview`` tool for the workspace ``api.cwd``.

    xcsh calls this once when it loads the file; plans go under ``.xcsh/batch_rename/``
    of that workspace.
    """
    root = Path(os.path.realpath(api.cwd))
    plan_dir = root / PLAN_DIR

    def apply_moves(moves: list[Move], plan_file: Path, reason: str) -> AgentToolResult:
        if all(not os.path.lexists(m.source) and m.target.is_file() for m in moves):
            _remove_plan(plan_file)
            return AgentToolResult(
                content=[TextContent(f"Batch rename was already applied. Reason: {reason}")]
            )
        stale = [m.shown for m in moves if not m.source.is_file() or os.path.lexists(m.target)]
        if stale:
            raise ToolError(
                "The files changed since the preview; nothing was renamed:\n"
                + "\n".join(f"- {s}" for s in stale)
            )
        created: list[Path] = []
        done: list[Move] = []
        try:
            for move in moves:
                missing = [p for p in reversed(move.target.parents) if not p.exists()]
                for folder in missing:
                    folder.mkdir()
                    created.append(folder)
                _move_no_clobber(move.source, move.target)
                done.append(move)
        except OSError as exc:
            for move in reversed(done):
                _move_no_clobber(move.target, move.source)
            for folder in reversed(created):
                folder.rmdir()
            raise ToolError(
                f"Rename failed at {move.shown} ({exc.strerror or exc}); "
                "the renames already done were undone, nothing changed."
            ) from exc
        _remove_plan(plan_file)
        api.logger.info("renamed %d files", len(moves))
        lines = [f"Renamed {_plural(len(moves))}. Reason: {reason}"]
        lines += [f"  {m.shown}" for m in moves]
        return AgentToolResult(content=[TextContent("\n".join(lines))])

    def execute(tool_call_id: str, params: BatchRenameParams) -> AgentToolResult:
        moves = _plan(root, params.renames)
        held = _locked_paths(plan_dir) if plan_dir.is_dir() else {}
        busy = [m.shown for m in moves if str(m.source) in held or str(m.target) in held]
        if busy:
            raise ToolError(
                "These files are part of another pending rename; resolve it first:\n"
                + "\n".join(f"- {b}" for b in busy)
            )
        plan_dir.mkdir(parents=True, exist_ok=True)
        safe_id = "".join(c if c.isalnum() or c in "-_" else "_" for c in tool_call_id)
        plan_file = plan_dir / f"{safe_id or 'plan'}.json"
        payload = {
            "pid": os.getpid(),
            "moves": [{"from": str(m.source), "to": str(m.target)} for m in moves],
        }
        plan_file.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")

        def apply(reason: str) -> AgentToolResult:
            return apply_moves(moves, plan_file, reason)

        def reject(reason: str) -> AgentToolResult:
            _remove_plan(plan_file)
            text = f"Discarded batch rename of {_plural(len(moves))}; nothing was renamed. "
            return AgentToolResult(content=[TextContent(text + f"Reason: {reason}")])

        api.push_pending_action(
            CustomToolPendingAction(
                label=f"Batch rename: {_plural(len(moves))}",
                apply=apply,
                reject=reject,
                details={"renames": [m.shown for m in moves], "plan_file": str(plan_file)},
                source_tool_name="batch_rename_preview",
            )
        )
        preview = [f"Rename plan ({_plural(len(moves))}):"]
        preview += [f"  {m.shown}" for m in moves]
        preview.append("Nothing has been renamed yet. Call resolve to apply or discard.")
        return AgentToolResult(content=[TextContent("\n".join(preview))])

    return CustomTool(
        name="batch_rename_preview",
        label="Batch Rename Preview",
        description=(
            "Rename files inside the workspace. Shows the plan first; nothing is renamed "
            "until resolve applies it. Targets must not exist."
        ),
        parameters=BatchRenameParams,
        execute=execute,
    )
