"""``xcsh ast-edit``: structural rewrite from the command line, previewed first.

The command runs the same ``ast_edit`` tool the agent uses, so a rewrite is
a pending action on a :class:`~xcsh.pending.PendingActionStore`, and the
``resolve`` tool applies or discards it with a reason:

1. preview: the coloured diff (:func:`xcsh.ui.render_preview`) on stdout,
   notes (nested matches, skipped files) on stderr; nothing on disk changes;
2. decide:

   - ``--yes``: apply, reason ``applied with --yes``;
   - ``--dry-run``: stop after the preview;
   - on a terminal (stdin and stdout): ask ``apply`` or ``discard`` and a reason;
   - otherwise: stop after the preview and say on stderr that nothing changed;

3. the outcome, drawn by :func:`xcsh.ui.render_resolution`. Every apply is
   recorded in the undo journal (``$XCSH_HOME/journal/ast-edit``), so
   ``xcsh undo`` can put the files back.

``--json`` prints one JSON object per replacement instead of the diff, with
the fields of ``ast-grep run -r ... --json=stream`` (``replacement`` and
``replacementOffsets`` included); it never asks (use ``--yes`` to apply).
The pending action's details carry diffs, not match objects, so these
objects come from a second, read-only :func:`~xcsh.structural.preview_edit`
with the same arguments; what ``--yes`` applies is still the tool's preview.

Exit codes: 0 done (applied, discarded or previewed), 1 no replacement,
2 bad input, 3 applying failed (nothing written; see the message).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from xcsh.cli.common import (
    EXIT_APPLY_FAILED,
    EXIT_BAD_INPUT,
    EXIT_NO_MATCH,
    EXIT_OK,
    add_scope_arguments,
    check_limit,
    error,
    is_interactive,
    stderr_is_terminal,
)
from xcsh.core import AgentToolResult, ToolError, UsageError
from xcsh.fs import xcsh_home
from xcsh.journal import Journal, command_journal_dir, record_applies
from xcsh.pending import PendingAction, PendingActionStore, create_resolve_tool
from xcsh.structural import EditOp, create_ast_edit_tool, preview_edit
from xcsh.ui import TerminalStyle, detect_style, make_console, render_preview, render_resolution

YES_REASON = "applied with --yes"
"""The reason ``resolve`` records when ``--yes`` applies without asking."""
NOT_A_TERMINAL_NOTE = (
    "not a terminal and no --yes: previewed only, nothing changed. "
    "Re-run with --yes to apply, or run it in a terminal to be asked."
)
DRY_RUN_NOTE = "dry run: previewed only, nothing changed."

_ANSWERS = {
    "a": "apply",
    "apply": "apply",
    "y": "apply",
    "yes": "apply",
    "d": "discard",
    "discard": "discard",
    "n": "discard",
    "no": "discard",
}


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh ast-edit`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="xcsh ast-edit",
        description=(
            "Structural rewrite with ast-grep patterns: preview the diff, then apply or "
            "discard it with a reason."
        ),
        epilog=(
            "exit codes: 0 done (applied, discarded or previewed), 1 no replacement, "
            "2 bad input, 3 applying failed (nothing written)"
        ),
    )
    parser.add_argument("-p", "--pattern", required=True, help="the ast-grep pattern to match")
    parser.add_argument(
        "-r",
        "--rewrite",
        required=True,
        help="the replacement; may use the pattern's metavariables; empty deletes the match",
    )
    add_scope_arguments(parser)
    decide = parser.add_mutually_exclusive_group()
    decide.add_argument("--yes", "-y", action="store_true", help="apply without asking")
    decide.add_argument(
        "--dry-run", action="store_true", help="only preview; change nothing and do not ask"
    )
    return parser


@dataclass(frozen=True)
class Decision:
    """What to do with the previewed edit: ``action`` is ``apply`` or ``discard``."""

    action: str
    reason: str


def ask(read: Any = input, write: Any = None) -> Decision:
    """Ask on the terminal whether to apply or discard, then why.

    Args:
        read: ``read(prompt) -> str``, :func:`input` by default.
        write: ``write(text)`` for messages; stderr by default.

    Returns:
        The decision; an empty reason becomes ``applied at the prompt`` or
        ``discarded at the prompt``.

    Raises:
        EOFError: input closed before an answer (the caller discards).
        KeyboardInterrupt: Ctrl-C (the caller discards).
    """
    say = write if write is not None else (lambda text: print(text, file=sys.stderr))
    while True:
        answer = read("Apply this edit? [a]pply / [d]iscard: ").strip().lower()
        action = _ANSWERS.get(answer)
        if action is not None:
            break
        say("Please answer 'a' to apply or 'd' to discard.")
    reason = read("Reason (optional): ").strip()
    if not reason:
        reason = "applied at the prompt" if action == "apply" else "discarded at the prompt"
    return Decision(action, reason)


def main(argv: list[str]) -> int:
    """Run ``xcsh ast-edit``; returns the exit code (see the module docstring)."""
    args = build_parser().parse_args(argv)
    try:
        check_limit(args.limit)
        return asyncio.run(_edit(args))
    except (ToolError, UsageError) as exc:
        error(str(exc))
        return EXIT_BAD_INPUT


def _tool_params(args: argparse.Namespace, path: str) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ops": [{"pat": args.pattern, "out": args.rewrite}],
        "path": path,
        "strictness": args.strictness,
    }
    if args.lang:
        params["lang"] = args.lang
    if args.selector:
        params["sel"] = args.selector
    if args.globs:
        params["glob"] = list(args.globs)
    if args.limit is not None:
        params["limit"] = args.limit
    return params


def _notes(result: AgentToolResult) -> list[str]:
    """The tool text's closing notes (nested matches, limit, skipped files)."""
    lines = result.text.split("\n")
    start = next((i + 1 for i, line in enumerate(lines) if line.startswith("Total: ")), None)
    if start is None:  # no replacement: the text is "No replacements made" plus notes
        return [line for line in lines if line]
    return [line for line in lines[start:] if line and not line.startswith("This is a preview")]


async def _preview(
    args: argparse.Namespace, store: PendingActionStore, console: Console | None
) -> list[PendingAction]:
    tool = create_ast_edit_tool(os.getcwd(), store)
    actions: list[PendingAction] = []
    remaining = args.limit
    for number, path in enumerate(args.paths or [os.curdir], 1):
        params = _tool_params(args, path)
        if remaining is not None:
            params["limit"] = remaining
        before = store.count
        result = await _with_spinner(tool.execute(f"ast-edit-{number}", params))
        for note in _notes(result):
            error(note)
        top = store.peek()
        if top is None or store.count == before:
            continue
        actions.append(top)
        if console is not None:
            details = top.details if isinstance(top.details, dict) else {}
            console.print(render_preview(top.label, str(details.get("diff", "")), style=_style()))
        if remaining is not None:
            remaining -= int(top.details.get("total", 0)) if isinstance(top.details, dict) else 0
            if remaining <= 0:
                break
    return actions


async def _with_spinner(job: Any) -> AgentToolResult:
    if not stderr_is_terminal():
        result: AgentToolResult = await job
        return result
    status_console = Console(file=sys.stderr, no_color=not detect_style(sys.stderr).color)
    with status_console.status("previewing the rewrite...", spinner="dots"):
        result = await job
    return result


def _style() -> TerminalStyle:
    return detect_style(sys.stdout)


def _print_json(args: argparse.Namespace) -> None:
    """One ``ast-grep run -r --json=stream`` object per replacement of the preview."""
    remaining = args.limit
    for path in args.paths or [os.curdir]:
        preview = preview_edit(
            [EditOp(pat=args.pattern, out=args.rewrite)],
            root=os.getcwd(),
            path=path,
            glob=tuple(args.globs),
            lang=args.lang,
            selector=args.selector,
            strictness=args.strictness,
            limit=remaining,
            captures=True,
        )
        for edit in preview.files:
            for rep in edit.replacements:
                obj = rep.match.to_cli_json(replacement=rep)
                sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        if remaining is not None:
            remaining -= preview.total
            if remaining <= 0:
                break
    sys.stdout.flush()


async def _edit(args: argparse.Namespace) -> int:
    store = PendingActionStore()
    # every apply is recorded in the undo journal, so `xcsh undo` can put the files back
    record_applies(store, Journal(command_journal_dir(xcsh_home())), Path.cwd())
    console = None if args.json else make_console(sys.stdout, _style())
    actions = await _preview(args, store, console)
    if not actions:
        return EXIT_NO_MATCH
    if args.json:
        _print_json(args)
    if args.dry_run:
        error(DRY_RUN_NOTE)
        return EXIT_OK
    if args.yes:
        decision = Decision("apply", YES_REASON)
    elif not args.json and is_interactive():
        try:
            decision = ask()
        except (EOFError, KeyboardInterrupt):
            print(file=sys.stderr)
            decision = Decision("discard", "no answer at the prompt")
    else:
        error(NOT_A_TERMINAL_NOTE)
        return EXIT_OK
    return await _resolve_all(store, decision, console)


async def _resolve_all(
    store: PendingActionStore, decision: Decision, console: Console | None
) -> int:
    """Resolve every pending action (LIFO) with the same decision and reason."""
    resolve = create_resolve_tool(store)
    out = console if console is not None else make_console(sys.stderr)
    style = _style() if console is not None else detect_style(sys.stderr)
    code = EXIT_OK
    number = 0
    while store.has_pending:
        number += 1
        result = await resolve.execute(
            f"resolve-{number}", {"action": decision.action, "reason": decision.reason}
        )
        out.print(
            render_resolution(
                result.details, is_error=result.is_error, message=result.text, style=style
            )
        )
        if result.is_error:
            # apply failed and the action went back on the stack: nothing of it was written.
            store.pop()
            code = EXIT_APPLY_FAILED
        elif decision.action == "apply":
            out.print(result.text)
            out.print("Undo it with: xcsh undo")
    return code
