"""``--check`` of ``xcsh ast-edit`` and ``xcsh scan --fix``: the project's check on the preview.

The check (the ``check`` setting) runs on a staged copy of the workspace with
the preview applied, before the question; its verdict is drawn under the
diff. With ``apply_requires_checks = true`` a ``--yes`` apply of a preview
whose check newly fails or timed out is refused (exit 4); at the terminal's
question the person decides with the verdict in view.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.checks import settings_to_read
from xcsh.cli.options import EditOptions
from xcsh.cli.progress import stderr_is_terminal
from xcsh.structural import EditPreview
from xcsh.ui import detect_style

if TYPE_CHECKING:
    from xcsh.app import SettingsReading
    from xcsh.pending import CheckVerdict

EXIT_CHECK_REFUSED = 4
"""``--yes`` did not apply: the check newly fails (or timed out) and
``apply_requires_checks = true``."""


@dataclass(frozen=True, kw_only=True)
class CheckedPreview:
    """What ``--check`` (or ``check_when = "always"``) found for a preview.

    Args:
        verdict: the check's verdict (``None``: not checked).
        note: a line for stderr instead (no check set, a project file not used).
        requires: ``apply_requires_checks`` is on.
    """

    verdict: CheckVerdict | None = None
    note: str = ""
    requires: bool = False

    def refusal(self) -> str:
        """Why ``--yes`` must not apply (``""``: nothing against it)."""
        if not self.requires or self.verdict is None or not self.verdict.blocks_apply:
            return ""
        return (
            f"not applied: the check {self.verdict.words} on this preview and "
            "apply_requires_checks = true; run without --yes to be asked, or fix the rewrite."
        )


def check_preview(
    options: EditOptions, root: Path, preview: EditPreview, reading: SettingsReading
) -> CheckedPreview:
    """Run the check on ``preview`` staged over ``root`` when it is wanted.

    The check's settings are the user's (``reading``, ``$XCSH_HOME/settings.toml``
    as read), then the trusted project's. When no check is asked for and there is
    neither file (nor anything in the user's), nothing more is loaded.

    Raises:
        UsageError: the settings file cannot be used, or bad check settings.
        KeyboardInterrupt: Ctrl-C during the check (it was ended with its
            process tree and the staged tree removed).
    """
    if not options.check and reading.problem is None and not settings_to_read(reading.values, root):
        return CheckedPreview()
    import asyncio

    from xcsh.app import open_checker
    from xcsh.structural.tools.edit_action import staged_files

    checker = open_checker(root, reading.home, reading.settings())
    settings = checker.settings
    notes = [settings.notice] if settings.notice else []
    files = staged_files(preview)
    if not files or not settings.wanted(options.check):
        return CheckedPreview(note="\n".join(notes), requires=settings.apply_requires_checks)
    try:
        if not stderr_is_terminal():
            verdict, note = asyncio.run(checker.review(files, asked=options.check))
        else:
            from rich.console import Console

            console = Console(file=sys.stderr, no_color=not detect_style(sys.stderr).color)
            with console.status(f"running the check: {settings.command}", spinner="dots"):
                verdict, note = asyncio.run(checker.review(files, asked=options.check))
    finally:
        checker.close()
    if note:
        notes.append(note)
    return CheckedPreview(
        verdict=verdict, note="\n".join(notes), requires=settings.apply_requires_checks
    )


__all__ = ["EXIT_CHECK_REFUSED", "CheckedPreview", "check_preview"]
