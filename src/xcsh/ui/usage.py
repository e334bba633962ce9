"""Tokens and cost of a session: :class:`UsageTotals` and the words for them.

The status line of the terminal and the last line of print mode (``xcsh -p``)
both say them this way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xcsh.core import AssistantMessage, Message, Usage


@dataclass(frozen=True, kw_only=True)
class UsageTotals:
    """Tokens and cost summed over a session's model answers.

    Args:
        input_tokens: prompt tokens sent (cache reads and writes included).
        output_tokens: tokens the model wrote.
        cost_usd: US dollars (0 when the provider reports no prices).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, usage: Usage) -> UsageTotals:
        """These totals plus one answer's usage."""
        return UsageTotals(
            input_tokens=self.input_tokens
            + usage.input_tokens
            + usage.cache_read_tokens
            + usage.cache_write_tokens,
            output_tokens=self.output_tokens + usage.output_tokens,
            cost_usd=self.cost_usd + usage.cost_usd,
        )

    @classmethod
    def of(cls, messages: Iterable[Message]) -> UsageTotals:
        """The totals of a history (a resumed session starts from them)."""
        totals = cls()
        for message in messages:
            if isinstance(message, AssistantMessage):
                totals = totals.add(message.usage)
        return totals


def separator(unicode: bool) -> str:
    """`` · `` or, in plain ASCII, `` - ``."""
    return " · " if unicode else " - "


def tokens(count: int) -> str:
    """``950``, ``12.3k``, ``1.2M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def usage_text(totals: UsageTotals, *, unicode: bool = True) -> str:
    """Word a run's usage for the status line, such as `` · 1.5k in / 64 out · $0.0012``.

    `` - `` goes between the parts in plain ASCII; ``""`` when the provider reported no
    usage.
    """
    if not (totals.input_tokens or totals.output_tokens):
        return ""
    sep = separator(unicode)
    counts = f"{tokens(totals.input_tokens)} in / {tokens(totals.output_tokens)} out"
    return f"{sep}{counts}{sep}${totals.cost_usd:.4f}"


__all__ = ["UsageTotals", "separator", "tokens", "usage_text"]
