"""The interactive terminal: ``xcsh`` with no task (contract §6, §3).

A prompt_toolkit prompt (Enter sends, Alt+Enter adds a line, history in
``$XCSH_HOME/prompt-history``, slash-command completion) over a rich
rendering of the agent's events, with a status line showing the model, the
token and cost counts and the pending stack. ``/apply`` and ``/discard``
resolve the top preview through the session's ``resolve`` tool; ``/undo``
restores the files of the last apply from the undo journal
(:mod:`xcsh.journal`).

This module imports nothing heavy: :func:`main` is what ``xcsh`` calls.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main(args: argparse.Namespace) -> int:
    """Run the interactive session for parsed ``xcsh`` arguments; returns the exit code.

    Args:
        args: the ``argparse`` namespace of :mod:`xcsh.cli.agent_cmd` (``provider``,
            ``model``, ``base_url``, ``continue_latest``, ``session``, ``approve``,
            ``trust_project``, ``instructions``).
    """
    from xcsh.tui.app import run
    from xcsh.tui.options import InteractiveOptions

    return run(
        InteractiveOptions(
            cwd=Path.cwd(),
            provider=args.provider,
            model=args.model,
            base_url=args.base_url,
            continue_latest=args.continue_latest,
            session_id=args.session,
            approve_ask=args.approve == "ask",
            trust_project=args.trust_project,
            instructions=args.instructions,
        )
    )


__all__ = ["main"]
