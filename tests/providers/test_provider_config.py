"""Settings resolution (flags > env > settings.toml), create_provider, and lazy SDK imports."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from xcsh.core import UsageError
from xcsh.providers import (
    ProviderFlags,
    ProviderSettings,
    StoredProviderSettings,
    create_provider,
)
from xcsh.providers import resolve_provider_settings as resolve_typed
from xcsh.providers.registry import PROVIDERS, ProviderEntry

NO_FLAGS: dict[str, Any] = {}


def resolve_provider_settings(
    flags: dict[str, Any], env: dict[str, str], stored: dict[str, Any]
) -> ProviderSettings:
    """Resolve flags and settings.toml values given as a front end and the file give them."""
    return resolve_typed(ProviderFlags(**flags), env, StoredProviderSettings.from_file(stored))


def test_nothing_configured_says_what_to_set() -> None:
    with pytest.raises(UsageError) as info:
        resolve_provider_settings(NO_FLAGS, {}, {})
    text = str(info.value)
    assert text.startswith("no model provider is configured\nHint: ")
    for needed in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "--base-url",
        "--provider openai --base-url http://localhost:8080/v1 --model NAME",
        "--provider scripted --model STEPS.json",
        "settings.toml",
    ):
        assert needed in text


def test_anthropic_key_in_env_picks_anthropic_with_default_model() -> None:
    s = resolve_provider_settings(NO_FLAGS, {"ANTHROPIC_API_KEY": "ak"}, {})
    assert (s.provider, s.model, s.api_key, s.base_url) == (
        "anthropic",
        "claude-sonnet-4-6",
        "ak",
        None,
    )


def test_openai_key_in_env_picks_openai() -> None:
    s = resolve_provider_settings(NO_FLAGS, {"OPENAI_API_KEY": "ok"}, {})
    assert (s.provider, s.model, s.api_key) == ("openai", "gpt-5.1", "ok")


def test_flags_beat_env_beat_settings() -> None:
    env = {"OPENAI_API_KEY": "env-key", "OPENAI_BASE_URL": "http://env:1/v1"}
    stored = {
        "provider": "openai",
        "model": "from-settings",
        "base_url": "http://settings:1/v1",
        "api_key": "settings-key",
        "max_tokens": 1000,
        "unrelated": {"table": True},
    }
    s = resolve_provider_settings(NO_FLAGS, env, stored)
    assert (s.model, s.base_url, s.api_key, s.max_tokens) == (
        "from-settings",
        "http://env:1/v1",
        "env-key",
        1000,
    )
    flags = {"model": "from-flag", "base_url": "http://flag:1/v1", "provider": None}
    s = resolve_provider_settings(flags, env, stored)
    assert (s.provider, s.model, s.base_url) == ("openai", "from-flag", "http://flag:1/v1")


def test_openai_base_url_env_does_not_leak_into_anthropic() -> None:
    env = {"ANTHROPIC_API_KEY": "ak", "OPENAI_BASE_URL": "http://localhost:8080/v1"}
    s = resolve_provider_settings({"provider": "anthropic"}, env, {})
    assert s.base_url is None


def test_local_server_needs_no_key_but_a_model() -> None:
    flags = {"provider": "openai", "base_url": "http://localhost:8080/v1"}
    with pytest.raises(UsageError, match="no model given for the server") as info:
        resolve_provider_settings(flags, {}, {})
    assert "--model NAME" in str(info.value)
    s = resolve_provider_settings({**flags, "model": "qwen3-coder"}, {}, {})
    assert (s.api_key, s.forced_tool_choice) == (None, True)


def test_base_url_alone_means_openai() -> None:
    s = resolve_provider_settings({"base_url": "http://localhost:11434/v1", "model": "m"}, {}, {})
    assert s.provider == "openai"


def test_claude_model_alone_means_anthropic() -> None:
    env = {"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok"}
    assert resolve_provider_settings({"model": "claude-opus-4-5"}, env, {}).provider == "anthropic"


def test_an_openai_model_alone_means_openai_even_with_an_anthropic_key() -> None:
    env = {"ANTHROPIC_API_KEY": "ak", "OPENAI_API_KEY": "ok"}
    for model in ("gpt-5.1", "o3", "o4-mini"):
        s = resolve_provider_settings({"model": model}, env, {})
        assert (s.provider, s.api_key) == ("openai", "ok")
    # never sent to Anthropic, which does not serve it: the missing key is named
    with pytest.raises(UsageError, match="no API key for provider 'openai'"):
        resolve_provider_settings({"model": "gpt-5.1"}, {"ANTHROPIC_API_KEY": "ak"}, {})
    # a name no provider claims goes by the keys, Anthropic's first
    assert resolve_provider_settings({"model": "other"}, env, {}).provider == "anthropic"


@pytest.mark.parametrize(
    ("provider", "env_name"),
    [("anthropic", "ANTHROPIC_API_KEY"), ("openai-responses", "OPENAI_API_KEY")],
)
def test_missing_key_names_the_variable(provider: str, env_name: str) -> None:
    with pytest.raises(UsageError, match=f"no API key for provider '{provider}'") as info:
        resolve_provider_settings({"provider": provider}, {}, {})
    assert env_name in str(info.value)


def test_scripted_needs_a_steps_file() -> None:
    with pytest.raises(UsageError, match=r"--provider scripted --model STEPS\.json"):
        resolve_provider_settings({"provider": "scripted"}, {}, {})
    s = resolve_provider_settings({"provider": "scripted", "model": "steps.json"}, {}, {})
    assert (s.provider, s.model, s.api_key) == ("scripted", "steps.json", None)


def test_unknown_provider_and_bad_values() -> None:
    with pytest.raises(UsageError, match="unknown provider 'gemini'") as info:
        resolve_provider_settings({"provider": "gemini"}, {}, {})
    assert "anthropic, openai, openai-responses, scripted" in str(info.value)
    with pytest.raises(UsageError, match=r"max_tokens in settings\.toml must be a whole number"):
        resolve_provider_settings(NO_FLAGS, {"ANTHROPIC_API_KEY": "k"}, {"max_tokens": -5})
    with pytest.raises(UsageError, match="--model must be a model name as text, not ''"):
        resolve_provider_settings({"provider": "scripted", "model": ""}, {}, {})


def test_api_key_hidden_from_repr() -> None:
    s = ProviderSettings(provider="anthropic", model="m", api_key="secret-value")
    assert "secret-value" not in repr(s)


def test_create_provider_builds_each_adapter() -> None:
    a = create_provider(ProviderSettings(provider="anthropic", model="m", api_key="k"))
    o = create_provider(
        ProviderSettings(
            provider="openai", model="m", base_url="http://h/v1", forced_tool_choice=False
        )
    )
    r = create_provider(ProviderSettings(provider="openai-responses", model="m", api_key="k"))
    assert [(p.name, p.supports_forced_tool_choice) for p in (a, o, r)] == [
        ("anthropic", True),
        ("openai", False),
        ("openai-responses", True),
    ]


def test_create_provider_without_key_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        create_provider(ProviderSettings(provider="openai", model="m"))


def test_create_scripted_provider_passes_the_steps_path(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []

    class ScriptedProvider:
        def __init__(self, *, steps_path: Path) -> None:
            made.append(steps_path)

    module = types.ModuleType("xcsh.providers.scripted")
    module.ScriptedProvider = ScriptedProvider  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "xcsh.providers.scripted", module)
    provider = create_provider(ProviderSettings(provider="scripted", model="run/steps.json"))
    assert isinstance(provider, ScriptedProvider)
    assert made == [Path("run/steps.json")]


def sdk_modules_after(code: str) -> list[str]:
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json, sys
        print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic'})))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    return list(json.loads(out.stdout))


def test_importing_providers_loads_no_sdk() -> None:
    loaded = sdk_modules_after(
        """
        import xcsh.providers
        from xcsh.providers import ProviderFlags, StoredProviderSettings
        from xcsh.providers import resolve_provider_settings
        env = {"ANTHROPIC_API_KEY": "k"}
        resolve_provider_settings(ProviderFlags(), env, StoredProviderSettings())
        """
    )
    assert loaded == []


def test_create_provider_loads_only_its_sdk() -> None:
    loaded = sdk_modules_after(
        """
        from xcsh.providers import ProviderSettings, create_provider
        create_provider(ProviderSettings(provider="anthropic", model="m", api_key="k"))
        """
    )
    assert loaded == ["anthropic"]


def test_temperature_is_read_from_settings_and_checked() -> None:
    env = {"OPENAI_API_KEY": "k"}
    assert resolve_provider_settings(NO_FLAGS, env, {"temperature": 0.2}).temperature == 0.2
    with pytest.raises(UsageError, match=r"temperature in settings\.toml must be a number from 0"):
        resolve_provider_settings(NO_FLAGS, env, {"temperature": 3})


LOCAL = "or pass --base-url for a local OpenAI-compatible server"
IN_SETTINGS = "(or api_key in $XCSH_HOME/settings.toml)"


@pytest.mark.parametrize(
    ("flags", "stored", "words"),
    [
        (
            NO_FLAGS,
            {},
            "no model provider is configured\nHint: Set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
            f"{LOCAL} (e.g. --provider openai --base-url http://localhost:8080/v1 --model NAME),"
            " or use --provider scripted --model STEPS.json to play back a scripted model."
            " provider, model and base_url can also be set in $XCSH_HOME/settings.toml.",
        ),
        (
            {"provider": "anthropic"},
            {},
            f"no API key for provider 'anthropic'\nHint: Set ANTHROPIC_API_KEY {IN_SETTINGS}.",
        ),
        (
            {"provider": "openai"},
            {},
            f"no API key for provider 'openai'\nHint: Set OPENAI_API_KEY, {LOCAL} {IN_SETTINGS}.",
        ),
        (
            {"provider": "openai-responses"},
            {},
            "no API key for provider 'openai-responses'\n"
            f"Hint: Set OPENAI_API_KEY, {LOCAL} {IN_SETTINGS}.",
        ),
        (
            {"provider": "scripted"},
            {},
            "the scripted provider needs a steps file\n"
            "Hint: Pass --provider scripted --model STEPS.json.",
        ),
        (
            {"provider": "gemini"},
            {},
            "unknown provider 'gemini'\n"
            "Hint: Use one of: anthropic, openai, openai-responses, scripted.",
        ),
        (
            NO_FLAGS,
            {"provider": "anthropic", "api_key": "k", "base_url": "http://h/v1"},
            "no model given for the server at http://h/v1\n"
            "Hint: Pass --model NAME with the name the server serves (or model in settings.toml).",
        ),
        (
            NO_FLAGS,
            {"provider": "gemini"},
            "provider in settings.toml must be one of 'anthropic', 'openai', "
            "'openai-responses', 'scripted', not 'gemini'\n"
            'Hint: write for instance provider = "anthropic"',
        ),
    ],
)
def test_what_is_missing_or_wrong_is_said_in_these_words(
    flags: dict[str, Any], stored: dict[str, Any], words: str
) -> None:
    with pytest.raises(UsageError) as info:
        resolve_provider_settings(flags, {}, stored)
    assert str(info.value) == words


@pytest.mark.parametrize(
    ("provider", "hint"),
    [
        ("anthropic", "Set ANTHROPIC_API_KEY."),
        ("openai", f"Set OPENAI_API_KEY, {LOCAL}."),
        ("openai-responses", f"Set OPENAI_API_KEY, {LOCAL}."),
    ],
)
def test_settings_built_without_a_key_say_which_variable_to_set(provider: str, hint: str) -> None:
    with pytest.raises(UsageError) as info:
        create_provider(ProviderSettings(provider=provider, model="m"))
    assert str(info.value) == f"no API key for provider {provider!r}\nHint: {hint}"


@pytest.mark.parametrize("entry", [e for e in PROVIDERS if e.key_env], ids=lambda e: e.name)
def test_each_registered_provider_is_built_by_its_name_with_its_key(entry: ProviderEntry) -> None:
    env = {entry.key_env: "k"} if entry.key_env else {}
    s = resolve_provider_settings({"provider": entry.name}, env, {})
    assert (s.provider, s.model, s.api_key) == (entry.name, entry.default_model, "k")
    assert create_provider(s).name == entry.name
