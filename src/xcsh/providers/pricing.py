"""Prices of well-known models, for the cost shown after each turn.

Rates are US dollars per million tokens, from the providers' public price
pages (anthropic.com/pricing, openai.com/api/pricing). A model missing from
the table costs 0.0: the cost is unknown, not free. Dated snapshots
(``gpt-4.1-2025-04-14``) fall back to their base name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xcsh.core import Usage


@dataclass(frozen=True, kw_only=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0


PRICES: dict[str, Price] = {
    # Anthropic: cache writes (5-minute) cost 1.25x input, cache reads 0.1x input.
    "claude-opus-4-5": Price(input=5.0, output=25.0, cache_read=0.5, cache_write=6.25),
    "claude-sonnet-4-6": Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-sonnet-4-5": Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-sonnet-4": Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-haiku-4-5": Price(input=1.0, output=5.0, cache_read=0.1, cache_write=1.25),
    # OpenAI: cached input is billed at the cache_read rate.
    "gpt-5.1": Price(input=1.25, output=10.0, cache_read=0.125),
    "gpt-5": Price(input=1.25, output=10.0, cache_read=0.125),
    "gpt-5-mini": Price(input=0.25, output=2.0, cache_read=0.025),
    "gpt-5-nano": Price(input=0.05, output=0.4, cache_read=0.005),
    "gpt-4.1": Price(input=2.0, output=8.0, cache_read=0.5),
    "gpt-4.1-mini": Price(input=0.4, output=1.6, cache_read=0.1),
    "gpt-4.1-nano": Price(input=0.1, output=0.4, cache_read=0.025),
    "gpt-4o": Price(input=2.5, output=10.0, cache_read=1.25),
    "gpt-4o-mini": Price(input=0.15, output=0.6, cache_read=0.075),
}

_SNAPSHOT = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


def price_of(model: str) -> Price | None:
    """The price of ``model``, trying its base name for dated snapshots; None if unknown."""
    return PRICES.get(model) or PRICES.get(_SNAPSHOT.sub("", model))


def with_cost(usage: Usage, model: str) -> Usage:
    """``usage`` with ``cost_usd`` filled in from the table (0.0 for unknown models).

    ``input_tokens`` must exclude cached tokens (adapters normalise this).
    """
    price = price_of(model)
    if price is None:
        return usage
    cost = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    ) / 1_000_000
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        cost_usd=cost,
    )
