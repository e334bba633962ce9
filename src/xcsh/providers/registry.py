"""The providers xcsh knows: one :class:`ProviderEntry` each, in :data:`PROVIDERS`.

Everything else about providers is derived from this list: the names settings
accept (:data:`PROVIDER_NAMES`), which provider a model name, a server URL or
a key in the environment means, the default model, the key variable the hints
name, and how to build the adapter. Adding a provider is one entry here (with
its builder) and one adapter module.

A builder imports its adapter module (and so its SDK) only when called, so
importing this module loads no SDK; :func:`xcsh.providers.create_provider`
calls exactly one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.core import UsageError

if TYPE_CHECKING:
    import httpx2

    from xcsh.providers.base import Provider
    from xcsh.providers.config import ProviderSettings

Builder = Callable[["ProviderSettings", "httpx2.AsyncClient | None"], "Provider"]
"""Makes a provider from resolved settings and an optional ``httpx2.AsyncClient``
(None: the SDK's own); imports the adapter module (and its SDK) when called.

It may take the key as given: :func:`~xcsh.providers.create_provider` refuses
settings without one first when the entry names a key variable."""


@dataclass(frozen=True, kw_only=True)
class ModelNeeded:
    """What to say when a provider without a default model is given none."""

    problem: str
    hint: str


@dataclass(frozen=True, kw_only=True)
class ProviderEntry:
    """One provider xcsh can talk to.

    Attributes:
        name: its name on the command line and in settings.toml (``"anthropic"``).
        build: makes the adapter (see :data:`Builder`).
        default_model: the model used when none is configured (not for a
            ``--base-url`` server), or what to say when one must be given.
        key_env: the environment variable holding its API key; None when it
            needs no key.
        base_url_env: the environment variable holding a server URL for it;
            None when it reads none.
        compatible_servers: it also talks to servers of your own that speak
            its API (``--base-url``), which need no key; the first such
            provider is the one a base URL alone means.
        models: the model names it serves, matched at the start of a name
            (``claude`` matches ``claude-opus-4-5``); None when no name says
            it. Decides the provider when a model is given without one.
    """

    name: str
    build: Builder
    default_model: str | ModelNeeded
    key_env: str | None = None
    base_url_env: str | None = None
    compatible_servers: bool = False
    models: re.Pattern[str] | None = None

    def lacks_key(self, api_key: str | None, base_url: str | None) -> bool:
        """Whether it needs a key and ``api_key`` is none (a server of your own needs none)."""
        if self.key_env is None or api_key:
            return False
        return not (self.compatible_servers and base_url)

    def serves(self, model: str) -> bool:
        """Whether ``model`` is one of the names this provider serves (see ``models``)."""
        return self.models is not None and self.models.match(model) is not None


def _given_key(settings: ProviderSettings) -> str:
    """The API key ``create_provider`` made sure is there, for adapters that need one."""
    assert settings.api_key, "create_provider refuses settings without a key first"
    return settings.api_key


def _anthropic(settings: ProviderSettings, http_client: httpx2.AsyncClient | None) -> Provider:
    from xcsh.providers.anthropic import DEFAULT_MAX_TOKENS, AnthropicProvider

    return AnthropicProvider(
        model=settings.model,
        api_key=_given_key(settings),
        base_url=settings.base_url,
        max_tokens=settings.max_tokens or DEFAULT_MAX_TOKENS,
        thinking=settings.thinking,
        max_retries=settings.max_retries,
        http_client=http_client,
    )


def _openai_chat(settings: ProviderSettings, http_client: httpx2.AsyncClient | None) -> Provider:
    from xcsh.providers.openai_chat import OpenAIChatProvider

    return OpenAIChatProvider(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_tokens=settings.output_cap,
        thinking=settings.thinking,
        supports_forced_tool_choice=settings.forced_tool_choice,
        text_tool_calls=settings.text_tool_calls,
        temperature=settings.server_temperature,
        max_retries=settings.max_retries,
        http_client=http_client,
    )


def _openai_responses(
    settings: ProviderSettings, http_client: httpx2.AsyncClient | None
) -> Provider:
    from xcsh.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider(
        model=settings.model,
        api_key=settings.api_key,
        base_url=settings.base_url,
        max_tokens=settings.output_cap,
        thinking=settings.thinking,
        max_retries=settings.max_retries,
        http_client=http_client,
    )


def _scripted(settings: ProviderSettings, http_client: httpx2.AsyncClient | None) -> Provider:
    from xcsh.providers.scripted import ScriptedProvider

    return ScriptedProvider(steps_path=Path(settings.model))


_OPENAI_MODELS = re.compile(r"gpt-|o\d")
"""OpenAI's model names: ``gpt-5.1``, ``o3``, ``o4-mini``."""

PROVIDERS: tuple[ProviderEntry, ...] = (
    ProviderEntry(
        name="anthropic",
        build=_anthropic,
        default_model="claude-sonnet-4-6",
        key_env="ANTHROPIC_API_KEY",
        models=re.compile("claude"),
    ),
    ProviderEntry(
        name="openai",
        build=_openai_chat,
        default_model="gpt-5.1",
        key_env="OPENAI_API_KEY",
        base_url_env="OPENAI_BASE_URL",
        compatible_servers=True,
        models=_OPENAI_MODELS,
    ),
    ProviderEntry(
        name="openai-responses",
        build=_openai_responses,
        default_model="gpt-5.1",
        key_env="OPENAI_API_KEY",
        base_url_env="OPENAI_BASE_URL",
        compatible_servers=True,
        models=_OPENAI_MODELS,
    ),
    ProviderEntry(
        name="scripted",
        build=_scripted,
        default_model=ModelNeeded(
            problem="the scripted provider needs a steps file",
            hint="Pass --provider scripted --model STEPS.json.",
        ),
    ),
)
"""Every provider, in the order inference tries them (Anthropic's key first)."""

PROVIDER_NAMES: tuple[str, ...] = tuple(entry.name for entry in PROVIDERS)
"""The names ``--provider`` and ``provider`` in settings.toml accept."""

KEY_VARIABLES: tuple[str, ...] = tuple(
    dict.fromkeys(entry.key_env for entry in PROVIDERS if entry.key_env)
)
"""The API key variables, each once, in :data:`PROVIDERS` order."""


def find_provider(name: str) -> ProviderEntry | None:
    """The entry named ``name``; None when no provider has that name."""
    return next((entry for entry in PROVIDERS if entry.name == name), None)


def provider_entry(name: str) -> ProviderEntry:
    """The entry named ``name``.

    Raises:
        UsageError: no provider has that name; the hint lists the names.
    """
    entry = find_provider(name)
    if entry is None:
        raise UsageError(
            f"unknown provider {name!r}", hint=f"Use one of: {', '.join(PROVIDER_NAMES)}."
        )
    return entry


def provider_serving(model: str) -> ProviderEntry | None:
    """The first provider whose model names include ``model``; None when no name says."""
    return next((entry for entry in PROVIDERS if entry.serves(model)), None)
