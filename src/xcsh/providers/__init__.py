"""Model providers behind one protocol (:class:`Provider`).

Concrete adapters import their SDK only when they are constructed, so
importing this package never loads ``openai`` or ``anthropic``:
:func:`create_provider` imports the adapter module it needs.
"""

from xcsh.providers.base import (
    Provider,
    ResponseDone,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
)
from xcsh.providers.config import (
    PROVIDER_NAMES,
    ProviderName,
    ProviderSettings,
    create_provider,
    resolve_provider_settings,
)

__all__ = [
    "PROVIDER_NAMES",
    "Provider",
    "ProviderName",
    "ProviderSettings",
    "ResponseDone",
    "StreamEvent",
    "TextChunk",
    "ThinkingChunk",
    "create_provider",
    "resolve_provider_settings",
]
