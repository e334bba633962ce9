"""Whether a rewritten file parses cleanly, answered by tree-sitter's own flag.

The syntax check (:mod:`xcsh.structural.edit.syntax_check`) parses a rewritten
file again and looks for its first ERROR or MISSING node. Through ast-grep-py
that is a parse and then a walk of every node (100,000 replacements in a 4.6 MB
Python file: 7.0 and 2.0 billion instructions). The tree-sitter binding parses
the same text in 6.7 billion and answers for the whole tree at once
(``has_error`` on the root, kept by the parser as it builds the tree).

:func:`parses_cleanly` answers only "surely clean": ``True`` when the grammar
wheel of the language is installed and its tree has no error, ``None``
otherwise; a file it does not call clean goes through the walk as before, so
the position named and every verdict on a broken rewrite stay ast-grep's.
Only languages whose wheel gives ast-grep's verdict on every rewrite the test
suite and the conformance cases hold, and on every file of the standard
library, are listed in :data:`GRAMMARS` (``devtools/check_agreement.py``
measures it).
"""

from __future__ import annotations

from collections.abc import Callable

import tree_sitter


def _python() -> object:
    import tree_sitter_python  # each grammar loads with the first file of its language

    return tree_sitter_python.language()


GRAMMARS: dict[str, Callable[[], object]] = {"python": _python}
"""ast-grep-py's language name -> the grammar wheel's language (a PyPI package each)."""


def _grammar(language: str) -> tree_sitter.Language | None:
    """The tree-sitter language of ``language``, or ``None`` (not listed, wheel missing)."""
    made = GRAMMARS.get(language)
    if made is None:
        return None
    try:
        return tree_sitter.Language(made())
    except ImportError:
        return None


def parses_cleanly(source: bytes, language: str) -> bool | None:
    """``True`` when ``source`` (UTF-8) parses in ``language`` without an ERROR or MISSING node.

    ``None`` when it has one, or when this language has no grammar here: the caller
    then walks ast-grep's own tree.
    """
    grammar = _grammar(language)
    if grammar is None:
        return None
    tree = tree_sitter.Parser(grammar).parse(source)
    return None if tree.root_node.has_error else True


__all__ = ["GRAMMARS", "parses_cleanly"]
