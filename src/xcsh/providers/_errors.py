"""Turn provider HTTP failures into :class:`~xcsh.core.ProviderError` with a fix in the text.

The SDKs have already retried rate limits, overloads and 5xx answers
(``max_retries``) when these functions run, so a retryable error here means
"try again later", not "try again now".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict

from xcsh.core import ProviderError


@dataclass(frozen=True, kw_only=True)
class ErrorContext:
    """What an error message needs to name the fix.

    Args:
        provider: display name (``"anthropic"``, ``"openai"``).
        model: the model id requested.
        key_env: environment variable holding the API key.
        base_url: the server URL when not the provider's default, else None.
        max_retries: how many times the SDK retried before giving up.
    """

    provider: str
    model: str
    key_env: str
    base_url: str | None
    max_retries: int


def _text_or_none(value: object) -> object:
    return value if isinstance(value, str) else None


def _object_or_text(value: object) -> object:
    return value if isinstance(value, dict | str) else None


_Text = Annotated[str | None, BeforeValidator(_text_or_none)]
"""A string field of an error body; any other value there reads as absent."""


class _ErrorObject(BaseModel):
    """The part of an error body that says what went wrong (other keys ignored)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    message: _Text = None
    type: _Text = None


class _ErrorBody(_ErrorObject):
    """A provider's JSON error body, in any of the shapes servers send.

    ``{"error": {"message": ..., "type": ...}}`` (Anthropic, OpenAI),
    ``{"error": "text"}`` or ``{"message": ...}`` (some compatible servers).
    """

    error: Annotated[_ErrorObject | str | None, BeforeValidator(_object_or_text)] = None

    @property
    def inner(self) -> _ErrorObject | str | None:
        """What ``error`` holds, or the body itself when it has no ``error`` key."""
        return self.error if "error" in self.model_fields_set else self


def _error_body(body: object) -> _ErrorBody | None:
    """``body`` read as an error body; ``None`` when it is not a JSON object."""
    return _ErrorBody.model_validate(body) if isinstance(body, dict) else None


def api_message(body: object, fallback: str) -> str:
    """The provider's own error text from a JSON error body, or ``fallback``.

    Args:
        body: the parsed error body (any value; only a JSON object can carry a message).
        fallback: the text returned when the body names none.
    """
    parsed = _error_body(body)
    if parsed is None:
        return fallback
    inner = parsed.inner
    if isinstance(inner, _ErrorObject) and inner.message is not None:
        return inner.message
    if isinstance(inner, str):
        return inner
    return parsed.message if parsed.message is not None else fallback


_ERROR_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
"""Anthropic's error types, for errors sent inside a 200 stream (no retry happened)."""


def _error_type(body: object) -> str | None:
    parsed = _error_body(body)
    inner = parsed.inner if parsed is not None else None
    return inner.type if isinstance(inner, _ErrorObject) else None


def status_error(ctx: ErrorContext, status: int, body: object, fallback: str) -> ProviderError:
    """A :class:`ProviderError` for an HTTP error answer or an error event in a stream.

    Args:
        ctx: names for the message.
        status: the HTTP status code (200 for an error event inside a stream;
            the status is then taken from the error's type, e.g. 529 for
            ``overloaded_error``).
        body: the parsed error body (or text), kept on the error.
        fallback: the SDK's message, used when the body has none.
    """
    detail = api_message(body, fallback)
    name, model = ctx.provider, ctx.model
    local = f" at {ctx.base_url}" if ctx.base_url else ""
    retries = f" after {ctx.max_retries} retries"
    if status < 400:
        status = _ERROR_TYPE_STATUS.get(_error_type(body) or "", 500)
        retries = " mid-stream"
    retryable = False
    if status in (401, 403):
        hint = f"Set {ctx.key_env} to a valid key"
        if ctx.provider.startswith("openai"):
            hint += " (or pass --base-url for a local OpenAI-compatible server)"
        message = f"{name}{local} rejected the API key ({status}): {detail}. {hint}."
    elif status == 404:
        where = " and --base-url (it usually ends in /v1)" if ctx.base_url else ""
        message = (
            f"{name}{local}: model {model!r} not found (404): {detail}. "
            f"Check --model (or `model` in settings.toml){where}."
        )
    elif status == 429:
        retryable = True
        message = (
            f"{name}: rate limited (429){retries}: {detail}. "
            "Wait a minute and try again, or check your plan's limits."
        )
    elif status == 529 or status >= 500:
        retryable = True
        kind = "overloaded" if status == 529 or "overload" in detail.lower() else "failing"
        message = (
            f"{name}{local}: the server is {kind} ({status}){retries}: {detail}. Try again later."
        )
    elif status == 413:
        message = f"{name} refused the request as too large (413): {detail}."
    else:
        message = f"{name} refused the request ({status}): {detail}"
    return ProviderError(message, status=status, body=body, retryable=retryable)


def connection_error(
    ctx: ErrorContext, detail: str, *, timeout: bool, mid_stream: bool = False
) -> ProviderError:
    """A :class:`ProviderError` for a network failure or timeout (retryable).

    Args:
        ctx: names for the message.
        detail: the SDK's or transport's message.
        timeout: the failure was a timeout.
        mid_stream: the answer had begun streaming (the SDKs do not retry then).
    """
    api = "the Anthropic API" if ctx.provider == "anthropic" else "the OpenAI API"
    where = ctx.base_url or api
    if mid_stream:
        what, when = "lost the connection to", " mid-stream"
    else:
        what = "timed out talking to" if timeout else "cannot connect to"
        when = f" after {ctx.max_retries} retries"
    hint = "Is the server running?" if ctx.base_url else "Check your network connection."
    detail = detail.rstrip(".") or "no details"
    return ProviderError(f"{ctx.provider}: {what} {where}{when}: {detail}. {hint}", retryable=True)


def malformed_stream_error(ctx: ErrorContext, exc: BaseException) -> ProviderError:
    """A :class:`ProviderError` for a stream the SDK could not parse (one line).

    A chunk that is not JSON (``data: {not json``) or events out of order (the
    Anthropic SDK asserts on those) mean the server at the other end is not
    speaking the API, or broke off mid-answer; retrying later may help.

    Args:
        ctx: names for the message.
        exc: what the SDK raised; its type and first line go in the message.
    """
    first = (str(exc).strip().splitlines() or [""])[0]
    if len(first) > 200:
        first = first[:197] + "..."
    detail = type(exc).__name__ + (f": {first}" if first else "")
    if ctx.base_url:
        where = f" at {ctx.base_url}"
        api = "Anthropic Messages" if ctx.provider == "anthropic" else "OpenAI"
        hint = f"Check that --base-url points at a server speaking the {api} API."
    else:
        where, hint = "", "Try again later."
    return ProviderError(
        f"{ctx.provider}{where}: the server sent a malformed stream ({detail}). {hint}",
        retryable=True,
    )
