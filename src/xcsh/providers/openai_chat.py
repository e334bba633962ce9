"""OpenAI Chat Completions adapter (streaming), on the official ``openai`` SDK.

Works with any OpenAI-compatible server through ``base_url`` (llama.cpp's
``llama-server``, vLLM, Ollama). Import this module only when the provider is
used: it loads the SDK. Retries on 408/409/429/5xx are the SDK's own.

Against a ``--base-url`` server (``compatible_server``), an answer without
structured calls whose text holds calls of offered tools (one JSON call or
a list, ``<tool_call>`` blocks, fenced JSON) is read as those calls
(``text_tool_calls``; see :func:`~xcsh.providers._common.text_tool_calls`).

On a forced turn the request also carries, as ``response_format``, the JSON
Schema of a call of the allowed tools, so a server that constrains its
output to a schema (llama.cpp) can write nothing else; the call comes back
as JSON text and is read as above. A server that refuses the schema with
HTTP 400 is asked again without it, and never with it again.

Malformed tool-call arguments (not a JSON object, as small local models
often send) do not fail the answer: the call carries the text in
``ToolCall.invalid_arguments`` and the agent loop answers it with an error
result the model can correct, rather than running a tool with arguments the
model did not mean.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Annotated

import openai
from openai.lib.streaming.chat import ParsedChatCompletionSnapshot
from openai.types.completion_usage import CompletionUsage
from pydantic import BaseModel, BeforeValidator

from xcsh.core import (
    AssistantMessage,
    ModelRequest,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from xcsh.providers._adapter import Received
from xcsh.providers._cancel import race, until_cancelled
from xcsh.providers._common import parse_tool_call, text_tool_calls
from xcsh.providers._openai_chat_request import StreamParams, build_params
from xcsh.providers._openai_common import OpenAIAdapter
from xcsh.providers.base import StreamEvent
from xcsh.providers.pricing import with_cost

if TYPE_CHECKING:
    import httpx2

_SCHEMA_REFUSED = re.compile(r"schema|grammar|response_format|\$ref", re.IGNORECASE)
"""A 400 whose text names one of these refused the output constraint."""

_STOP: dict[str, StopReason] = {
    "stop": "stop",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "length",
    "content_filter": "error",
}


class OpenAIChatProvider(OpenAIAdapter):
    """Models behind the Chat Completions API.

    Args:
        model: model id (for a local server, whatever name it serves).
        api_key: the key (``OPENAI_API_KEY``); may be None with ``base_url``.
        base_url: an OpenAI-compatible server, e.g. ``http://localhost:8080/v1``.
        max_tokens: output cap when a request sets none (None: server default).
        thinking: ask for reasoning (``reasoning_effort``) on every request.
        supports_forced_tool_choice: False for servers that reject a named
            tool choice; a forced tool is then sent as ``"required"``.
        text_tool_calls: with ``base_url``, read calls of offered tools
            written in an answer's text as calls (:func:`text_tool_calls`).
        temperature: sampling temperature sent on every request to a
            ``base_url`` server (None: the server's default); never sent
            without ``base_url``.
        max_retries: SDK retries on rate limits and 5xx.
        http_client: an ``httpx2.AsyncClient`` to send through (tests inject a
            mock transport here).

    Raises:
        ProviderError: no key and no ``base_url``.
    """

    name = "openai"

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        max_tokens: int | None = None,
        thinking: bool = False,
        supports_forced_tool_choice: bool = True,
        text_tool_calls: bool = True,
        temperature: float | None = None,
        max_retries: int = 3,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        self.base_url = base_url
        self.supports_forced_tool_choice = supports_forced_tool_choice
        self.compatible_server = base_url is not None
        self.text_tool_calls = text_tool_calls and self.compatible_server
        self.temperature = temperature if self.compatible_server else None
        # a forced turn carries the JSON Schema of the allowed calls until the
        # server refuses it once (HTTP 400); the answer is read from its text
        self.constrain_forced = self.text_tool_calls
        super().__init__(
            model=model,
            api_key=api_key,
            base_url=base_url,
            max_tokens=max_tokens,
            thinking=thinking,
            max_retries=max_retries,
            http_client=http_client,
        )

    async def server_window(self) -> int | None:
        """The context window a ``--base-url`` server reports for its model, or None.

        Read from ``GET /models``: llama.cpp's ``meta.n_ctx``, vLLM's
        ``max_model_len``. None for OpenAI itself, a server that reports
        neither, or one that does not answer within 5 seconds.
        """
        if not self.compatible_server:
            return None
        try:
            page = await self._client.with_options(timeout=5, max_retries=0).models.list()
        except openai.OpenAIError:
            return None
        for model in page.data:
            window = _ServedModel.model_validate(model.model_extra or {}).window()
            if window is not None:
                return window
        return None

    def request_params(self, request: ModelRequest) -> StreamParams:
        """The keyword arguments sent to ``chat.completions.stream`` for ``request``."""
        return build_params(
            request,
            model=self.model,
            max_tokens=self.max_tokens,
            thinking=request.thinking or self.thinking,
            forced_tool_choice=self.supports_forced_tool_choice,
            compatible_server=self.base_url is not None,
            constrain_forced=self.constrain_forced,
            temperature=self.temperature,
        )

    async def _events(
        self, request: ModelRequest, cancel: asyncio.Event | None, received: Received
    ) -> AsyncGenerator[StreamEvent, None]:
        async with contextlib.AsyncExitStack() as stack:
            params = self.request_params(request)
            try:
                manager = self._client.chat.completions.stream(**params)
                stream = await race(stack.enter_async_context(manager), cancel)
            except openai.BadRequestError as exc:
                if "response_format" not in params or not _SCHEMA_REFUSED.search(str(exc)):
                    raise
                # the server cannot constrain output to a schema: ask as before
                self.constrain_forced = False
                params = self.request_params(request)
                manager = self._client.chat.completions.stream(**params)
                stream = await race(stack.enter_async_context(manager), cancel)
            received.started = True
            async for event in until_cancelled(stream.__aiter__(), cancel):
                if event.type != "chunk" or not event.chunk.choices:
                    continue
                delta = event.chunk.choices[0].delta
                # llama.cpp, vLLM and DeepSeek stream reasoning as `reasoning_content`.
                reasoning = getattr(delta, "reasoning_content", None)
                if isinstance(reasoning, str) and reasoning:
                    yield received.thinking_delta(reasoning)
                if delta.content:
                    yield received.text_delta(delta.content)
            snapshot = stream.current_completion_snapshot
        offered = [t.name for t in request.tools] if self.text_tool_calls else []
        received.message = self._message(snapshot, received.thinking, offered)

    def _message(
        self, snapshot: ParsedChatCompletionSnapshot, thinking: list[str], offered: list[str]
    ) -> AssistantMessage:
        content: list[TextContent | ThinkingContent | ToolCall] = []
        if thinking:
            content.append(ThinkingContent(thinking="".join(thinking)))
        # ids xcsh gives (a server sent none, or the call was written as text) are
        # unique in the session: a result must name its own call, not one of an earlier turn
        answer = secrets.token_hex(4)
        finish: str | None = None
        if snapshot.choices:
            choice = snapshot.choices[0]
            finish = choice.finish_reason
            if choice.message.content:
                content.append(TextContent(choice.message.content))
            for index, call in enumerate(choice.message.tool_calls or []):
                # Some local servers send no id; the result must still name its call.
                call_id = call.id or f"call_{answer}_{index}"
                content.append(
                    parse_tool_call(call_id, call.function.name, call.function.arguments)
                )
        calls = [b for b in content if isinstance(b, ToolCall)]
        texts = [b for b in content if isinstance(b, TextContent)]
        if offered and not calls and len(texts) == 1:
            read, rest = text_tool_calls(texts[0].text, offered, f"call_text_{answer}_")
            if read:
                kept = [TextContent(rest)] if rest else []
                content = [b for b in content if b is not texts[0]] + kept + list(read)
        stop = _STOP.get(finish or "stop", "stop")
        if stop == "stop" and any(isinstance(b, ToolCall) for b in content):
            stop = "tool_use"  # some local servers finish tool calls with "stop"
        return AssistantMessage(
            content=content,
            stop_reason=stop,
            usage=with_cost(_usage(snapshot.usage), self.model),
            provider=self.name,
            model=self.model,
            error="the response was withheld by a content filter" if stop == "error" else None,
        )


def _int_or_none(value: object) -> object:
    return value if isinstance(value, int) else None


def _object_or_none(value: object) -> object:
    return value if isinstance(value, dict) else None


_Count = Annotated[int | None, BeforeValidator(_int_or_none)]
"""A count a server reports; any other value there reads as absent."""


class _ServerMeta(BaseModel):
    """llama.cpp's ``meta`` of a ``/models`` entry (other keys ignored)."""

    n_ctx: _Count = None


class _ServedModel(BaseModel):
    """What a compatible server adds to a ``/models`` entry beyond OpenAI's fields.

    llama.cpp's ``meta``, vLLM's ``max_model_len`` (other keys ignored).
    """

    meta: Annotated[_ServerMeta | None, BeforeValidator(_object_or_none)] = None
    max_model_len: _Count = None

    def window(self) -> int | None:
        """The context window in tokens, or None when the entry reports none.

        llama.cpp's ``meta.n_ctx`` when ``meta`` is there, else vLLM's ``max_model_len``.
        """
        value = self.meta.n_ctx if self.meta is not None else self.max_model_len
        return value if value is not None and value > 0 else None


def _usage(usage: CompletionUsage | None) -> Usage:
    """Token counts with cached prompt tokens split out of ``input_tokens``."""
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    return Usage(
        input_tokens=usage.prompt_tokens - cached,
        output_tokens=usage.completion_tokens,
        cache_read_tokens=cached,
    )
