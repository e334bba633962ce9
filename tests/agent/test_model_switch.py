"""/model NAME: which provider a model name goes to."""

from __future__ import annotations

from pathlib import Path

import pytest

from xcsh.app import switch_provider
from xcsh.core import UsageError
from xcsh.providers import ProviderSettings, create_provider

ENV = {"ANTHROPIC_API_KEY": "a-key", "OPENAI_API_KEY": "o-key"}


def openai(base_url: str | None = None) -> object:
    return create_provider(
        ProviderSettings(provider="openai", model="gpt-5.1", api_key="k", base_url=base_url)
    )


@pytest.mark.parametrize(
    ("spec", "name", "model", "base_url"),
    [
        ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5", None),
        ("gpt-5-mini", "openai", "gpt-5-mini", None),
        ("openai-responses gpt-5.1", "openai-responses", "gpt-5.1", None),
    ],
)
def test_model_names_pick_their_provider(
    spec: str, name: str, model: str, base_url: str | None, xcsh_home: Path
) -> None:
    switched = switch_provider(spec, openai(), home=xcsh_home, env=ENV)  # type: ignore[arg-type]
    assert (switched.name, switched.model) == (name, model)
    assert getattr(switched, "base_url", None) == base_url


def test_a_local_server_keeps_its_url_and_anthropic_goes_back_to_openai(
    xcsh_home: Path,
) -> None:
    local = openai("http://localhost:8080/v1")
    switched = switch_provider("qwen3-coder", local, home=xcsh_home, env={})  # type: ignore[arg-type]
    assert (switched.name, switched.model) == ("openai", "qwen3-coder")
    assert switched.base_url == "http://localhost:8080/v1"  # type: ignore[attr-defined]
    claude = switch_provider("claude-sonnet-4-6", local, home=xcsh_home, env=ENV)  # type: ignore[arg-type]
    back = switch_provider("gpt-5.1", claude, home=xcsh_home, env=ENV)
    assert (back.name, getattr(back, "base_url", None)) == ("openai", None)


def test_bad_specs_say_what_to_type(xcsh_home: Path) -> None:
    with pytest.raises(UsageError, match="give a model"):
        switch_provider("", openai(), home=xcsh_home, env=ENV)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="unknown provider 'gemini'"):
        switch_provider("gemini pro", openai(), home=xcsh_home, env=ENV)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="no API key for provider 'anthropic'"):
        switch_provider("claude-haiku-4-5", openai(), home=xcsh_home, env={})  # type: ignore[arg-type]


def test_an_openai_model_stays_on_the_openai_provider_or_server_in_use(xcsh_home: Path) -> None:
    local = openai("http://localhost:8080/v1")
    switched = switch_provider("gpt-oss-20b", local, home=xcsh_home, env={})  # type: ignore[arg-type]
    assert (switched.name, switched.base_url) == ("openai", "http://localhost:8080/v1")  # type: ignore[attr-defined]
    responses = switch_provider("openai-responses gpt-5.1", local, home=xcsh_home, env=ENV)  # type: ignore[arg-type]
    kept = switch_provider("o3", responses, home=xcsh_home, env=ENV)
    assert (kept.name, kept.model) == ("openai-responses", "o3")
