"""Whether a replacement surely keeps a file parsing, without parsing the whole file again.

For a file with few replacements, :func:`fits` checks each new text on its own
and where it goes, which is cheaper than parsing the rewritten file; a doubtful
case is left to that whole parse (:mod:`xcsh.structural.edit.syntax_check`).
"""

from __future__ import annotations

from ast_grep_py import SgNode, SgRoot

from xcsh.structural.edit.syntax_check import has_error
from xcsh.structural.matches.records import line_bounds

_STATEMENT_LISTS = frozenset(
    {
        "module",
        "block",
        "program",
        "statement_block",
        "source_file",
        "compound_statement",
        "translation_unit",
    }
)


FITS_COST_IN_BYTES = 200
"""What :func:`fits` costs for one replacement (a parse of the new text on its own,
about 40 µs), in characters of the whole file parsed again (about 0.2 µs each): past
one replacement per 200 characters, parsing the new file once is cheaper (100,000
replacements in a 4.6 MB file: 1 s instead of 4 s)."""


def _edge(char: str) -> str:
    """How a token boundary sees ``char``: every word character alike, others as they are."""
    return "w" if char.isalnum() or char in "_$" else char


def _same_surroundings(text: str, first: int, last: int, new: str) -> bool:
    """Whether ``new`` in place of ``text[first:last]`` keeps the tokens around it.

    Whether ``new`` in place of ``text[first:last]`` leaves the tokens around it as
    they were: white space (or the file's edge) on both sides, and ``new`` starting and
    ending like the old text (the same character, or word characters both).

    Without it a same-kind node could join its neighbour (``1..toString()`` rewritten
    to ``1.toString()``), end the line in a comment (``foo() }`` to ``bar() // c }``)
    or, after a line break, continue the line before it (JavaScript's ``let a = x``
    then ``foo()`` rewritten to ``/re/.test(s)``).
    """
    if (first > 0 and not text[first - 1].isspace()) or (
        last < len(text) and not text[last].isspace()
    ):
        return False
    old = text[first:last]
    return _edge(new[0]) == _edge(old[0]) and _edge(new[-1]) == _edge(old[-1])


def _whole_lines(text: str, first: int, last: int) -> bool:
    """Whether ``text[first:last]`` has nothing but white space beside it on its lines."""
    line_start, line_end = line_bounds(text, first, last)
    return not text[line_start:first].strip() and not text[last:line_end].strip()


def fits(node: SgNode, new: str, text: str, language: str, replaced: tuple[int, int]) -> bool:
    """Whether a replacement surely keeps a file that parsed cleanly free of parse errors.

    True when ``new``, parsed on its own, has no error, leaves the tokens around
    it as they were (:func:`_same_surroundings`; ``replaced``, the code-point
    range it takes the place of, must be the node's own range), and either is
    one node of the same kind as the matched one (starting its line when it has
    several), or is statements standing where a statement stood alone on its
    lines: putting a well-formed node of a kind where one of that kind was
    keeps the grammar's derivation valid. Otherwise the caller parses the
    whole new text, so this only saves time, never decides a doubtful case.
    """
    if not new.strip():
        return False
    rng = node.range()
    start = rng.start
    span = (start.index, rng.end.index)
    first, last = replaced
    if replaced != span or not _same_surroundings(text, first, last, new):
        return False
    line = text[text.rfind("\n", 0, start.index) + 1 : start.index]
    base = line[: len(line) - len(line.lstrip(" \t"))]
    lines = new.split("\n")
    snippet = "\n".join(
        [lines[0]] + [ln[len(base) :] if ln.startswith(base) else ln for ln in lines[1:]]
    )
    root = SgRoot(snippet, language).root()
    if has_error(root):
        return False
    kinds: set[str] = set()
    target: SgNode | None = node
    outer = node
    while target is not None:
        rng = target.range()
        if (rng.start.index, rng.end.index) != span:
            break
        kinds.add(target.kind())
        outer = target
        target = target.parent()
    whole = len(snippet.rstrip())
    lead = len(snippet) - len(snippet.lstrip())
    current: SgNode | None = root
    while current is not None:
        rng = current.range()
        spans = (rng.start.index, rng.end.index) == (lead, whole)
        if current is not root and spans and current.kind() in kinds:
            return "\n" not in new or not line.strip()
        children = [c for c in current.children() if c.range().end.index > lead]
        current = children[0] if len(children) == 1 else None
    parent = outer.parent()
    return (
        _whole_lines(text, first, last)
        and parent is not None
        and parent.kind() in _STATEMENT_LISTS
        and root.kind() in _STATEMENT_LISTS
    )


__all__ = ["FITS_COST_IN_BYTES", "fits"]
