"""``xcsh preview -- COMMAND [ARGS...]``: what a command would change, before it does.

The command runs on a staged overlay of the current folder (the workspace is
not written): what it would create, change or delete is printed as a diff on
stdout (the command's own output goes to stderr), then, on a terminal, xcsh
asks whether to apply it; the apply goes through the undo journal (``xcsh
undo`` reverts it). Without a terminal and without ``--yes`` nothing is
applied. A command that fails is reported with its exit status and nothing
is applied unless ``--apply-on-failure``.

Exit codes: 0 applied, nothing to apply, or previewed only (no terminal, no
``--yes``); 1 declined, the command failed, or the apply refused (a file
changed since the preview); 2 bad usage.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
from pathlib import Path

from xcsh.cli.argparser import Parser


def build_parser() -> argparse.ArgumentParser:
    """The ``xcsh preview`` argument parser."""
    parser = Parser(
        prog="xcsh preview",
        description=(
            "Run COMMAND on a staged copy of this folder, show what it would create, change "
            "or delete, then apply that through the undo journal if you say so."
        ),
        epilog="exit codes: 0 applied or nothing to apply, 1 declined or not applied, 2 usage",
    )
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--json", action="store_true", help="print the preview as JSON")
    parser.add_argument(
        "--check", action="store_true", help="run the project's check on the staged change"
    )
    parser.add_argument(
        "--apply-on-failure",
        action="store_true",
        help="offer to apply even when the command exits with a failure",
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds (default 600)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    return parser


def main(argv: list[str]) -> int:
    """Run ``xcsh preview``; returns the exit code."""
    parser = build_parser()
    options = parser.parse_args(argv)
    words = list(options.command)
    if words[:1] == ["--"]:
        words = words[1:]
    if not words:
        parser.print_usage(sys.stderr)
        print(
            "xcsh preview: name the command after --: xcsh preview -- ruff format .",
            file=sys.stderr,
        )
        return 2
    return asyncio.run(_run(options, shlex.join(words)))


async def _run(options: argparse.Namespace, command: str) -> int:
    from xcsh.app.checks import open_checker
    from xcsh.app.settings import load_settings
    from xcsh.cli.settle import settle_or_report
    from xcsh.fs import xcsh_home
    from xcsh.journal import Journal
    from xcsh.pending import PendingActionStore
    from xcsh.sandbox import ProcessSupervisor
    from xcsh.tools.coding._bash_previewing import Previewer

    root = Path(os.path.realpath(Path.cwd()))
    home = xcsh_home()
    settings = load_settings(home)
    journal = Journal.for_root(home, root, retention=settings.retention)
    if not settle_or_report(journal, "xcsh preview"):
        return 1
    supervisor = ProcessSupervisor()
    checker = open_checker(root, home, settings)
    store = PendingActionStore()
    previewer = Previewer(
        root=root,
        home=home,
        store=store,
        journal=journal,
        checker=checker,
        supervisor=supervisor,
        network=settings.sandbox.network,
    )
    err = sys.stderr.buffer

    def echo(chunk: bytes) -> None:
        err.write(chunk)
        err.flush()

    try:
        found, action = await previewer.run(
            command,
            env=dict(os.environ),
            timeout=options.timeout,
            on_output=echo,
            check=options.check,
        )
    finally:
        supervisor.close()
        checker.close()
    code = found.outcome.exit_code
    failed = found.outcome.how != "exited" or code != 0
    if options.json:
        print(json.dumps(_as_json(command, found, action)))
    elif action is not None:
        sys.stdout.write(action.preview.diff)
        for change in action.preview.changes:
            print(f"{change.id} {change.file}: {change.summary}", file=sys.stderr)
        if action.preview.check is not None:
            print(action.preview.check.summary(), file=sys.stderr)
    sys.stdout.flush()
    status = "timed out" if found.outcome.how == "timeout" else f"exit status {code}"
    if failed and not options.apply_on_failure:
        print(
            f"xcsh preview: the command failed ({status}); nothing applied "
            "(--apply-on-failure applies what it changed anyway).",
            file=sys.stderr,
        )
        return 1
    if action is None:
        print(
            "xcsh preview: the command would change no file here; nothing to apply.",
            file=sys.stderr,
        )
        return 0
    if not options.yes:
        if not (sys.stdin.isatty() and sys.stderr.isatty()):
            print(
                "xcsh preview: not a terminal and no --yes: previewed only, nothing changed.",
                file=sys.stderr,
            )
            return 0
        answer = _ask(f"Apply these {len(action.preview.changes)} changes? [y/N] ")
        if answer not in ("y", "yes"):
            print("xcsh preview: declined; nothing applied.", file=sys.stderr)
            return 1
    from xcsh.pending import ApplyFailedError

    try:
        report = await action.effect.apply("applied with xcsh preview")
    except ApplyFailedError as exc:
        print(f"xcsh preview: {exc}", file=sys.stderr)
        return 1
    entry = (
        f" (undo journal entry #{report.journal_entry}; xcsh undo reverts it)"
        if report.journal_entry
        else ""
    )
    print(f"xcsh preview: applied {len(report.files)} files{entry}.", file=sys.stderr)
    return 0


def _ask(prompt: str) -> str:
    try:
        return input(prompt).strip().lower()
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        return ""


def _as_json(command: str, found: object, action: object) -> dict[str, object]:
    from xcsh.pending import PendingAction
    from xcsh.tools.coding.bash_preview import CommandPreview

    assert isinstance(found, CommandPreview)
    out: dict[str, object] = {
        "command": command,
        "exit_code": found.outcome.exit_code,
        "staging": found.staging,
        "ignored": found.ignored,
        "changes": [],
    }
    if isinstance(action, PendingAction):
        out["changes"] = [
            {"id": c.id, "file": c.file, "summary": c.summary, "diff": f.diff}
            for c, f in zip(action.preview.changes, action.preview.files, strict=True)
        ]
        if action.preview.check is not None:
            out["check"] = action.preview.check.contract()
    return out
