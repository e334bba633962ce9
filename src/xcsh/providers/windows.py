"""Context windows of well-known models, in tokens.

From the providers' model pages. A model missing from the table has no known
window: the session then uses the ``context_window`` setting, or
:data:`DEFAULT_CONTEXT_WINDOW`. Dated snapshots (``gpt-4.1-2025-04-14``)
fall back to their base name, as for prices.
"""

from __future__ import annotations

import re

DEFAULT_CONTEXT_WINDOW = 128_000
"""Used for models the table does not know and no setting names (local models
often have less: set ``context_window`` in settings.toml)."""

CONTEXT_WINDOWS: dict[str, int] = {
    "claude-opus-4-5": 200_000,
    "claude-sonnet-4-6": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-haiku-4-5": 200_000,
    "gpt-5.1": 400_000,
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
}

_SNAPSHOT = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


def context_window_of(model: str) -> int | None:
    """The context window of ``model`` in tokens, or ``None`` when unknown."""
    return CONTEXT_WINDOWS.get(model) or CONTEXT_WINDOWS.get(_SNAPSHOT.sub("", model))
