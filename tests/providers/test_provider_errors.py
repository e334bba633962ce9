"""SDK failures become ProviderError with the status, the body and a fix in the message.

Rate limits and overloads are retried by the SDKs themselves (``max_retries``);
``retry-after-ms: 1`` keeps those retries instant here.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from provider_support import Exchange, error, simple_request, sse

from xcsh.core import ProviderError
from xcsh.providers import ProviderSettings, ResponseDone, create_provider

FAST = {"retry-after-ms": "1"}


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_01"}


def openai_error(message: str, code: str | None, kind: str = "invalid_request_error") -> Any:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def make(provider: str, ex: Exchange, **extra: Any) -> Any:
    values: dict[str, Any] = {
        "provider": provider,
        "model": {"anthropic": "claude-sonnet-4-6"}.get(provider, "gpt-5.1"),
        "api_key": "k",
        "max_retries": 1,
        **extra,
    }
    return create_provider(ProviderSettings(**values), http_client=ex.client())


async def run(provider: Any) -> Any:
    events = [e async for e in provider.stream(simple_request())]
    assert isinstance(events[-1], ResponseDone)
    return events[-1].message


async def failure(provider: Any) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await run(provider)
    assert info.value.__cause__ is not None  # chained from the SDK's exception
    return info.value


async def test_anthropic_bad_key(exchange: Any) -> None:
    ex = exchange(error(401, anthropic_error("authentication_error", "invalid x-api-key")))
    err = await failure(make("anthropic", ex))
    assert err.status == 401 and not err.retryable
    assert "invalid x-api-key" in str(err)
    assert "Set ANTHROPIC_API_KEY to a valid key" in str(err)
    assert len(ex.requests) == 1  # not retried


async def test_openai_bad_key_mentions_base_url(exchange: Any) -> None:
    body = openai_error("Incorrect API key provided: k.", "invalid_api_key")
    err = await failure(make("openai", exchange(error(401, body))))
    assert err.status == 401
    assert "Incorrect API key provided" in str(err)
    assert "Set OPENAI_API_KEY" in str(err) and "--base-url" in str(err)
    assert err.body["code"] == "invalid_api_key"


@pytest.mark.parametrize(
    ("provider", "body", "text"),
    [
        (
            "anthropic",
            anthropic_error("not_found_error", "model: claude-nope"),
            "model: claude-nope",
        ),
        (
            "openai",
            openai_error("The model `gpt-nope` does not exist.", "model_not_found"),
            "does not exist",
        ),
        (
            "openai-responses",
            openai_error("The model `gpt-nope` does not exist.", "model_not_found"),
            "does not exist",
        ),
    ],
)
async def test_unknown_model(provider: str, body: Any, text: str, exchange: Any) -> None:
    err = await failure(make(provider, exchange(error(404, body)), model="gpt-nope"))
    assert err.status == 404 and not err.retryable
    assert "model 'gpt-nope' not found (404)" in str(err)
    assert text in str(err) and "Check --model" in str(err)


async def test_local_server_404_points_at_base_url(exchange: Any) -> None:
    ex = exchange(error(404, {"error": {"message": "File Not Found", "code": 404}}))
    provider = make("openai", ex, base_url="http://localhost:8080", api_key=None)
    err = await failure(provider)
    assert "http://localhost:8080" in str(err) and "--base-url (it usually ends in /v1)" in str(err)
    assert ex.requests[0].headers["authorization"] == "Bearer sk-no-key-required"


async def test_refused_request_includes_provider_message(exchange: Any) -> None:
    text = "Thinking may not be enabled when tool_choice forces tool use."
    ex = exchange(error(400, anthropic_error("invalid_request_error", text)))
    err = await failure(make("anthropic", ex))
    assert str(err) == f"anthropic refused the request (400): {text}"
    assert err.status == 400 and not err.retryable


@pytest.mark.parametrize(
    ("provider", "body", "fixture"),
    [
        (
            "anthropic",
            anthropic_error("rate_limit_error", "Number of request tokens has exceeded your limit"),
            "anthropic_text.sse",
        ),
        (
            "openai",
            openai_error("Rate limit reached for gpt-5.1", "rate_limit_exceeded", "requests"),
            "openai_chat_tool_use.sse",
        ),
        (
            "openai-responses",
            openai_error("Rate limit reached for gpt-5.1", "rate_limit_exceeded", "requests"),
            "openai_responses_tool_use.sse",
        ),
    ],
)
async def test_rate_limit_then_success(
    provider: str, body: Any, fixture: str, exchange: Any
) -> None:
    ex = exchange(error(429, body, **FAST), sse(fixture))
    message = await run(make(provider, ex))
    assert message.stop_reason in ("stop", "tool_use")
    assert len(ex.requests) == 2
    assert ex.bodies()[0] == ex.bodies()[1]


async def test_rate_limit_that_does_not_clear(exchange: Any) -> None:
    body = anthropic_error("rate_limit_error", "slow down")
    ex = exchange(error(429, body, **FAST), error(429, body, **FAST))
    err = await failure(make("anthropic", ex))
    assert err.status == 429 and err.retryable
    assert "rate limited (429) after 1 retries: slow down" in str(err)
    assert len(ex.requests) == 2


async def test_overloaded_529(exchange: Any) -> None:
    body = anthropic_error("overloaded_error", "Overloaded")
    ex = exchange(error(529, body, **FAST), error(529, body, **FAST))
    err = await failure(make("anthropic", ex))
    assert err.status == 529 and err.retryable
    assert "the server is overloaded (529) after 1 retries: Overloaded" in str(err)


async def test_overloaded_then_success(exchange: Any) -> None:
    body = anthropic_error("overloaded_error", "Overloaded")
    ex = exchange(error(529, body, **FAST), sse("anthropic_text.sse"))
    message = await run(make("anthropic", ex))
    assert message.text == "Hello!"


async def test_overloaded_inside_the_stream(exchange: Any) -> None:
    head = sse("anthropic_text.sse").content.decode().split("event: content_block_start")[0]
    event = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    tail = f"event: error\ndata: {json.dumps(event)}\n\n"
    answer = httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, content=(head + tail).encode()
    )
    err = await failure(make("anthropic", exchange(answer)))
    assert (
        str(err)
        == "anthropic: the server is overloaded (529) mid-stream: Overloaded. Try again later."
    )
    assert err.retryable and err.status == 529


async def test_server_error_500(exchange: Any) -> None:
    body = openai_error("The server had an error", None, "server_error")
    ex = exchange(error(500, body, **FAST), error(500, body, **FAST))
    err = await failure(make("openai-responses", ex))
    assert err.status == 500 and err.retryable
    assert "the server is failing (500)" in str(err)


async def test_connection_refused(exchange: Any) -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("Connection refused", request=request)

    settings = ProviderSettings(
        provider="openai", model="local", base_url="http://localhost:9/v1", max_retries=0
    )
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    provider = create_provider(settings, http_client=client)
    err = await failure(provider)
    assert err.retryable and err.status is None
    assert "cannot connect to http://localhost:9/v1" in str(err)
    assert "Is the server running?" in str(err)


class DroppedStream(httpx2.AsyncByteStream):
    """Sends the first events of a recorded stream, then the connection resets."""

    def __init__(self, head: bytes) -> None:
        self.head = head

    async def __aiter__(self) -> Any:
        yield self.head
        raise httpx2.ReadError("connection reset by peer")


@pytest.mark.parametrize(
    ("provider", "fixture", "api"),
    [
        ("anthropic", "anthropic_tool_use.sse", "the Anthropic API"),
        ("openai", "openai_chat_tool_use.sse", "the OpenAI API"),
        ("openai-responses", "openai_responses_tool_use.sse", "the OpenAI API"),
    ],
)
async def test_connection_dropped_mid_stream(
    provider: str, fixture: str, api: str, exchange: Any
) -> None:
    raw = sse(fixture).content
    head = raw[: raw.index(b"\n\n", len(raw) // 2) + 2]
    answer = httpx2.Response(
        200, headers={"content-type": "text/event-stream"}, stream=DroppedStream(head)
    )
    err = await failure(make(provider, exchange(answer)))
    assert err.retryable and err.status is None
    assert f"{provider}: lost the connection to {api} mid-stream: " in str(err)
    assert "connection reset by peer" in str(err)


@pytest.mark.parametrize(
    ("body", "message", "kind"),
    [
        (
            {"error": {"message": "bad model", "type": "not_found_error"}},
            "bad model",
            "not_found_error",
        ),
        ({"error": "model not loaded"}, "model not loaded", None),
        (
            {"message": "no such route", "type": "overloaded_error"},
            "no such route",
            "overloaded_error",
        ),
        ({"error": {"code": 7}, "message": "outer text"}, "outer text", None),
        ({"error": None, "message": "outer text", "type": "api_error"}, "outer text", None),
        ({"error": {"message": 5}}, "the SDK's text", None),
        ("<html>502 Bad Gateway</html>", "the SDK's text", None),
        (None, "the SDK's text", None),
    ],
)
def test_error_bodies_of_every_shape_give_the_servers_text(
    body: object, message: str, kind: str | None
) -> None:
    """Whatever shape a server's error body has, its own text reaches the user when it
    has one; an error inside a stream takes its status from the error's type."""
    from xcsh.providers._errors import ErrorContext, status_error

    ctx = ErrorContext(
        provider="openai", model="m", key_env="OPENAI_API_KEY", base_url=None, max_retries=0
    )
    error = status_error(ctx, 400, body, "the SDK's text")
    assert f"(400): {message}" in str(error)
    assert error.body is body
    in_stream = status_error(ctx, 200, body, "the SDK's text")
    statuses = {"not_found_error": 404, "overloaded_error": 529, None: 500}
    assert in_stream.status == statuses.get(kind, 500)
