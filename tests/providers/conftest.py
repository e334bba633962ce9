"""Fixtures for provider tests: a recording mock HTTP transport, SSE fixtures, golden files.

No network: every SDK client gets an ``httpx2.AsyncClient`` whose transport
answers from a queue of canned responses and records each request.
Set ``XCSH_UPDATE_GOLDEN=1`` to rewrite the golden request files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from provider_support import GOLDEN, Exchange


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_PROFILE",
        "ANTHROPIC_CUSTOM_HEADERS",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def exchange() -> Callable[..., Exchange]:
    """``exchange(answer, ...)`` builds an :class:`Exchange` serving those answers."""

    def make(*answers: httpx2.Response) -> Exchange:
        return Exchange(list(answers))

    return make


@pytest.fixture
def golden() -> Callable[[str, Any], None]:
    """``golden(name, payload)`` compares ``payload`` with ``golden/NAME.json``."""

    def check(name: str, payload: Any) -> None:
        path = GOLDEN / f"{name}.json"
        text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
        if os.environ.get("XCSH_UPDATE_GOLDEN") == "1":
            path.write_text(text)
        assert path.exists(), f"missing golden file {path}; run with XCSH_UPDATE_GOLDEN=1"
        assert json.loads(path.read_text()) == payload, f"request differs from {path.name}"

    return check
