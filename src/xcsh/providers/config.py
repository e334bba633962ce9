"""Provider settings: resolve them from flags, environment and settings.toml, then build.

Precedence, field by field: command-line flags > environment variables >
``$XCSH_HOME/settings.toml`` > defaults. Environment variables are the
providers' usual ones: ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY`` and
``OPENAI_BASE_URL``. Reading settings.toml is the caller's job; this module
takes its provider keys typed (:class:`StoredProviderSettings`), so it does no
I/O and imports no SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError

from xcsh.core import UsageError
from xcsh.core.validation import problems
from xcsh.providers.base import Provider

if TYPE_CHECKING:
    import httpx2

ProviderName = Literal["anthropic", "openai", "openai-responses", "scripted"]
PROVIDER_NAMES: tuple[ProviderName, ...] = ("anthropic", "openai", "openai-responses", "scripted")

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-5.1",
    "openai-responses": "gpt-5.1",
}
"""The model used when none is configured (not for ``--base-url`` servers or ``scripted``)."""

DEFAULT_SERVER_MAX_TOKENS = 4096
"""Output cap sent to ``--base-url`` servers when none is configured: a local
model that never ends a turn would otherwise write until its context is full."""

DEFAULT_SERVER_TEMPERATURE = 0.0
"""Sampling temperature sent to ``--base-url`` servers when none is configured.

Local servers sample at their own default otherwise (llama.cpp: 0.8), at
which a small model writes malformed or made-up calls more often; the hosted
providers are never sent a temperature."""

KEY_ENV: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
}

SETTING_KEYS = (
    "provider",
    "model",
    "base_url",
    "api_key",
    "thinking",
    "max_tokens",
    "forced_tool_choice",
    "text_tool_calls",
    "temperature",
    "max_retries",
)
"""The provider keys of settings.toml (``provider``, ``model`` and ``base_url`` are flags too)."""

NOTHING_CONFIGURED_HINT = (
    "Set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
    "or pass --base-url for a local OpenAI-compatible server "
    "(e.g. --provider openai --base-url http://localhost:8080/v1 --model NAME), "
    "or use --provider scripted --model STEPS.json to play back a scripted model. "
    "provider, model and base_url can also be set in {settings}."
)
"""The hint when nothing is configured; ``{settings}`` is the settings file's path."""

SETTINGS_FILE = "$XCSH_HOME/settings.toml"
"""How hints name the settings file when its path is not given."""


class ProviderSettings(BaseModel):
    """Everything needed to build a provider.

    Attributes:
        provider: which adapter: ``"anthropic"`` (Messages API), ``"openai"``
            (Chat Completions, also any OpenAI-compatible server),
            ``"openai-responses"`` (Responses API) or ``"scripted"``.
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


@dataclass(frozen=True, kw_only=True)
class ProviderFlags:
    """The provider choices given on the command line (``None``: not given)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None


class StoredProviderSettings(BaseModel):
    """The provider keys of ``settings.toml`` (see :data:`SETTING_KEYS`); ``None`` when not set.

    Each value is checked as the file gives it (a known provider, a model name
    that is not empty, ...); whether they make a usable provider once combined
    with the flags and the environment is :func:`resolve_provider_settings`'s.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

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
    def from_file(
        cls, values: Mapping[str, object], source: str = "settings.toml"
    ) -> StoredProviderSettings:
        """The provider keys of a settings file's top level (other keys are not read).

        Values are taken as TOML gives them: ``thinking = "yes"`` is refused, not
        read as true.

        Args:
            values: the file's top level.
            source: the file's path, for messages.

        Raises:
            UsageError: a value of the wrong kind or out of range; the message
                names the file, the key, what is expected and the value, the
                hint shows a line to write instead.
        """
        try:
            return cls.model_validate({k: values[k] for k in SETTING_KEYS if k in values})
        except ValidationError as exc:
            key = problems(exc)[0].where.split(".")[0]
            expected, example = _EXPECTED.get(key, ("another value", f"{key} = ..."))
            raise UsageError(
                f"{key} in {source} must be {expected}, not {values.get(key)!r}",
                hint=f"write for instance {example}",
            ) from exc


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
    key = first.where.split(".")[0]
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

    Without an explicit provider it is inferred: a base URL means ``openai``
    (an OpenAI-compatible server), a ``claude-*`` model means ``anthropic``,
    else whichever of ``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY`` is set
    (Anthropic first). ``OPENAI_BASE_URL`` applies to the OpenAI providers only.

    Raises:
        UsageError: nothing is configured, a key or model is missing for the
            chosen provider, or a value is invalid; the hint says what to set.
    """
    env_base = env.get("OPENAI_BASE_URL") or None
    provider = flags.provider if flags.provider is not None else stored.provider
    model = flags.model if flags.model is not None else stored.model
    if provider is None:
        provider = _infer_provider(flags, stored, env, model, env_base, settings_file)
    if provider not in PROVIDER_NAMES:
        raise UsageError(
            f"unknown provider {provider!r}",
            hint=f"Use one of: {', '.join(PROVIDER_NAMES)}.",
        )
    openai_like = provider in ("openai", "openai-responses")
    base_url = flags.base_url or (env_base if openai_like else None) or stored.base_url
    api_key: str | None = None
    if provider != "scripted":
        key_env = KEY_ENV[provider]
        api_key = env.get(key_env) or stored.api_key
        if not api_key and not (openai_like and base_url):
            local = (
                ", or pass --base-url for a local OpenAI-compatible server" if openai_like else ""
            )
            raise UsageError(
                f"no API key for provider {provider!r}",
                hint=f"Set {key_env}{local} (or api_key in {settings_file}).",
            )
    if model is None:
        model = _default_model(provider, base_url)
    tuning = stored.model_dump(exclude_none=True, include=set(_TUNING))
    try:
        return ProviderSettings.model_validate(
            {
                **tuning,
                "provider": provider,
                "model": model,
                "base_url": base_url,
                "api_key": api_key,
            }
        )
    except ValidationError as exc:
        raise _invalid(exc) from exc


def _infer_provider(
    flags: ProviderFlags,
    stored: StoredProviderSettings,
    env: Mapping[str, str],
    model: str | None,
    env_base: str | None,
    settings_file: str,
) -> str:
    if flags.base_url or stored.base_url or env_base:
        return "openai"
    if model is not None and model.startswith("claude"):
        return "anthropic"
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY"):
        return "openai"
    raise UsageError(
        "no model provider is configured",
        hint=NOTHING_CONFIGURED_HINT.format(settings=settings_file),
    )


def _default_model(provider: str, base_url: str | None) -> str:
    if provider == "scripted":
        raise UsageError(
            "the scripted provider needs a steps file",
            hint="Pass --provider scripted --model STEPS.json.",
        )
    if base_url:
        raise UsageError(
            f"no model given for the server at {base_url}",
            hint="Pass --model NAME with the name the server serves (or model in settings.toml).",
        )
    return DEFAULT_MODELS[provider]


def create_provider(
    settings: ProviderSettings, *, http_client: httpx2.AsyncClient | None = None
) -> Provider:
    """Build the provider ``settings`` describe, importing its SDK only now.

    Args:
        settings: resolved settings.
        http_client: an ``httpx2.AsyncClient`` for the SDK (tests pass one with
            a mock transport); None for the SDK's own. Ignored by ``scripted``.

    Raises:
        UsageError: a key is missing (settings built by hand).
        ProviderError: the SDK refused the configuration.
    """
    if settings.provider == "scripted":
        from xcsh.providers.scripted import ScriptedProvider

        return ScriptedProvider(steps_path=Path(settings.model))
    if settings.provider == "anthropic":
        if not settings.api_key:
            raise UsageError("no API key for provider 'anthropic'", hint="Set ANTHROPIC_API_KEY.")
        from xcsh.providers.anthropic import DEFAULT_MAX_TOKENS, AnthropicProvider

        return AnthropicProvider(
            model=settings.model,
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_tokens=settings.max_tokens or DEFAULT_MAX_TOKENS,
            thinking=settings.thinking,
            max_retries=settings.max_retries,
            http_client=http_client,
        )
    if not settings.api_key and not settings.base_url:
        raise UsageError(
            f"no API key for provider {settings.provider!r}",
            hint="Set OPENAI_API_KEY, or pass --base-url for a local OpenAI-compatible server.",
        )
    max_tokens = settings.max_tokens
    if max_tokens is None and settings.base_url:
        max_tokens = DEFAULT_SERVER_MAX_TOKENS
    if settings.provider == "openai-responses":
        from xcsh.providers.openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider(
            model=settings.model,
            api_key=settings.api_key,
            base_url=settings.base_url,
            max_tokens=max_tokens,
            thinking=settings.thinking,
            max_retries=settings.max_retries,
            http_client=http_client,
        )
    from xcsh.providers.openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_tokens=max_tokens,
        thinking=settings.thinking,
        supports_forced_tool_choice=settings.forced_tool_choice,
        text_tool_calls=settings.text_tool_calls,
        temperature=_server_temperature(settings),
        max_retries=settings.max_retries,
        http_client=http_client,
    )


def _server_temperature(settings: ProviderSettings) -> float | None:
    """The temperature to send: the setting or the default for a ``--base-url`` server.

    None (the provider keeps its own) for the hosted providers, whatever the setting.
    """
    if not settings.base_url:
        return None
    return DEFAULT_SERVER_TEMPERATURE if settings.temperature is None else settings.temperature
