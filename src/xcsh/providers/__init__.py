"""Model providers behind one protocol (:class:`Provider`).

Concrete adapters import their SDK only when they are constructed, so
importing this package never loads ``openai`` or ``anthropic``:
:func:`create_provider` imports the adapter module it needs. The providers
themselves are listed once, in :mod:`xcsh.providers.registry`.
"""

from xcsh.providers.base import (
    Provider,
    ResponseDone,
    StreamEvent,
    TextChunk,
    ThinkingChunk,
)
from xcsh.providers.config import (
    ProviderFlags,
    ProviderName,
    ProviderSettings,
    StoredProviderSettings,
    create_provider,
    resolve_provider_settings,
)
from xcsh.providers.registry import PROVIDER_NAMES

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
