"""Tool factories (contract §8) and the registry of built-in tools.

Factories are re-exported here whatever package they live in, so callers
write ``from xcsh.tools import create_ast_edit_tool``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports
from xcsh.pending import create_resolve_tool
from xcsh.tools.coding import (
    create_bash_tool,
    create_coding_tools,
    create_edit_tool,
    create_find_tool,
    create_grep_tool,
    create_ls_tool,
    create_read_tool,
    create_write_tool,
)

if TYPE_CHECKING:
    from xcsh.structural import create_ast_edit_tool, create_ast_grep_tool

# ast-grep is imported only when a structural tool is asked for.
__getattr__ = lazy_exports(
    __name__, {"xcsh.structural": ("create_ast_edit_tool", "create_ast_grep_tool")}
)


__all__ = [
    "create_ast_edit_tool",
    "create_ast_grep_tool",
    "create_bash_tool",
    "create_coding_tools",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_resolve_tool",
    "create_write_tool",
]
