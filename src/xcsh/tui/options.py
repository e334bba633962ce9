"""What ``xcsh`` without ``-p`` was asked for on the command line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class InteractiveOptions:
    """What ``xcsh`` (no ``-p``) was asked for.

    Args:
        cwd: the workspace folder.
        provider, model, base_url: flags (``None`` = settings decide).
        continue_latest: ``--continue``.
        session_id: ``--session ID``.
        approve_ask: ``--approve ask``: confirm each model apply.
        trust_project: ``--trust-project``.
        instructions: read ``AGENTS.md`` files (off with ``--no-instructions``).
        home: ``$XCSH_HOME`` (default: from the environment).
    """

    cwd: Path
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    continue_latest: bool = False
    session_id: str | None = None
    approve_ask: bool = False
    trust_project: bool = False
    instructions: bool = True
    home: Path | None = None
