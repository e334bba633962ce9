"""What loading custom tools yields: the tools with their origin, and the problems."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Literal

from xcsh.core import Tool
from xcsh.plugins.discovery import ToolSource


@dataclass(frozen=True, kw_only=True)
class LoadError:
    """A tool module (or entry point) that did not yield tools.

    Args:
        path: the file or package folder; for an entry point,
            ``"<module:attr> (entry point <name> of <distribution>)"``.
        error: what went wrong and, where it helps, how to fix it.
        source: ``"project"``, ``"user"`` or ``"entry_point"``.
        kind: ``"error"`` for a broken module, ``"untrusted"`` for the notice that
            a project's tools were skipped because the folder is not trusted.
    """

    path: str
    error: str
    source: ToolSource
    kind: Literal["error", "untrusted"] = "error"

    def to_dict(self) -> dict[str, str]:
        """``{path, error, source, kind}`` for JSON output."""
        return {"path": self.path, "error": self.error, "source": self.source, "kind": self.kind}


@dataclass(frozen=True, kw_only=True)
class LoadedTool:
    """A tool that loaded, with where it came from.

    Args:
        tool: the core tool; ``await tool.execute(tool_call_id, params)`` runs it.
        source: ``"project"``, ``"user"`` or ``"entry_point"``.
        path: the module file or package folder (entry points: as in :class:`LoadError`).
    """

    tool: Tool
    source: ToolSource
    path: str


@dataclass(kw_only=True)
class LoadResult:
    """What :func:`load_custom_tools` found.

    Args:
        loaded: the tools with their origin, in load order.
        errors: every problem, in the order met; shown to the user.

    The result is also awaitable (it resolves to itself), so
    ``await load_custom_tools(...)`` works as with an async loader.
    """

    loaded: list[LoadedTool] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)

    @property
    def tools(self) -> list[Tool]:
        """The loaded tools, ready to hand to a session."""
        return [entry.tool for entry in self.loaded]

    @property
    def failures(self) -> list[LoadError]:
        """The errors that are real failures (not the untrusted-folder notice)."""
        return [error for error in self.errors if error.kind == "error"]

    @property
    def untrusted(self) -> bool:
        """True when project tools were skipped because the folder is not trusted."""
        return any(error.kind == "untrusted" for error in self.errors)

    def __await__(self) -> Generator[None, None, LoadResult]:
        return self
        yield  # pragma: no cover - makes this a generator
