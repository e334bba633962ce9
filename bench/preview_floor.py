"""The floor under a big preview: what any Python preview on ast-grep-py must do, and no more.

One process that parses a file, finds every match of ``compute($$$A)``,
reads each match's and each captured node's range (the six numbers a JSON
line prints), splices ``calc(...)`` in, parses the new text and walks it for
parse errors, as ``xcsh ast-edit`` does; it builds no change, writes no line.
Run it as a whole process beside ``xcsh ast-edit -p 'compute($$$A)' -r
'calc($$$A)' -l python --json`` and ``ast-grep run ... --json=stream`` on the
file ``bench/huge_file.py`` makes (100,000 matches): the ratio of its time to
the CLI's is as fast as a Python preview on ast-grep-py can be.

Usage: ``python bench/preview_floor.py FILE`` (prints the match count).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ast_grep_py import SgRoot


def floor(path: Path) -> int:
    """Do a preview's unavoidable work on ``path``; return how many matches it read."""
    text = path.read_text(encoding="utf-8")
    root = SgRoot(text, "python").root()
    numbers: list[int] = []
    parts: list[str] = []
    cursor = 0
    matches = root.find_all(pattern="compute($$$A)")
    for node in matches:
        rng = node.range()
        start, end = rng.start, rng.end
        numbers += (start.index, end.index, start.line, start.column, end.line, end.column)
        first = last = -1
        for captured in node.get_multiple_matches("A"):
            part = captured.range()
            head, tail = part.start, part.end
            numbers += (head.index, tail.index, head.line, head.column, tail.line, tail.column)
            if first < 0:
                first = head.index
            last = tail.index
        parts += (text[cursor : start.index], "calc(", text[first:last] if first >= 0 else "", ")")
        cursor = end.index
    parts.append(text[cursor:])
    count = len(matches)
    del matches, root  # as xcsh does: the old tree is gone before the new one is parsed
    new_root = SgRoot("".join(parts), "python").root()
    missing = {"regex": "^$", "not": {"kind": new_root.kind()}}
    if new_root.find(any=[{"kind": "ERROR"}, missing]) is not None:
        raise SystemExit("the new text has a parse error")
    return count


if __name__ == "__main__":
    print(floor(Path(sys.argv[1])))
