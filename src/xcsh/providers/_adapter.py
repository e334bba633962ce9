"""The part of a streaming adapter that does not depend on the API behind it.

Each adapter (Anthropic Messages, OpenAI Chat Completions, OpenAI Responses)
subclasses :class:`StreamingAdapter` and writes only what its API needs: how
to open the stream, which SDK events become :data:`StreamEvent` values, how
the final answer maps to an :class:`~xcsh.core.AssistantMessage`, and which SDK
exceptions become :class:`~xcsh.core.ProviderError`. The base class keeps the
text and reasoning received so far, answers a cancelled stream with what
arrived (``stop_reason="aborted"``), and ends every stream with one
:class:`ResponseDone`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator

from xcsh.core import AssistantMessage, ModelRequest, ProviderError
from xcsh.providers._cancel import Cancelled
from xcsh.providers._common import aborted
from xcsh.providers._errors import ErrorContext, malformed_stream_error
from xcsh.providers.base import ResponseDone, StreamEvent, TextChunk, ThinkingChunk


class Received:
    """What one stream has delivered so far; an adapter's ``_events`` fills it in.

    Attributes:
        text: answer text pieces, in order.
        thinking: reasoning text pieces, in order.
        started: the server accepted the request and the answer began to
            stream (a failure now is a mid-stream one).
        message: the complete answer, set once the stream has ended.
    """

    def __init__(self) -> None:
        self.text: list[str] = []
        self.thinking: list[str] = []
        self.started = False
        self.message: AssistantMessage | None = None

    def text_delta(self, piece: str) -> TextChunk:
        """Record an answer text piece and return its event."""
        self.text.append(piece)
        return TextChunk(text=piece)

    def thinking_delta(self, piece: str) -> ThinkingChunk:
        """Record a reasoning text piece and return its event."""
        self.thinking.append(piece)
        return ThinkingChunk(text=piece)


class StreamingAdapter:
    """Settings, error context and the streaming frame every adapter shares.

    Args:
        model: model id.
        max_tokens: output cap when a request sets none.
        thinking: ask for reasoning on every request.
        key_env: environment variable holding the API key (for error messages).
        base_url: a server other than the provider's default, or None.
        max_retries: SDK retries on rate limits and 5xx (for error messages).
    """

    name: str
    supports_forced_tool_choice: bool = True
    compatible_server: bool = False

    def __init__(
        self,
        *,
        model: str,
        max_tokens: int | None,
        thinking: bool,
        key_env: str,
        base_url: str | None,
        max_retries: int,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self.thinking = thinking
        self._ctx = ErrorContext(
            provider=self.name,
            model=model,
            key_env=key_env,
            base_url=base_url,
            max_retries=max_retries,
        )

    async def stream(
        self, request: ModelRequest, *, cancel: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """Stream one answer; see :meth:`xcsh.providers.Provider.stream`.

        Raises:
            ProviderError: the server refused or failed the request after
                retries, the answer it streamed was unusable or malformed (a
                chunk that is not JSON, events out of order), or the stream
                ended before the answer was complete.
        """
        received = Received()
        try:
            async with contextlib.aclosing(self._events(request, cancel, received)) as events:
                async for event in events:
                    yield event
        except Cancelled:
            yield ResponseDone(
                message=aborted(self.name, self.model, received.text, received.thinking)
            )
            return
        except Exception as exc:
            error = self._provider_error(exc, mid_stream=received.started)
            if error is None:  # the SDK choked on what the server sent
                error = malformed_stream_error(self._ctx, exc)
            raise error from exc
        if received.message is None:
            raise ProviderError(
                f"{self.name}: the stream ended without a completed response", retryable=True
            )
        yield ResponseDone(message=received.message)

    def _events(
        self, request: ModelRequest, cancel: asyncio.Event | None, received: Received
    ) -> AsyncGenerator[StreamEvent, None]:
        """Send ``request`` and yield its deltas, recording them in ``received``.

        Must set ``received.started`` once the answer begins streaming and
        ``received.message`` once it is complete (left None, the stream ends
        with a retryable :class:`ProviderError`), and raise
        :class:`~xcsh.providers._cancel.Cancelled` when ``cancel`` is set
        (``race``/``until_cancelled`` do). Never yields :class:`ResponseDone`.
        """
        raise NotImplementedError

    def _provider_error(self, exc: Exception, *, mid_stream: bool) -> ProviderError | None:
        """The :class:`ProviderError` for an SDK exception, or None when it is not one of the SDK's.

        With None, the answer counts as a malformed stream.
        """
        raise NotImplementedError
