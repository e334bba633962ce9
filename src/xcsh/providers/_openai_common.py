"""What the two OpenAI adapters share: the client, settings and SDK error translation."""

from __future__ import annotations

from typing import TYPE_CHECKING

import openai

from xcsh.core import ProviderError
from xcsh.providers._adapter import StreamingAdapter
from xcsh.providers._errors import ErrorContext, connection_error, status_error

if TYPE_CHECKING:
    import httpx2

LOCAL_API_KEY = "sk-no-key-required"
"""Sent to a ``--base-url`` server when no key is configured (local servers ignore it)."""


def make_client(
    *,
    api_key: str | None,
    base_url: str | None,
    max_retries: int,
    http_client: httpx2.AsyncClient | None,
) -> openai.AsyncOpenAI:
    """An ``AsyncOpenAI`` client; without a key, only a ``base_url`` server is usable.

    Raises:
        ProviderError: no key and no base URL (the SDK would refuse later).
    """
    if not api_key:
        if not base_url:
            raise ProviderError(
                "openai: no API key. Set OPENAI_API_KEY, or pass --base-url for a local "
                "OpenAI-compatible server."
            )
        api_key = LOCAL_API_KEY
    return openai.AsyncOpenAI(
        api_key=api_key, base_url=base_url, max_retries=max_retries, http_client=http_client
    )


def translate(ctx: ErrorContext, exc: openai.OpenAIError, *, mid_stream: bool) -> ProviderError:
    """The :class:`ProviderError` for an SDK exception (the caller chains it with ``from``).

    ``mid_stream``: the answer had begun streaming when it happened.
    """
    if isinstance(exc, openai.APIStatusError):
        return status_error(ctx, exc.status_code, exc.body, exc.message)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = exc.message.rstrip(".")
        if cause is not None:
            detail += f" ({cause})"
        timeout = isinstance(exc, openai.APITimeoutError)
        return connection_error(ctx, detail, timeout=timeout, mid_stream=mid_stream)
    if isinstance(exc, openai.APIError):
        # An error event inside a stream (no HTTP status): keep the provider's text.
        return ProviderError(f"{ctx.provider}: {exc.message}", body=exc.body, retryable=True)
    return ProviderError(f"{ctx.provider}: {exc}")


class OpenAIAdapter(StreamingAdapter):
    """Settings, client and error translation for both OpenAI APIs.

    Args:
        model: model id.
        api_key: the key (``OPENAI_API_KEY``); may be None with ``base_url``.
        base_url: an OpenAI-compatible server, or None.
        max_tokens: output cap when a request sets none (None: server default).
        thinking: ask for reasoning on every request.
        max_retries: SDK retries on rate limits and 5xx.
        http_client: an ``httpx2.AsyncClient`` to send through, or None.

    Raises:
        ProviderError: no key and no ``base_url``.
    """

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str | None = None,
        max_tokens: int | None = None,
        thinking: bool = False,
        max_retries: int = 3,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        super().__init__(
            model=model,
            max_tokens=max_tokens,
            thinking=thinking,
            key_env="OPENAI_API_KEY",
            base_url=base_url,
            max_retries=max_retries,
        )
        self._client = make_client(
            api_key=api_key, base_url=base_url, max_retries=max_retries, http_client=http_client
        )

    def _provider_error(self, exc: Exception, *, mid_stream: bool) -> ProviderError | None:
        if isinstance(exc, openai.OpenAIError):
            return translate(self._ctx, exc, mid_stream=mid_stream)
        return None
