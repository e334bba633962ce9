"""Where the check settings are read from: their key names and a project's own file.

Standard library only, so a command can tell whether any check setting could
apply (:func:`may_set_a_check`) before it loads the settings' models.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

CHECK_KEYS = ("check", "check_timeout", "check_when", "apply_requires_checks")
"""The settings.toml keys the check settings read (the only ones a project's file may set)."""
PROJECT_SETTINGS = Path(".xcsh") / "settings.toml"
"""A project's own settings file, relative to its folder."""


def may_set_a_check(values: Mapping[str, object], folder: Path) -> bool:
    """Whether the check settings could apply to ``folder`` at all.

    Args:
        values: the top level of the user's settings file, as read (not checked).
        folder: the workspace.

    Returns:
        ``True`` when ``values`` sets a check key or ``folder`` has its own
        settings file (trusted or not: an untrusted one is named in a notice);
        ``False`` means every check setting has its default (no check, asked only).
    """
    return any(key in values for key in CHECK_KEYS) or (folder / PROJECT_SETTINGS).is_file()


__all__ = ["CHECK_KEYS", "PROJECT_SETTINGS", "may_set_a_check"]
