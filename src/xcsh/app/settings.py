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
    RunSettings,
    ToolPolicy,
    parse_tool_policy,
    sessions_dir,
)
from xcsh.checks import CHECK_KEYS, CheckKeys, CheckSettings, read_check_settings
from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.wording import did_you_mean
from xcsh.fs import xcsh_home
from xcsh.journal import Retention
from xcsh.journal.commands import BashRecording
from xcsh.mcpclient.settings import MCP_KEYS, McpKeys, McpSettings, read_mcp_settings
from xcsh.providers import Provider, ProviderFlags, StoredProviderSettings
from xcsh.providers.config import (
    SETTING_KEYS,
    SETTINGS_FILE,
    create_provider,
    resolve_provider_settings,
)
from xcsh.providers.registry import (
    PROVIDER_NAMES,
    find_provider,
    provider_entry,
    provider_serving,
)
from xcsh.sandbox import SETTING_KEYS as SANDBOX_KEYS
from xcsh.sandbox import SandboxKeys, SandboxSettings, parse_sandbox_settings
from xcsh.structural.scan.warm_cache import DEFAULT_INDEX_MEMORY, parse_index_memory


class _AppKeys(SettingsKeys):
    """The keys of a settings file's top level :class:`Settings` reads itself.

    Attributes:
        strict_rules: ``xcsh scan`` refuses rule files ast-grep would half-read.
        index_memory: bytes, or a size such as ``"256 MiB"`` (checked by
            :func:`~xcsh.structural.scan.warm.parse_index_memory`).
    """

    strict_rules: bool = False
    index_memory: int | str = DEFAULT_INDEX_MEMORY

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it may be and the value; a line to write."""
        if key == "strict_rules":
            return UsageError(
                f"strict_rules in {source} must be true or false, not {value!r}",
                hint="write strict_rules = true (refuse rule files ast-grep would half-read)",
            )
        try:
            parse_index_memory(value, source)
        except ValueError as exc:
            return _index_memory_error(exc)
        return None


KNOWN_SETTINGS = (
    *SETTING_KEYS,
    *RunSettings.model_fields,
    "journal_max_entries",
    "journal_max_bytes",
    "bash_record_max_bytes",
    *SANDBOX_KEYS,
    *CHECK_KEYS,
    *ApprovalKeys.model_fields,
    *MCP_KEYS,
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
        mcp: the MCP servers to start and ``mcp_tools`` (a trusted project's
            servers join them: :func:`xcsh.app.mcp.session_servers`).
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
    mcp: McpSettings = Field(default_factory=McpSettings)

    @classmethod
    def from_values(cls, values: Mapping[str, object], path: Path) -> Settings:
        """Each section of a settings file's top level, read and checked.

        Raises:
            UsageError: a value of the wrong kind; the message names the file,
                the key and the fix.
        """
        source = str(path)
        provider = StoredProviderSettings.from_file(values, source)
        run = RunSettings.from_file(values, source)
        approval = parse_tool_policy(ApprovalKeys.from_file(values, source), source=source)
        sandbox = parse_sandbox_settings(SandboxKeys.from_file(values, source), source=source)
        retention = Retention.from_settings(values, path)
        bash_recording = BashRecording.from_settings(values, path)
        checks = read_check_settings(CheckKeys.from_file(values, source), source)
        own = _AppKeys.from_file(values, source)
        try:
            index_memory = parse_index_memory(own.index_memory, source)
        except ValueError as exc:
            raise _index_memory_error(exc) from None
        return cls(
            path=path,
            provider=provider,
            run=run,
            approval=approval,
            sandbox=sandbox,
            retention=retention,
            bash_recording=bash_recording,
            checks=checks,
            strict_rules=own.strict_rules,
            index_memory=index_memory,
            mcp=read_mcp_settings(McpKeys.from_file(values, source), source),
        )


def _index_memory_error(exc: ValueError) -> UsageError:
    """``index_memory`` refused (``exc``: :func:`parse_index_memory`'s words), with a hint."""
    return UsageError(str(exc), hint='write for instance index_memory = "256 MiB"')


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
    Without a provider, a model the current provider serves stays with it;
    one another provider serves goes there (``claude-*`` to Anthropic,
    ``gpt-*`` or ``o<digit>*`` to OpenAI, see the registry's ``models``);
    any other model stays with the current provider, and on the same
    ``--base-url`` server when the current one is a local server.

    Raises:
        UsageError: an empty spec, an unknown provider, or no key for it.
    """
    words = spec.split()
    if not words or len(words) > 2:
        raise UsageError(
            "give a model: /model NAME, or /model PROVIDER NAME",
            hint=f"providers: {', '.join(PROVIDER_NAMES)}",
        )
    provider: str | None = words[0] if len(words) == 2 else None
    model = words[-1]
    if provider is not None:
        provider_entry(provider)
    base_url = getattr(current, "base_url", None)
    if provider is None:
        serving = provider_serving(model)
        current_entry = find_provider(current.name)
        if serving is None or (current_entry is not None and current_entry.serves(model)):
            provider = current.name
        else:
            provider, base_url = serving.name, None
    elif provider != current.name:
        base_url = None
    settings = load_settings(home or xcsh_home(env=env))
    kept = settings.provider.model_copy(
        update={"provider": None, "model": None, "base_url": base_url}
    )
    return build_provider(ProviderFlags(provider=provider, model=model), kept, env, settings.path)
