"""Provider settings: resolve them from flags, environment and settings.toml, then build.

Precedence, field by field: command-line flags > environment variables >
``$XCSH_HOME/settings.toml`` > defaults. Environment variables are the
providers' usual ones: ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY`` and
``OPENAI_BASE_URL``. Reading settings.toml is the caller's job; this module
takes its provider keys typed (:class:`StoredProviderSettings`), so it does no
I/O and imports no SDK. What each provider is (its key variable, default model,
the model names it serves, how to build it) is :mod:`xcsh.providers.registry`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PositiveInt, ValidationError

from xcsh.core import UsageError
from xcsh.core.settings_keys import SettingsKeys
from xcsh.core.validation import problems
from xcsh.providers.registry import (
    KEY_VARIABLES,
    PROVIDER_NAMES,
    PROVIDERS,
    ModelNeeded,
    ProviderEntry,
    provider_entry,
    provider_serving,
)

if TYPE_CHECKING:
    import httpx2

    from xcsh.providers.base import Provider


def _known_provider(name: str) -> str:
    if name not in PROVIDER_NAMES:
        raise ValueError(f"unknown provider {name!r}")
    return name


ProviderName = Annotated[str, AfterValidator(_known_provider)]
"""A provider's name: one of :data:`~xcsh.providers.registry.PROVIDER_NAMES`."""

DEFAULT_SERVER_MAX_TOKENS = 4096
"""Output cap sent to ``--base-url`` servers when none is configured: a local
model that never ends a turn would otherwise write until its context is full."""

DEFAULT_SERVER_TEMPERATURE = 0.0
"""Sampling temperature sent to ``--base-url`` servers when none is configured.

Local servers sample at their own default otherwise (llama.cpp: 0.8), at
which a small model writes malformed or made-up calls more often; the hosted
providers are never sent a temperature."""


NOTHING_CONFIGURED_HINT = (
    f"Set {' or '.join(KEY_VARIABLES)}, "
    "or pass --base-url for a local OpenAI-compatible server "
    "(e.g. --provider openai --base-url http://localhost:8080/v1 --model NAME), "
    "or use --provider scripted --model STEPS.json to play back a scripted model. "
    "provider, model and base_url can also be set in {settings}."
)
"""The hint when nothing is configured; ``{settings}`` is the settings file's path."""

LOCAL_SERVER_HINT = ", or pass --base-url for a local OpenAI-compatible server"
"""Added to the missing-key hint of providers that talk to servers of your own."""

SETTINGS_FILE = "$XCSH_HOME/settings.toml"
"""How hints name the settings file when its path is not given."""


class ProviderSettings(BaseModel):
    """Everything needed to build a provider.

    Attributes:
        provider: which adapter, by its name in the registry: ``"anthropic"``
            (Messages API), ``"openai"`` (Chat Completions, also any
            OpenAI-compatible server), ``"openai-responses"`` (Responses API)
            or ``"scripted"``.
        model: model id; for ``"scripted"``, the path of the steps JSON file.
        base_url: server URL, e.g. ``http://localhost:8080/v1``; None for the
            provider's own.
        api_key: the key; None for scripted and keyless local servers.
        thinking: extended thinking / reasoning on requests (switched off
            per request where the API forbids it with a forced tool).
        max_tokens: output cap per response; None for the adapter's default.
        forced_tool_choice: the server accepts a named tool choice; set False
            for local servers that reject it (a forced tool becomes ``"required"``).
        text_tool_calls: for ``--base-url`` servers, read an answer that is
            exactly one JSON call of an offered tool as that call (small
            models write calls as text); set False to turn it off.
        temperature: sampling temperature for ``--base-url`` servers (0 to 2);
            None for :data:`DEFAULT_SERVER_TEMPERATURE`. Never sent to the
            hosted providers, which keep their own.
        max_retries: SDK retries on rate limits, overloads and 5xx answers.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: ProviderName
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    thinking: bool = False
    max_tokens: PositiveInt | None = None
    forced_tool_choice: bool = True
    text_tool_calls: bool = True
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_retries: int = Field(default=3, ge=0, le=10)

    @property
    def output_cap(self) -> int | None:
        """The output cap to send: ``max_tokens``, else the default for a ``--base-url`` server.

        :data:`DEFAULT_SERVER_MAX_TOKENS` for such a server without ``max_tokens``;
        None (the provider's own cap) for the hosted providers without it.
        """
        if self.max_tokens is None and self.base_url:
            return DEFAULT_SERVER_MAX_TOKENS
        return self.max_tokens

    @property
    def server_temperature(self) -> float | None:
        """The temperature to send: the setting or the default for a ``--base-url`` server.

        None (the provider keeps its own) for the hosted providers, whatever the setting.
        """
        if not self.base_url:
            return None
        return DEFAULT_SERVER_TEMPERATURE if self.temperature is None else self.temperature


@dataclass(frozen=True, kw_only=True)
class ProviderFlags:
    """The provider choices given on the command line (``None``: not given)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None


class StoredProviderSettings(SettingsKeys):
    """The provider keys of ``settings.toml`` (see :data:`SETTING_KEYS`); ``None`` when not set.

    Each value is checked as the file gives it (a known provider, a model name
    that is not empty, ...; ``thinking = "yes"`` is refused, not read as true);
    whether they make a usable provider once combined with the flags and the
    environment is :func:`resolve_provider_settings`'s. Read with
    :meth:`~xcsh.core.settings_keys.SettingsKeys.from_file` (other keys of the
    file are not read).
    """

    model_config = ConfigDict(extra="forbid")

    provider: ProviderName | None = None
    model: str | None = Field(default=None, min_length=1)
    base_url: str | None = None
    api_key: str | None = Field(default=None, repr=False)
    thinking: bool | None = None
    max_tokens: PositiveInt | None = None
    forced_tool_choice: bool | None = None
    text_tool_calls: bool | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_retries: int | None = Field(default=None, ge=0, le=10)

    @classmethod
    def refused(cls, key: str, value: object, source: str) -> UsageError | None:
        """The file, the key, what it takes and the value; the hint shows a line to write."""
        expected, example = _EXPECTED.get(key, ("another value", f"{key} = ..."))
        return UsageError(
            f"{key} in {source} must be {expected}, not {value!r}",
            hint=f"write for instance {example}",
        )


_EXPECTED: dict[str, tuple[str, str]] = {
    "provider": ("one of " + ", ".join(map(repr, PROVIDER_NAMES)), 'provider = "anthropic"'),
    "model": ("a model name as text", 'model = "claude-sonnet-4-6"'),
    "base_url": ("a server URL as text", 'base_url = "http://localhost:8080/v1"'),
    "api_key": ("an API key as text", 'api_key = "sk-..."'),
    "thinking": ("true or false", "thinking = true"),
    "max_tokens": ("a whole number above 0", "max_tokens = 8192"),
    "forced_tool_choice": ("true or false", "forced_tool_choice = false"),
    "text_tool_calls": ("true or false", "text_tool_calls = false"),
    "temperature": ("a number from 0 to 2", "temperature = 0.2"),
    "max_retries": ("a whole number from 0 to 10", "max_retries = 3"),
}
"""For each provider key of settings.toml: what it takes, in plain words, and a line to write."""

SETTING_KEYS = tuple(StoredProviderSettings.model_fields)
"""The provider keys of settings.toml (``provider``, ``model`` and ``base_url`` are flags too)."""


_TUNING = frozenset(
    {
        "thinking",
        "max_tokens",
        "forced_tool_choice",
        "text_tool_calls",
        "temperature",
        "max_retries",
    }
)
"""The keys only settings.toml sets (no flag, no environment variable)."""


def _invalid(exc: ValidationError) -> UsageError:
    """The error for settings the flags made invalid (settings.toml's are checked on reading)."""
    first = problems(exc)[0]
    key = first.key
    expected = _EXPECTED.get(key, ("another value", ""))[0]
    flag = f"--{key.replace('_', '-')}"
    return UsageError(
        f"{flag} must be {expected}, not {first.got!r}",
        hint=f"Pass {flag} with a value, or leave it out.",
    )


def resolve_provider_settings(
    flags: ProviderFlags,
    env: Mapping[str, str],
    stored: StoredProviderSettings,
    *,
    settings_file: str = SETTINGS_FILE,
) -> ProviderSettings:
    """Combine flags > environment > settings.toml into :class:`ProviderSettings`.

    Args:
        flags: the command line's choices.
        env: the environment (``os.environ``).
        stored: the provider keys of settings.toml.
        settings_file: the settings file's path, for the hints.

    Without an explicit provider it is inferred, trying the registry's
    providers in order: a base URL means the first that talks to servers of
    your own (``openai``), a model name means the first that serves it
    (``claude-*``: ``anthropic``; ``gpt-*``, ``o3``: ``openai``), else the
    first whose key variable is set (``ANTHROPIC_API_KEY``, then
    ``OPENAI_API_KEY``). A provider's server URL variable
    (``OPENAI_BASE_URL``) applies to that provider only.

    Raises:
        UsageError: nothing is configured, a key or model is missing for the
            chosen provider, or a value is invalid; the hint says what to set.
    """
    name = flags.provider if flags.provider is not None else stored.provider
    model = flags.model if flags.model is not None else stored.model
    if name is None:
        entry = _infer_provider(flags.base_url or stored.base_url, env, model, settings_file)
    else:
        entry = provider_entry(name)
    env_base = env.get(entry.base_url_env) if entry.base_url_env else None
    base_url = flags.base_url or env_base or stored.base_url
    api_key = (env.get(entry.key_env) or stored.api_key) if entry.key_env else None
    if entry.lacks_key(api_key, base_url):
        raise _no_key(entry, f" (or api_key in {settings_file})")
    if model is None:
        model = _default_model(entry, base_url)
    tuning = stored.model_dump(exclude_none=True, include=set(_TUNING))
    try:
        return ProviderSettings.model_validate(
            {
                **tuning,
                "provider": entry.name,
                "model": model,
                "base_url": base_url,
                "api_key": api_key,
            }
        )
    except ValidationError as exc:
        raise _invalid(exc) from exc


def _infer_provider(
    base_url: str | None, env: Mapping[str, str], model: str | None, settings_file: str
) -> ProviderEntry:
    """The provider meant when none is named (see :func:`resolve_provider_settings`)."""
    if base_url:
        return next(entry for entry in PROVIDERS if entry.compatible_servers)
    for entry in PROVIDERS:
        if entry.base_url_env and env.get(entry.base_url_env):
            return entry
    serving = provider_serving(model) if model is not None else None
    if serving is not None:
        return serving
    for entry in PROVIDERS:
        if entry.key_env and env.get(entry.key_env):
            return entry
    raise UsageError(
        "no model provider is configured",
        hint=NOTHING_CONFIGURED_HINT.format(settings=settings_file),
    )


def _no_key(entry: ProviderEntry, tail: str = "") -> UsageError:
    """The error for a provider without its key; ``tail`` ends the hint's sentence."""
    local = LOCAL_SERVER_HINT if entry.compatible_servers else ""
    return UsageError(
        f"no API key for provider {entry.name!r}", hint=f"Set {entry.key_env}{local}{tail}."
    )


def _default_model(entry: ProviderEntry, base_url: str | None) -> str:
    if isinstance(entry.default_model, ModelNeeded):
        raise UsageError(entry.default_model.problem, hint=entry.default_model.hint)
    if base_url:
        raise UsageError(
            f"no model given for the server at {base_url}",
            hint="Pass --model NAME with the name the server serves (or model in settings.toml).",
        )
    return entry.default_model


def create_provider(
    settings: ProviderSettings, *, http_client: httpx2.AsyncClient | None = None
) -> Provider:
    """Build the provider ``settings`` describe, importing its adapter and SDK only now.

    Args:
        settings: resolved settings.
        http_client: an ``httpx2.AsyncClient`` for the SDK (tests pass one with
            a mock transport); None for the SDK's own. Ignored by ``scripted``.

    Raises:
        UsageError: a key is missing (settings built by hand).
        ProviderError: the SDK refused the configuration.
    """
    entry = provider_entry(settings.provider)
    if entry.lacks_key(settings.api_key, settings.base_url):
        raise _no_key(entry)
    return entry.build(settings, http_client)
