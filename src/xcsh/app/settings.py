"""Settings: ``$XCSH_HOME/settings.toml`` read and checked, and the provider built from them.

Flags come first, then the environment, then the file (see
:mod:`xcsh.providers.config` for the provider keys).
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xcsh.agent import sessions_dir
from xcsh.checks import CHECK_KEYS
from xcsh.core import UsageError
from xcsh.fs import xcsh_home
from xcsh.providers import Provider
from xcsh.providers.config import SETTING_KEYS, create_provider, resolve_provider_settings
from xcsh.sandbox import SETTING_KEYS as SANDBOX_KEYS

KNOWN_SETTINGS = (
    *SETTING_KEYS,
    "max_forced_turns",
    "steering",
    "context_window",
    "profile",
    "journal_max_entries",
    "journal_max_bytes",
    *SANDBOX_KEYS,
    *CHECK_KEYS,
    "approval",
    "strict_rules",
    "index_memory",
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


def load_settings(home: Path) -> dict[str, Any]:
    """The top level of ``home/settings.toml``, or ``{}`` when there is no such file.

    Raises:
        UsageError: the layout of ``home`` is unusable (:func:`check_home`), the
            file cannot be read or is not valid TOML (the message names the file
            and the parser's position), or it sets a key outside
            :data:`KNOWN_SETTINGS` (the message names the key and the known keys).
    """
    check_home(home)
    path = home / "settings.toml"
    try:
        with path.open("rb") as fh:
            settings = tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(
            f"{path} is not valid TOML: {exc}", hint="fix the file or move it aside"
        ) from exc
    unknown = [key for key in settings if key not in KNOWN_SETTINGS]
    if unknown:
        close = difflib.get_close_matches(unknown[0], KNOWN_SETTINGS, n=1)
        maybe = f" (did you mean {close[0]!r}?)" if close else ""
        keys = ", ".join(repr(k) for k in unknown)
        raise UsageError(
            f"{path}: unknown setting{'s' if len(unknown) > 1 else ''} {keys}{maybe}",
            hint="the known settings are " + ", ".join(KNOWN_SETTINGS),
        )
    return settings


def build_provider(
    flags: Mapping[str, Any], settings: Mapping[str, Any], env: Mapping[str, str] | None = None
) -> Provider:
    """The provider the flags, environment and settings describe (SDK imported now).

    Raises:
        UsageError: nothing usable is configured; the hint says what to set.
    """
    resolved = resolve_provider_settings(flags, os.environ if env is None else env, settings)
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
    kept = {k: v for k, v in settings.items() if k not in ("provider", "model", "base_url")}
    if base_url is not None:
        kept["base_url"] = base_url
    flags = {"provider": provider, "model": model}
    return build_provider(flags, kept, env)
