"""The settings.toml keys that shape a session's runs: forced turns, steering,
context window and prompt profile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from xcsh.agent.profile import PROFILE_SETTINGS, ProfileSetting
from xcsh.agent.steering import DEFAULT_MAX_FORCED_TURNS, SteeringStyle
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
        profile: ``"auto"``, ``"full"`` or ``"compact"`` (:mod:`xcsh.agent.profile`).
    """

    max_forced_turns: int = DEFAULT_MAX_FORCED_TURNS
    steering: SteeringStyle = "forced"
    context_window: int | None = None
    profile: ProfileSetting = "auto"


def read_run_settings(values: Mapping[str, object], path: Path) -> RunSettings:
    """The run keys of a settings file's top level (``path`` names it in messages).

    Raises:
        UsageError: a value of the wrong kind; the message names the key, the
            file and what it may be.
    """
    max_forced = values.get("max_forced_turns", DEFAULT_MAX_FORCED_TURNS)
    if not isinstance(max_forced, int) or isinstance(max_forced, bool) or max_forced < 1:
        raise UsageError(
            f"max_forced_turns in {path} must be a whole number of at least 1, not {max_forced!r}"
        )
    given = values.get("steering", "forced")
    steering = _one_of(given, STEERING_STYLES)
    if steering is None:
        raise UsageError(f'steering in {path} must be "forced" or "soft", not {given!r}')
    window = values.get("context_window")
    if window is not None and (
        not isinstance(window, int) or isinstance(window, bool) or window < 1000
    ):
        raise UsageError(
            f"context_window in {path} must be a whole number of tokens, "
            f"at least 1000, not {window!r}"
        )
    asked = values.get("profile", "auto")
    profile = _one_of(asked, PROFILE_SETTINGS)
    if profile is None:
        raise UsageError(
            f"profile in {path} must be one of "
            f"{', '.join(repr(p) for p in PROFILE_SETTINGS)}, not {asked!r}"
        )
    return RunSettings(
        max_forced_turns=max_forced, steering=steering, context_window=window, profile=profile
    )


__all__ = ["STEERING_STYLES", "RunSettings", "read_run_settings"]
