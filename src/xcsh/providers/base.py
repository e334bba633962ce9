"""The provider protocol and its stream events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from xcsh.core import AssistantMessage, ModelRequest


@dataclass(frozen=True, kw_only=True)
class TextChunk:
    """A piece of answer text as it streams in.

    The agent emits it as its own ``TextDelta`` event.
    """

    text: str


@dataclass(frozen=True, kw_only=True)
class ThinkingChunk:
    """A piece of reasoning text as it streams in."""

    text: str


@dataclass(frozen=True, kw_only=True)
class ResponseDone:
    """The complete answer; always the last event of a stream."""

    message: AssistantMessage


StreamEvent = TextChunk | ThinkingChunk | ResponseDone
"""What a provider's stream yields: text and reasoning as they arrive, then the
whole answer (tool calls arrive complete, in :class:`ResponseDone`)."""


class Provider(Protocol):
    """A model behind some API.

    Attributes:
        name: provider name for display and sessions (``"anthropic"``).
        model: model id.
        supports_forced_tool_choice: False for servers known to reject a
            named tool choice; the session then forces with ``"required"``.
        compatible_server: a ``--base-url`` server whose handling of tool
            choice is not known in advance; the session watches whether it
            honours a forced tool choice and adapts.
    """

    name: str
    model: str
    supports_forced_tool_choice: bool
    compatible_server: bool

    def stream(
        self, request: ModelRequest, *, cancel: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Send ``request`` and yield events, ending with one :class:`ResponseDone`.

        Raises:
            xcsh.core.ProviderError: the provider refused or failed the request
                after retries (missing key, unknown model, rate limits that
                did not clear, a refused request). SDK exceptions never escape.
        """
        ...
