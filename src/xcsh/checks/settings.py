"""The check settings: what runs, for how long, when, and whether it gates apply.

In ``$XCSH_HOME/settings.toml``, and per project in ``<folder>/.xcsh/settings.toml``
(read only once the folder is trusted, since the check runs the project's code)::

    check = "pytest -x -q"        # the command line, run with sh -c in the workspace
    check_timeout = 120           # seconds (default 120)
    check_when = "always"         # "asked" (default: per call) or "always"
    apply_requires_checks = true  # refuse applying a preview that newly fails or timed
                                  # out unless the person confirms (default false)

A project's file may set only these keys; its values win over the user's.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from xcsh.core import UsageError

CHECK_KEYS = ("check", "check_timeout", "check_when", "apply_requires_checks")
"""The settings.toml keys this module reads (the only ones a project's file may set)."""
DEFAULT_TIMEOUT = 120.0
"""Seconds a check may run before it is ended with its process tree."""
PROJECT_SETTINGS = Path(".xcsh") / "settings.toml"
"""A project's own settings file, relative to its folder."""
HOW_TO_SET = (
    'No check is set: set check = "pytest -x -q" (your test command) in settings.toml '
    "or in the project's .xcsh/settings.toml to run it on previews."
)
"""What xcsh says once when a check is asked for and none is set."""

CheckWhen = Literal["asked", "always"]


@dataclass(frozen=True, kw_only=True)
class CheckSettings:
    """The user's (and the trusted project's) choices for checking previews.

    Args:
        command: the check's command line (``""``: none set).
        timeout: seconds before it is ended.
        when: ``"asked"`` runs it when a call asks (``check: true``,
            ``--check``); ``"always"`` on every preview that declares its files.
        apply_requires_checks: an apply of a preview whose check newly fails or
            timed out is refused unless the person confirms.
        source: where ``command`` was set (a file path, for messages).
        notice: one line for the user about the settings (a project's file
            left unread because the folder is not trusted); ``""`` otherwise.
    """

    command: str = ""
    timeout: float = DEFAULT_TIMEOUT
    when: CheckWhen = "asked"
    apply_requires_checks: bool = False
    source: str = ""
    notice: str = ""

    @property
    def configured(self) -> bool:
        """True when a check command is set."""
        return bool(self.command)

    def wanted(self, asked: bool) -> bool:
        """True when a preview should be checked (``asked``: the call asked for it)."""
        return asked or self.when == "always"


def _check_values(values: Mapping[str, Any], source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "check" in values:
        command = values["check"]
        if not isinstance(command, str) or not command.strip():
            raise UsageError(
                f"{source}: check must be a command line, not {command!r}",
                hint='for example check = "pytest -x -q"',
            )
        try:
            shlex.split(command)
        except ValueError as exc:
            raise UsageError(
                f"{source}: check {command!r} is not a valid command line: {exc}",
                hint="close the quote, or escape it",
            ) from exc
        out["command"] = command.strip()
        out["source"] = source
    if "check_timeout" in values:
        timeout = values["check_timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
            raise UsageError(
                f"{source}: check_timeout must be a number of seconds above 0, not {timeout!r}",
                hint="for example check_timeout = 300",
            )
        out["timeout"] = float(timeout)
    if "check_when" in values:
        when = values["check_when"]
        if when not in ("asked", "always"):
            raise UsageError(
                f"{source}: check_when must be 'asked' or 'always', not {when!r}",
                hint='check_when = "always" checks every preview; "asked" only when a call asks',
            )
        out["when"] = when
    if "apply_requires_checks" in values:
        gate = values["apply_requires_checks"]
        if not isinstance(gate, bool):
            raise UsageError(f"{source}: apply_requires_checks must be true or false, not {gate!r}")
        out["apply_requires_checks"] = gate
    return out


def read_project_settings(folder: Path) -> dict[str, Any] | None:
    """The top level of ``folder/.xcsh/settings.toml``, or ``None`` when there is none.

    Raises:
        UsageError: it cannot be read, is not valid TOML, or sets a key other
            than :data:`CHECK_KEYS` (the message names the file and the key).
    """
    path = folder / PROJECT_SETTINGS
    try:
        with path.open("rb") as fh:
            values = tomllib.load(fh)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"{path} is not valid TOML: {exc}", hint="fix the file or move it aside"
        ) from exc
    unknown = [key for key in values if key not in CHECK_KEYS]
    if unknown:
        raise UsageError(
            f"{path}: a project's settings may set only {', '.join(CHECK_KEYS)}; "
            f"not {', '.join(map(repr, unknown))}",
            hint="put other settings in $XCSH_HOME/settings.toml",
        )
    return values


def parse_check_settings(
    user: Mapping[str, Any],
    *,
    source: str,
    folder: Path | None = None,
    trusted: bool = False,
) -> CheckSettings:
    """Read and check the check keys of the user's settings and the project's.

    Args:
        user: the parsed top level of ``$XCSH_HOME/settings.toml``.
        source: that file's path, for messages.
        folder: the workspace; its ``.xcsh/settings.toml`` is read when ``trusted``.
        trusted: the folder is trusted (``xcsh trust``); otherwise a project's
            file is left unread and :attr:`CheckSettings.notice` says so.

    Raises:
        UsageError: a value of the wrong kind, a command line that does not
            split, or a project file that sets other keys; the message names
            the file, the key and the fix.
    """
    values = _check_values(user, source)
    notice = ""
    if folder is not None:
        project_path = folder / PROJECT_SETTINGS
        if trusted:
            project = read_project_settings(folder)
            if project is not None:
                values.update(_check_values(project, str(project_path)))
        elif project_path.is_file():
            notice = (
                f"{project_path} is not used: the folder is not trusted "
                f"(run `xcsh trust {folder}` to let its check run)"
            )
    return CheckSettings(**values, notice=notice)


__all__ = [
    "CHECK_KEYS",
    "DEFAULT_TIMEOUT",
    "HOW_TO_SET",
    "PROJECT_SETTINGS",
    "CheckSettings",
    "CheckWhen",
    "parse_check_settings",
    "read_project_settings",
]
