"""Cost from the price table; unknown models cost 0.0."""

from __future__ import annotations

import pytest

from xcsh.core import Usage
from xcsh.providers.pricing import price_of, with_cost


def test_known_model_cost() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=2_000_000)
    # claude-haiku-4-5: $1/M in, $5/M out, $0.10/M cache reads.
    assert with_cost(usage, "claude-haiku-4-5").cost_usd == pytest.approx(1.0 + 0.5 + 0.2)


def test_cache_writes_are_priced() -> None:
    usage = Usage(cache_write_tokens=1_000_000)
    assert with_cost(usage, "claude-sonnet-4-5").cost_usd == pytest.approx(3.75)


def test_dated_snapshot_uses_base_price() -> None:
    assert price_of("gpt-4.1-2025-04-14") == price_of("gpt-4.1")
    assert price_of("claude-sonnet-4-5-20250929") == price_of("claude-sonnet-4-5")


def test_unknown_model_costs_nothing_and_keeps_counts() -> None:
    usage = Usage(input_tokens=10, output_tokens=5)
    assert with_cost(usage, "qwen3-coder") == usage
    assert price_of("qwen3-coder") is None
