"""Model providers behind one protocol (:class:`Provider`).

Concrete adapters import their SDK only when they are constructed, so
importing this package never loads ``openai`` or ``anthropic``.
"""

from xcsh.providers.base import (
    Provider,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallStart,
)

__all__ = [
    "Provider",
    "ResponseDone",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallStart",
]
