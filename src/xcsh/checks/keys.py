"""Whether a command that uses only the check settings must read the settings at all.

Standard library only, so a command can tell (:func:`settings_to_read`) before it
loads the settings' models.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

CHECK_KEYS = ("check", "check_timeout", "check_when", "apply_requires_checks")
"""The settings.toml keys the check settings read (the only ones a project's file may set)."""
PROJECT_KEYS = (*CHECK_KEYS, "mcp_servers")
"""The keys a project's own settings file may set: the check, and MCP servers to start
(both run the project's code, so both are read only once the folder is trusted)."""
PROJECT_SETTINGS = Path(".xcsh") / "settings.toml"
"""A project's own settings file, relative to its folder."""


def settings_to_read(values: Mapping[str, object], folder: Path) -> bool:
    """Whether the settings must be read and checked before a check could be ruled out.

    Args:
        values: the top level of the user's settings file, as read (not checked;
            empty when there is no file).
        folder: the workspace.

    Returns:
        ``True`` when the user's file sets anything (checked whole, as every
        command checks it: a misspelt ``check`` key is refused, never ignored) or
        ``folder`` has its own settings file (trusted or not: an untrusted one is
        named in a notice); ``False`` means every check setting has its default
        (no check unless asked).
    """
    return bool(values) or (folder / PROJECT_SETTINGS).is_file()


__all__ = ["CHECK_KEYS", "PROJECT_KEYS", "PROJECT_SETTINGS", "settings_to_read"]
