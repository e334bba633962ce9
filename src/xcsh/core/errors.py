"""The xcsh error tree.

::

    XcshError                 root of everything xcsh raises on purpose
     ├── ToolError            a tool call failed; the message is shown to the model
     ├── UsageError           bad input or configuration from the user; carries a hint
     └── ProviderError        a model provider failed; carries status and body

Foreign exceptions (pydantic, SDKs, OS errors) are translated at one boundary
with ``raise ... from exc`` so the original stays in ``__cause__``.
"""

from __future__ import annotations


class XcshError(Exception):
    """Root of the errors xcsh raises deliberately."""


class ToolError(XcshError):
    """Raised by a tool to fail the current tool call.

    The agent loop turns it into an ``is_error`` tool result whose text is
    ``str(error)``, so the message must name the problem and the fix.

    Args:
        message: text for the model and the user.
        details: optional structured data for front ends.
    """

    def __init__(self, message: str, *, details: object = None) -> None:
        super().__init__(message)
        self.details = details


class UsageError(XcshError):
    """Bad input or configuration from the user (a flag, a setting, a path).

    Args:
        message: what is wrong.
        hint: how to fix it; shown on its own line when present.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base}\nHint: {self.hint}" if self.hint else base


class ProviderError(XcshError):
    """A model provider refused or failed a request.

    Args:
        message: human-readable summary naming the provider.
        status: HTTP status when there was one.
        body: the provider's response body (text or parsed JSON) when there was one.
        retryable: whether retrying the same request later may succeed.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: object = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.retryable = retryable
