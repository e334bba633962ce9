"""The settings.toml keys that shape a session's runs: :class:`RunSettings`.

They are forced turns, steering, context window and prompt profile, read
typed from the file's top level by :meth:`RunSettings.from_file`.
"""

from __future__ import annotations

from pydantic import Field

from xcsh.agent.run.profile import PROFILE_SETTINGS, ProfileSetting
from xcsh.agent.run.steering import DEFAULT_MAX_FORCED_TURNS, SteeringStyle
from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys

STEERING_STYLES: tuple[SteeringStyle, ...] = ("forced", "soft")
"""The values of the ``steering`` setting."""


class RunSettings(SettingsKeys):
    """The user's choices for a session's runs (the run keys of settings.toml).

    Attributes:
        max_forced_turns: consecutive forced turns without progress before a run stops.
        steering: ``"forced"`` or ``"soft"`` (remind first, force only when ignored).
        context_window: the model's window in tokens, at least 1000; ``None``
            for the known or reported one.
        profile: ``"auto"``, ``"full"`` or ``"compact"`` (:mod:`xcsh.agent.run.profile`).
    """

    max_forced_turns: int = Field(default=DEFAULT_MAX_FORCED_TURNS, ge=1)
    steering: SteeringStyle = "forced"
    context_window: int | None = Field(default=None, ge=1000)
    profile: ProfileSetting = "auto"

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it may be and the value; a line to write."""
        match key:
            case "max_forced_turns":
                return UsageError(
                    f"max_forced_turns in {source} must be a whole number of at least 1, "
                    f"not {value!r}",
                    hint="write for instance max_forced_turns = 5",
                )
            case "steering":
                return UsageError(
                    f'steering in {source} must be "forced" or "soft", not {value!r}',
                    hint='write for instance steering = "soft"',
                )
            case "context_window":
                return UsageError(
                    f"context_window in {source} must be a whole number of tokens, "
                    f"at least 1000, not {value!r}",
                    hint="write for instance context_window = 128000",
                )
            case "profile":
                return UsageError(
                    f"profile in {source} must be one of "
                    f"{', '.join(repr(p) for p in PROFILE_SETTINGS)}, not {value!r}",
                    hint='write for instance profile = "auto"',
                )
        return None


__all__ = ["STEERING_STYLES", "RunSettings"]
