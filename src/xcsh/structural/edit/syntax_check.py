"""Whether a rewritten file still parses: the check that keeps a broken rewrite out of a preview.

:func:`new_error` parses the new text of a file, in the calling process, and
finds its first new parse error.
"""

from __future__ import annotations

from ast_grep_py import Rule, SgNode, SgRoot


def error_rule(root: SgNode) -> Rule:
    """The rule finding parse errors under ``root``.

    The rule finding parse errors under ``root``: ERROR nodes, and the MISSING nodes
    tree-sitter inserts (empty text, not the root itself).
    """
    return {"any": [{"kind": "ERROR"}, {"regex": "^$", "not": {"kind": root.kind()}}]}


def has_error(root: SgNode) -> bool:
    """Whether the tree under ``root`` holds a parse error (see :func:`error_rule`)."""
    return root.find(**error_rule(root)) is not None


def new_error(old_errors: int | None, new_bytes: bytes, language: str) -> str:
    """Where the rewritten text has a parse error the old text did not have, or ``""``.

    Args:
        old_errors: how many error nodes the old text has (``None``: it had none).
        new_bytes: the rewritten file (UTF-8; a bad byte reads as U+FFFD).
        language: its language (an ast-grep-py name).

    Returns:
        ``"line L, column C"`` (1-based) of the first error node of the new
        tree; for an old text that already had errors, only when the new one
        has more of them.
    """
    new_root = SgRoot(new_bytes.decode("utf-8", errors="replace"), language).root()
    rule = error_rule(new_root)
    first = new_root.find(**rule)
    if first is None:
        return ""
    if old_errors is not None and len(new_root.find_all(**rule)) <= old_errors:
        return ""
    pos = first.range().start
    return f"line {pos.line + 1}, column {pos.column + 1}"


__all__ = ["error_rule", "has_error", "new_error"]
