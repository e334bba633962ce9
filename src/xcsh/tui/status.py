"""The status line (bottom toolbar): model, token and cost counts, the pending stack.

Pure functions over plain values, so they are tested without a terminal.
The pending part reads exactly ``2 pending · top: AST Edit: 3 replacements in 2 files``
(``2 pending - top: ...`` in plain ASCII), or ``no pending`` (contract §6).
"""

from __future__ import annotations

from xcsh.ui.usage import UsageTotals, separator, tokens


def pending_text(count: int, top_label: str | None, *, unicode: bool) -> str:
    """``2 pending · top: <label>``, or ``no pending`` for an empty stack."""
    if count <= 0 or top_label is None:
        return "no pending"
    return f"{count} pending{separator(unicode)}top: {top_label}"


def short_model(provider: str, model: str, width: int = 32) -> str:
    """``provider:model``; a file path (the scripted model) by its name; cut to ``width``."""
    if "/" in model and model.endswith(".json"):
        model = model.rsplit("/", 1)[-1]
    if len(model) > width:
        model = "..." + model[-(width - 3) :]
    return f"{provider}:{model}" if provider else model


def status_line(
    *,
    model: str,
    usage: UsageTotals,
    pending: int,
    top_label: str | None,
    unicode: bool,
    state: str = "",
) -> str:
    """The whole status line.

    The pending stack comes first, so a narrow terminal never cuts it off. Example:
    ``1 pending · top: AST Edit: 1 replacement in 1 file · anthropic:claude-sonnet-4-5 ·
    12.3k in / 800 out · $0.0421``; ``state`` is appended when given.
    """
    sep = separator(unicode)
    parts = [
        pending_text(pending, top_label, unicode=unicode),
        model,
        f"{tokens(usage.input_tokens)} in / {tokens(usage.output_tokens)} out",
        f"${usage.cost_usd:.4f}",
    ]
    if state:
        parts.append(state)
    return sep.join(parts)
