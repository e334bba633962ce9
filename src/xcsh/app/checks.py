"""The project's check for a workspace, from the user's settings and the trusted project's."""

from __future__ import annotations

from pathlib import Path

from xcsh.app.settings import Settings, load_settings
from xcsh.checks import Checker, with_project
from xcsh.checks.settings import PROJECT_SETTINGS
from xcsh.plugins.trust import is_trusted


def open_checker(cwd: Path, home: Path, settings: Settings | None = None) -> Checker:
    """A :class:`~xcsh.checks.Checker` for ``cwd`` under the bash sandbox's rules.

    The check keys come from ``home/settings.toml`` (``settings``, read from
    ``home`` when not given) and, when the folder is trusted (``xcsh trust``),
    from ``cwd/.xcsh/settings.toml`` (its values win); the check may use the
    network per ``sandbox_network`` and write the ``sandbox_write`` paths
    besides its staged tree and temporary folder.

    Raises:
        UsageError: bad settings (the message names the file, the key and the fix).
    """
    values = load_settings(home) if settings is None else settings
    folder = Path(cwd).resolve()
    trusted = (folder / PROJECT_SETTINGS).is_file() and is_trusted(folder, home)
    check = with_project(values.checks, folder, trusted=trusted)
    sandbox = values.sandbox
    return Checker(
        check,
        workspace=folder,
        home=home,
        network=sandbox.network,
        writable=[str(p) for p in sandbox.write],
        confine=sandbox.mode != "off",
    )


__all__ = ["open_checker"]
