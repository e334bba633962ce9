"""Tools that join a session from outside it and may change between turns (MCP servers').

A :class:`ToolSource` gives the session its tools when it opens and, before
each model request, what changed since (:meth:`ToolSource.refresh`): the new
list, which replaces the source's tools of before, and notices for the user
(a server that stopped, a tool left out). The session offers the changed list
from that request on and emits each notice once as a ``Notice`` event of kind
``"mcp"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from xcsh.core import Tool


class ToolsUpdate(Protocol):
    """What changed: the source's tools now, and what to tell the user."""

    @property
    def tools(self) -> Sequence[Tool]:
        """Every tool of the source now."""
        ...

    @property
    def notices(self) -> Sequence[str]:
        """One-line notices, each given once."""
        ...


class ToolSource(Protocol):
    """Tools from outside the session (see the module's docstring)."""

    def tools(self) -> Sequence[Tool]:
        """The tools offered now."""
        ...

    async def refresh(self) -> ToolsUpdate | None:
        """What changed since last asked, or ``None``; awaited before each request."""
        ...


__all__ = ["ToolSource", "ToolsUpdate"]
