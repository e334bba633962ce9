"""OpenAI Responses API adapter (streaming), on the official ``openai`` SDK.

Import this module only when the provider is used: it loads the SDK.
Retries on 408/409/429/5xx are the SDK's own. Malformed tool-call arguments
become a call the agent loop answers with an error, as in the Chat adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator

from openai.types.responses import Response, ResponseUsage

from xcsh.core import (
    AssistantMessage,
    ModelRequest,
    ProviderError,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from xcsh.providers._adapter import Received
from xcsh.providers._cancel import race, until_cancelled
from xcsh.providers._common import parse_tool_call
from xcsh.providers._openai_common import OpenAIAdapter
from xcsh.providers._openai_responses_request import CreateParams, build_params
from xcsh.providers.base import StreamEvent
from xcsh.providers.pricing import with_cost


class OpenAIResponsesProvider(OpenAIAdapter):
    """Models behind the Responses API.

    Args:
        model: model id, e.g. ``"gpt-5.1"``.
        api_key: the key (``OPENAI_API_KEY``); may be None with ``base_url``.
        base_url: another server speaking the Responses API, or None.
        max_tokens: ``max_output_tokens`` when a request sets none.
        thinking: ask for reasoning (and its summary) on every request.
        max_retries: SDK retries on rate limits and 5xx.
        http_client: an ``httpx2.AsyncClient`` to send through (tests inject a
            mock transport here).

    Raises:
        ProviderError: no key and no ``base_url``.
    """

    name = "openai-responses"

    def request_params(self, request: ModelRequest) -> CreateParams:
        """The keyword arguments for ``responses.create`` (besides ``stream``)."""
        return build_params(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            thinking=request.thinking or self.thinking,
        )

    async def _events(
        self, request: ModelRequest, cancel: asyncio.Event | None, received: Received
    ) -> AsyncGenerator[StreamEvent, None]:
        final: Response | None = None
        async with contextlib.AsyncExitStack() as stack:
            created = self._client.responses.create(stream=True, **self.request_params(request))
            events = await race(created, cancel)
            stack.push_async_callback(events.close)
            received.started = True
            async for event in until_cancelled(events.__aiter__(), cancel):
                if event.type == "response.output_text.delta":
                    yield received.text_delta(event.delta)
                elif event.type == "response.reasoning_summary_text.delta":
                    yield received.thinking_delta(event.delta)
                elif event.type in ("response.completed", "response.incomplete"):
                    final = event.response
                elif event.type == "response.failed":
                    raise self._failed(event.response)
                elif event.type == "error":
                    raise ProviderError(
                        f"{self.name}: {event.message} ({event.code})", retryable=True
                    )
        if final is not None:
            received.message = self._message(final)

    def _failed(self, response: Response) -> ProviderError:
        error = response.error
        detail = f"{error.message} ({error.code})" if error else "no details given"
        return ProviderError(f"{self.name}: the response failed: {detail}", retryable=True)

    def _message(self, response: Response) -> AssistantMessage:
        content: list[TextContent | ThinkingContent | ToolCall] = []
        for item in response.output:
            if item.type == "reasoning":
                summary = "".join(part.text for part in item.summary)
                encrypted = item.encrypted_content
                if summary or encrypted:
                    content.append(
                        ThinkingContent(thinking=summary, signature=encrypted, id=item.id)
                    )
            elif item.type == "message":
                for part in item.content:
                    if part.type == "output_text":
                        content.append(TextContent(part.text))
            elif item.type == "function_call":
                content.append(parse_tool_call(item.call_id, item.name, item.arguments))
        stop: StopReason = "stop"
        error: str | None = None
        if any(isinstance(b, ToolCall) for b in content):
            stop = "tool_use"
        if response.status == "incomplete":
            reason = response.incomplete_details.reason if response.incomplete_details else None
            if reason == "content_filter":
                stop, error = "error", "the response was withheld by a content filter"
            else:
                stop = "length"
        return AssistantMessage(
            content=content,
            stop_reason=stop,
            usage=with_cost(_usage(response.usage), self.model),
            provider=self.name,
            model=self.model,
            error=error,
        )


def _usage(usage: ResponseUsage | None) -> Usage:
    """Token counts with cached input tokens split out of ``input_tokens``."""
    if usage is None:
        return Usage()
    details = usage.input_tokens_details
    cached = getattr(details, "cached_tokens", 0) or 0
    return Usage(
        input_tokens=usage.input_tokens - cached,
        output_tokens=usage.output_tokens,
        cache_read_tokens=cached,
    )
