"""The project's check for a workspace, from the user's settings and the trusted project's."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xcsh.app.settings import load_settings
from xcsh.checks import Checker, parse_check_settings
from xcsh.checks.settings import PROJECT_SETTINGS
from xcsh.plugins.trust import is_trusted
from xcsh.sandbox import parse_sandbox_settings


def open_checker(cwd: Path, home: Path, settings: Mapping[str, Any] | None = None) -> Checker:
    """A :class:`~xcsh.checks.Checker` for ``cwd`` under the bash sandbox's rules.

    The check keys come from ``home/settings.toml`` and, when the folder is
    trusted (``xcsh trust``), from ``cwd/.xcsh/settings.toml`` (its values win);
    the check may use the network per ``sandbox_network`` and write the
    ``sandbox_write`` paths besides its staged tree and temporary folder.

    Raises:
        UsageError: bad settings (the message names the file, the key and the fix).
    """
    values = load_settings(home) if settings is None else settings
    source = str(home / "settings.toml")
    folder = Path(cwd).resolve()
    trusted = (folder / PROJECT_SETTINGS).is_file() and is_trusted(folder, home)
    check = parse_check_settings(values, source=source, folder=folder, trusted=trusted)
    sandbox = parse_sandbox_settings(values, source=source)
    return Checker(
        check,
        workspace=folder,
        home=home,
        network=sandbox.network,
        writable=[str(p) for p in sandbox.write],
        confine=sandbox.mode != "off",
    )


__all__ = ["open_checker"]
