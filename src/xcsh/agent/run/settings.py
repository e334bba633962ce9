"""The settings.toml keys that shape a session's runs.

They are forced turns, steering, context window and prompt profile: given as
:class:`RunKeys`, checked into :class:`RunSettings` by :func:`read_run_settings`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from xcsh.agent.run.profile import PROFILE_SETTINGS, ProfileSetting
from xcsh.agent.run.steering import DEFAULT_MAX_FORCED_TURNS, SteeringStyle
from xcsh.core import UsageError

_Choice = TypeVar("_Choice", bound=str)

STEERING_STYLES: tuple[SteeringStyle, ...] = ("forced", "soft")
"""The values of the ``steering`` setting."""


def _one_of(value: object, options: tuple[_Choice, ...]) -> _Choice | None:
    """The option ``value`` is, or ``None`` (a TOML value may be any kind)."""
    return next((option for option in options if option == value), None)


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """The user's choices for a session's runs.

    Args:
        max_forced_turns: consecutive forced turns without progress before a run stops.
        steering: ``"forced"`` or ``"soft"`` (remind first, force only when ignored).
        context_window: the model's window in tokens; ``None`` for the known or
            reported one.
        profile: ``"auto"``, ``"full"`` or ``"compact"`` (:mod:`xcsh.agent.run.profile`).
    """

    max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS
    steering: SteeringStyle = "forced"
    context_window: int | None = None
    profile: ProfileSetting = "auto"


class RunKeys(BaseModel):
    """The run keys of a settings file's top level, each as the file gives it.

    A value may be any TOML value (:func:`read_run_settings` checks it); a key
    the file does not set holds its default. Other keys of the file are left out.
    """

    model_config = ConfigDict(frozen=True)

    max_forced_turns: object = DEFAULT_MAX_FORCED_TURNS
    steering: object = "forced"
    context_window: object = None
    profile: object = "auto"


def read_run_settings(keys: RunKeys, path: Path) -> RunSettings:
    """The run settings ``keys`` give, checked (``path`` names the file in messages).

    Raises:
        UsageError: a value of the wrong kind; the message names the key, the
            file and what it may be.
    """
    max_forced = keys.max_forced_turns
    if not isinstance(max_forced, int) or isinstance(max_forced, bool) or max_forced < 1:
        raise UsageError(
            f"max_forced_turns in {path} must be a whole number of at least 1, not {max_forced!r}",
            hint="write for instance max_forced_turns = 5",
        )
    given = keys.steering
    steering = _one_of(given, STEERING_STYLES)
    if steering is None:
        raise UsageError(
            f'steering in {path} must be "forced" or "soft", not {given!r}',
            hint='write for instance steering = "soft"',
        )
    window = keys.context_window
    if window is not None and (
        not isinstance(window, int) or isinstance(window, bool) or window < 1000
    ):
        raise UsageError(
            f"context_window in {path} must be a whole number of tokens, "
            f"at least 1000, not {window!r}",
            hint="write for instance context_window = 128000",
        )
    asked = keys.profile
    profile = _one_of(asked, PROFILE_SETTINGS)
    if profile is None:
        raise UsageError(
            f"profile in {path} must be one of "
            f"{', '.join(repr(p) for p in PROFILE_SETTINGS)}, not {asked!r}",
            hint='write for instance profile = "auto"',
        )
    return RunSettings(
        max_forced_turns=max_forced, steering=steering, context_window=window, profile=profile
    )


__all__ = ["STEERING_STYLES", "RunKeys", "RunSettings", "read_run_settings"]
