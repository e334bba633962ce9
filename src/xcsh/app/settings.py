"""Settings: ``$XCSH_HOME/settings.toml`` read once into :class:`Settings`.

Also the provider built from them.

Each part of xcsh receives its own typed section: the provider keys, the
run keys, the ``[approval]`` policy, the sandbox, the journal's retention
and the check. Flags come first, then the environment, then the file (see
:mod:`xcsh.providers.config` for the provider keys).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from xcsh.agent import (
    ApprovalKeys,
    RunKeys,
    RunSettings,
    ToolPolicy,
    parse_tool_policy,
    read_run_settings,
    sessions_dir,
)
from xcsh.checks import CHECK_KEYS, CheckKeys, CheckSettings, read_check_settings
from xcsh.core import UsageError
from xcsh.core.wording import did_you_mean
from xcsh.fs import xcsh_home
from xcsh.journal import Retention
from xcsh.journal.commands import BashRecording
from xcsh.providers import Provider, ProviderFlags, StoredProviderSettings
from xcsh.providers.config import (
    SETTING_KEYS,
    SETTINGS_FILE,
    create_provider,
    resolve_provider_settings,
)
from xcsh.sandbox import SETTING_KEYS as SANDBOX_KEYS
from xcsh.sandbox import SandboxKeys, SandboxSettings, parse_sandbox_settings
from xcsh.structural.scan.warm_cache import DEFAULT_INDEX_MEMORY, parse_index_memory


class _AppKeys(BaseModel):
    """The keys of a settings file's top level :class:`Settings` reads itself.

    Each as the file gives it (any TOML value, checked by :meth:`Settings.from_values`).
    """

    model_config = ConfigDict(frozen=True)

    strict_rules: object = False
    index_memory: object = DEFAULT_INDEX_MEMORY


KNOWN_SETTINGS = (
    *SETTING_KEYS,
    *RunKeys.model_fields,
    "journal_max_entries",
    "journal_max_bytes",
    "bash_record_max_bytes",
    *SANDBOX_KEYS,
    *CHECK_KEYS,
    *ApprovalKeys.model_fields,
    *_AppKeys.model_fields,
)
"""The keys ``settings.toml`` may set; any other key is refused (a typo such as
``modle`` would otherwise silently fall back to another model)."""


def check_home(home: Path) -> None:
    """Refuse an ``$XCSH_HOME`` whose layout xcsh cannot use (contract §5a).

    Missing folders are fine (they are created when first written).

    Raises:
        UsageError: ``home`` or ``home/sessions`` exists but is not a folder,
            or ``home/settings.toml`` exists but is not a file; the message
            names the path and the hint says how to fix it.
    """
    existing = next((p for p in (home, *home.parents) if p.exists()), home)
    if existing.exists() and not existing.is_dir():
        raise UsageError(
            f"XCSH_HOME {home} is not a folder",
            hint="point XCSH_HOME at a folder (it is created when missing), or move the file aside",
        )
    settings = home / "settings.toml"
    if settings.exists() and not settings.is_file():
        raise UsageError(
            f"{settings} is not a file",
            hint="settings.toml must be a TOML file; move the folder aside",
        )
    sessions = sessions_dir(home)
    if sessions.exists() and not sessions.is_dir():
        raise UsageError(
            f"{sessions} is not a folder; xcsh saves sessions there",
            hint="move the file aside (xcsh creates the folder)",
        )


class Settings(BaseModel):
    """``$XCSH_HOME/settings.toml``, read once; each part of xcsh takes its section.

    A setting added to xcsh is a field here, its key in :data:`KNOWN_SETTINGS`
    and its reading in :meth:`from_values`.

    Attributes:
        path: the file (named in messages; it need not exist).
        provider: the provider keys (:func:`build_provider`).
        run: forced turns, steering, context window and profile.
        approval: the ``[approval]`` policy for tool calls.
        sandbox: how ``bash`` and the check are confined.
        retention: how much history the undo journal keeps.
        bash_recording: how ``bash`` commands are recorded in it (the size cap).
        checks: the user's check (a trusted project's own overrides it:
            :func:`xcsh.checks.with_project`).
        strict_rules: ``xcsh scan`` refuses rule files ast-grep would half-read.
        index_memory: bytes the warm structural index keeps (syntax trees and answers).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    path: Path
    provider: StoredProviderSettings = Field(default_factory=StoredProviderSettings)
    run: RunSettings = Field(default_factory=RunSettings)
    approval: ToolPolicy = Field(default_factory=lambda: ToolPolicy(tools={}))
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    retention: Retention = Field(default_factory=Retention)
    bash_recording: BashRecording = Field(default_factory=BashRecording)
    checks: CheckSettings = Field(default_factory=CheckSettings)
    strict_rules: bool = False
    index_memory: int = DEFAULT_INDEX_MEMORY

    @classmethod
    def from_values(cls, values: Mapping[str, object], path: Path) -> Settings:
        """Each section of a settings file's top level, read and checked.

        Raises:
            UsageError: a value of the wrong kind; the message names the file,
                the key and the fix.
        """
        source = str(path)
        own = _AppKeys.model_validate(values)
        return cls(
            path=path,
            provider=StoredProviderSettings.from_file(values, source),
            run=read_run_settings(RunKeys.model_validate(values), path),
            approval=parse_tool_policy(ApprovalKeys.model_validate(values), source=source),
            sandbox=parse_sandbox_settings(SandboxKeys.model_validate(values), source=source),
            retention=Retention.from_settings(values, path),
            bash_recording=BashRecording.from_settings(values, path),
            checks=read_check_settings(CheckKeys.model_validate(values), source),
            strict_rules=_strict_rules(own.strict_rules, path),
            index_memory=_index_memory(own.index_memory, path),
        )


def _strict_rules(value: object, path: Path) -> bool:
    if not isinstance(value, bool):
        raise UsageError(
            f"strict_rules in {path} must be true or false, not {value!r}",
            hint="write strict_rules = true (refuse rule files ast-grep would half-read)",
        )
    return value


def _index_memory(value: object, path: Path) -> int:
    try:
        return parse_index_memory(value, str(path))
    except ValueError as exc:
        raise UsageError(str(exc), hint='write for instance index_memory = "256 MiB"') from None


def load_settings(home: Path) -> Settings:
    """``home/settings.toml`` read and checked (every default when there is no such file).

    That is :func:`~xcsh.app.reading.read_settings` and its
    :meth:`~xcsh.app.reading.SettingsReading.settings`.

    Raises:
        UsageError: the layout of ``home`` is unusable (:func:`check_home`), the
            file cannot be read or is not valid TOML (the message names the file
            and the parser's position), it sets a key outside
            :data:`KNOWN_SETTINGS` (the message names the key and the known keys),
            or a value of the wrong kind (the message names the key and the fix).
    """
    from xcsh.app.reading import read_settings

    return read_settings(home).settings()


def checked_settings(values: Mapping[str, object], path: Path) -> Settings:
    """The top level ``values`` of the settings file ``path``, checked into :class:`Settings`.

    Raises:
        UsageError: a key outside :data:`KNOWN_SETTINGS` (the message names the key
            and the known keys), or a value of the wrong kind (the message names the
            key and the fix).
    """
    unknown = [key for key in values if key not in KNOWN_SETTINGS]
    if unknown:
        maybe = did_you_mean(unknown[0], KNOWN_SETTINGS)
        keys = ", ".join(repr(k) for k in unknown)
        raise UsageError(
            f"{path}: unknown setting{'s' if len(unknown) > 1 else ''} {keys}{maybe}",
            hint="the known settings are " + ", ".join(KNOWN_SETTINGS),
        )
    return Settings.from_values(values, path)


def build_provider(
    flags: ProviderFlags,
    stored: StoredProviderSettings,
    env: Mapping[str, str] | None = None,
    settings_file: Path | None = None,
) -> Provider:
    """The provider the flags, environment and settings describe (SDK imported now).

    ``settings_file`` is the settings' path, named in the hints (else
    ``$XCSH_HOME/settings.toml``).

    Raises:
        UsageError: nothing usable is configured; the hint says what to set.
    """
    resolved = resolve_provider_settings(
        flags,
        os.environ if env is None else env,
        stored,
        settings_file=str(settings_file) if settings_file else SETTINGS_FILE,
    )
    return create_provider(resolved)


def switch_provider(
    spec: str,
    current: Provider,
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Provider:
    """The provider for ``/model SPEC`` (SDK imported now).

    ``SPEC`` is ``MODEL`` or ``PROVIDER MODEL`` (``anthropic claude-haiku-4-5``).
    Without a provider: a ``claude-*`` model goes to Anthropic; a ``gpt-*``
    or ``o<digit>*`` model leaves Anthropic for OpenAI; any other model stays
    with the current provider, and on the same ``--base-url`` server when
    the current one is a local server.

    Raises:
        UsageError: an empty spec, an unknown provider, or no key for it.
    """
    from xcsh.providers.config import PROVIDER_NAMES

    words = spec.split()
    if not words or len(words) > 2:
        raise UsageError(
            "give a model: /model NAME, or /model PROVIDER NAME",
            hint=f"providers: {', '.join(PROVIDER_NAMES)}",
        )
    provider: str | None = words[0] if len(words) == 2 else None
    model = words[-1]
    if provider is not None and provider not in PROVIDER_NAMES:
        raise UsageError(
            f"unknown provider {provider!r}", hint=f"Use one of: {', '.join(PROVIDER_NAMES)}."
        )
    base_url = getattr(current, "base_url", None)
    if provider is None:
        if model.startswith("claude"):
            provider, base_url = "anthropic", None
        elif current.name == "anthropic" and (
            model.startswith("gpt-") or (model[:1] == "o" and model[1:2].isdigit())
        ):
            provider, base_url = "openai", None
        else:
            provider = current.name
    elif provider != current.name:
        base_url = None
    settings = load_settings(home or xcsh_home(env=env))
    kept = settings.provider.model_copy(
        update={"provider": None, "model": None, "base_url": base_url}
    )
    return build_provider(ProviderFlags(provider=provider, model=model), kept, env, settings.path)
