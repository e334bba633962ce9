"""Anthropic Messages API adapter (streaming), on the official ``anthropic`` SDK.

Import this module only when the provider is used: it loads the SDK.
Retries on 408/409/429/5xx/529 are the SDK's own (``max_retries``, honouring
``retry-after``); what still fails is raised as :class:`~xcsh.core.ProviderError`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

import anthropic
import httpx2
from anthropic.types import Message as ApiMessage

from xcsh.core import (
    AssistantMessage,
    ModelRequest,
    ProviderError,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    json_object,
)
from xcsh.providers._adapter import Received, StreamingAdapter
from xcsh.providers._anthropic_request import StreamParams, build_params
from xcsh.providers._cancel import race, until_cancelled
from xcsh.providers._errors import connection_error, status_error
from xcsh.providers.base import StreamEvent
from xcsh.providers.pricing import with_cost

DEFAULT_MAX_TOKENS = 8192
DEFAULT_THINKING_BUDGET = 4096

_STOP: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "error",
}


class AnthropicProvider(StreamingAdapter):
    """Claude models through the Messages API.

    Args:
        model: model id, e.g. ``"claude-sonnet-4-6"``.
        api_key: the key (``ANTHROPIC_API_KEY``).
        base_url: another endpoint speaking the Messages API, or None.
        max_tokens: output cap when a request sets none.
        thinking: extended thinking on every request (besides ``request.thinking``),
            except those that force a tool.
        thinking_budget: ``budget_tokens`` for extended thinking.
        max_retries: SDK retries on rate limits, overloads and 5xx.
        prompt_cache: ask the API to cache the conversation prefix
            (top-level ``cache_control``); cache reads cost a tenth of input.
        http_client: an ``httpx2.AsyncClient`` to send through (tests inject a
            mock transport here).
    """

    name = "anthropic"
    max_tokens: int

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        thinking: bool = False,
        thinking_budget: int = DEFAULT_THINKING_BUDGET,
        max_retries: int = 3,
        prompt_cache: bool = True,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            model=model,
            max_tokens=max_tokens,
            thinking=thinking,
            key_env="ANTHROPIC_API_KEY",
            base_url=base_url,
            max_retries=max_retries,
        )
        self.prompt_cache = prompt_cache
        self.thinking_budget = thinking_budget
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=max_retries, http_client=http_client
        )

    def request_params(self, request: ModelRequest) -> StreamParams:
        """The keyword arguments sent to ``messages.stream`` for ``request``."""
        return build_params(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            thinking=request.thinking or self.thinking,
            thinking_budget=self.thinking_budget,
            prompt_cache=self.prompt_cache,
        )

    async def _events(
        self, request: ModelRequest, cancel: asyncio.Event | None, received: Received
    ) -> AsyncGenerator[StreamEvent, None]:
        async with contextlib.AsyncExitStack() as stack:
            manager = self._client.messages.stream(**self.request_params(request))
            stream = await race(stack.enter_async_context(manager), cancel)
            received.started = True
            async for event in until_cancelled(stream.__aiter__(), cancel):
                if event.type == "text":
                    yield received.text_delta(event.text)
                elif event.type == "thinking":
                    yield received.thinking_delta(event.thinking)
            final = stream.current_message_snapshot
        received.message = self._message(final)

    def _provider_error(self, exc: Exception, *, mid_stream: bool) -> ProviderError | None:
        if isinstance(exc, anthropic.APIStatusError):
            return status_error(self._ctx, exc.status_code, exc.body, exc.message)
        if isinstance(exc, anthropic.APIConnectionError):
            timeout = isinstance(exc, anthropic.APITimeoutError)
            detail = exc.message.rstrip(".")
            if exc.__cause__ is not None:
                detail += f" ({exc.__cause__})"
            return connection_error(self._ctx, detail, timeout=timeout, mid_stream=mid_stream)
        if isinstance(exc, httpx2.TransportError):  # the SDK lets body-read errors through
            return connection_error(
                self._ctx,
                str(exc),
                timeout=isinstance(exc, httpx2.TimeoutException),
                mid_stream=True,
            )
        if isinstance(exc, anthropic.AnthropicError):
            return ProviderError(f"anthropic: {exc}")
        if isinstance(exc, ValueError) and "tool parameter JSON" in str(exc):
            return ProviderError(
                f"anthropic: model {self.model!r} sent malformed tool arguments: {exc}",
                retryable=True,
            )
        return None

    def _message(self, final: ApiMessage) -> AssistantMessage:
        content: list[TextContent | ThinkingContent | ToolCall] = []
        for block in final.content:
            if block.type == "text":
                content.append(TextContent(block.text))
            elif block.type == "thinking":
                content.append(ThinkingContent(thinking=block.thinking, signature=block.signature))
            elif block.type == "tool_use":
                arguments = json_object(block.input) or {}
                content.append(ToolCall(id=block.id, name=block.name, arguments=arguments))
        usage = final.usage
        counts = Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_input_tokens or 0,
            cache_write_tokens=usage.cache_creation_input_tokens or 0,
        )
        stop = _STOP.get(final.stop_reason or "end_turn", "stop")
        error = "the model refused to answer" if final.stop_reason == "refusal" else None
        return AssistantMessage(
            content=content,
            stop_reason=stop,
            usage=with_cost(counts, self.model),
            provider=self.name,
            model=self.model,
            error=error,
        )
