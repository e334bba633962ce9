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
    ProviderFlags,
    ProviderName,
    ProviderSettings,
    StoredProviderSettings,
    create_provider,
    resolve_provider_settings,
)

__all__ = [
    "PROVIDER_NAMES",
    "Provider",
    "ProviderFlags",
    "ProviderName",
    "ProviderSettings",
    "ResponseDone",
    "StoredProviderSettings",
    "StreamEvent",
    "TextChunk",
    "ThinkingChunk",
    "create_provider",
    "resolve_provider_settings",
]
