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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StringConstraints

from xcsh.checks.keys import CHECK_KEYS, PROJECT_KEYS, PROJECT_SETTINGS
from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.wording import did_you_mean
from xcsh.fs import read_settings_file

DEFAULT_TIMEOUT = 120.0
"""Seconds a check may run before it is ended with its process tree."""


def how_to_set(home: Path, workspace: Path) -> str:
    """What xcsh says once when a check is asked for and none is set, naming the two files.

    ``home`` is ``$XCSH_HOME`` (its ``settings.toml``), ``workspace`` the project (its
    ``.xcsh/settings.toml``, read once the folder is trusted).
    """
    return (
        f'No check is set: set check = "pytest -x -q" (your test command) in '
        f"{home / 'settings.toml'} or in the project's {workspace / '.xcsh' / 'settings.toml'} "
        "to run it on previews."
    )


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


def _splits_into_words(command: str) -> str:
    shlex.split(command)  # a ValueError refuses the command (worded by CheckKeys.refusal)
    return command


CommandLine = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1), AfterValidator(_splits_into_words)
]
"""A command line as ``sh -c`` runs it: not blank (kept without its outer blanks), and
it splits into words."""


class CheckKeys(SettingsKeys):
    """The check keys of a settings file's top level, typed.

    Which keys the file sets is ``model_fields_set`` (only those override the
    settings a project's file is read over).

    Attributes:
        check: the check's command line.
        check_timeout: seconds before it is ended (a finite number above 0).
        check_when: ``"asked"`` or ``"always"``.
        apply_requires_checks: an apply whose check newly fails asks first.
    """

    check: CommandLine = ""
    check_timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, allow_inf_nan=False)
    check_when: CheckWhen = "asked"
    apply_requires_checks: bool = False

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it may be and the value; the fix."""
        match key:
            case "check":
                return _command_refusal(value, source)
            case "check_timeout":
                return UsageError(
                    f"{source}: check_timeout must be a number of seconds above 0, not {value!r}",
                    hint="for example check_timeout = 300",
                )
            case "check_when":
                return UsageError(
                    f"{source}: check_when must be 'asked' or 'always', not {value!r}",
                    hint=(
                        'check_when = "always" checks every preview; "asked" only when a call asks'
                    ),
                )
            case "apply_requires_checks":
                return UsageError(
                    f"{source}: apply_requires_checks must be true or false, not {value!r}",
                    hint=(
                        "apply_requires_checks = true asks before applying a preview "
                        "whose check failed"
                    ),
                )
        return None


def _command_refusal(value: object, source: str) -> UsageError:
    if isinstance(value, str) and value.strip():
        try:
            shlex.split(value)
        except ValueError as exc:
            return UsageError(
                f"{source}: check {value!r} is not a valid command line: {exc}",
                hint="close the quote, or escape it",
            )
    return UsageError(
        f"{source}: check must be a command line, not {value!r}",
        hint='for example check = "pytest -x -q"',
    )


def read_check_settings(
    keys: CheckKeys, source: str, base: CheckSettings | None = None
) -> CheckSettings:
    """``base`` (default: the defaults) with the check keys a settings file sets.

    Args:
        keys: the check keys of the file's top level.
        source: the file's path, for messages.
        base: the settings the file's values override (the user's, for a project's file).

    """
    result = base or CheckSettings()
    given = keys.model_fields_set
    if "check" in given:
        result = replace(result, command=keys.check, source=source)
    if "check_timeout" in given:
        result = replace(result, timeout=float(keys.check_timeout))
    if "check_when" in given:
        result = replace(result, when=keys.check_when)
    if "apply_requires_checks" in given:
        result = replace(result, apply_requires_checks=keys.apply_requires_checks)
    return result


def read_project_settings(folder: Path) -> CheckKeys | None:
    """The top level of ``folder/.xcsh/settings.toml``, or ``None`` when there is none.

    Raises:
        UsageError: it cannot be read, is not valid TOML, sets a key other
            than :data:`PROJECT_KEYS` (the message names the file and the key),
            or holds a value of the wrong kind (:meth:`CheckKeys.refusal`).
    """
    path = folder / PROJECT_SETTINGS
    values = read_settings_file(path)
    if values is None:
        return None
    unknown = [key for key in values if key not in PROJECT_KEYS]
    if unknown:
        raise UsageError(
            f"{path}: a project's settings may set only {', '.join(PROJECT_KEYS)}; "
            f"not {', '.join(map(repr, unknown))}{did_you_mean(unknown[0], PROJECT_KEYS)}",
            hint="put other settings in $XCSH_HOME/settings.toml",
        )
    return CheckKeys.from_file(values, str(path))


def with_project(user: CheckSettings, folder: Path, *, trusted: bool) -> CheckSettings:
    """The user's check settings overridden by ``folder``'s own, once the folder is trusted.

    Args:
        user: the check settings of ``$XCSH_HOME/settings.toml``.
        folder: the workspace; its ``.xcsh/settings.toml`` is read when ``trusted``.
        trusted: the folder is trusted (``xcsh trust``); otherwise a project's
            file is left unread and :attr:`CheckSettings.notice` says so.

    Raises:
        UsageError: the project's file cannot be read, sets other keys, or
            holds a bad value; the message names the file, the key and the fix.
    """
    project_path = folder / PROJECT_SETTINGS
    if trusted:
        project = read_project_settings(folder)
        if project is None:
            return user
        return read_check_settings(project, str(project_path), user)
    if project_path.is_file():
        return replace(
            user,
            notice=(
                f"{project_path} is not used: the folder is not trusted "
                f"(run `xcsh trust {folder}` to let its check run)"
            ),
        )
    return user


__all__ = [
    "CHECK_KEYS",
    "DEFAULT_TIMEOUT",
    "PROJECT_SETTINGS",
    "CheckKeys",
    "CheckSettings",
    "CheckWhen",
    "how_to_set",
    "read_check_settings",
    "read_project_settings",
    "with_project",
]
