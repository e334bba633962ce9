"""Matches printed as the ``ast-grep`` command prints them in text, colour off.

- :func:`run_text`: ``ast-grep run``'s lines, ``path:LINE:source line`` per line
  (``--heading never``), or the path once above ``LINE│source line`` lines
  (``--heading always``). Matches nested in an earlier one are not printed again,
  and a match starting on the line (or the line after the one) where the last
  printed one ends is printed with it, as the CLI merges them.
- :func:`rule_report`: ``ast-grep scan``'s report of a file. A rule without a fix
  prints each match as a framed diagnostic (:mod:`.diagnostic`) with its labels and
  note; a rule with a fix prints the path, ``severity[id]: message``, the diff of
  that one fix (three lines of context) and ``Note:`` with the note.

Both return one record per match, in the order of the matches given (a match
merged into another's lines, or skipped, gets ``""``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from similar._similar import opcodes_str  # typed; `similar.TextDiff` wraps it untyped

from xcsh.structural.matches.diagnostic import Label, render_diagnostic, rust_lines

if TYPE_CHECKING:
    from ast_grep_py import SgNode

    from xcsh.structural.rules.extras import RuleExtras

HEADER_WORDS = {"error": "error", "warning": "warning", "info": "note", "hint": "help"}
"""The word ast-grep's report heads a rule's match with, by the rule's severity."""


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _line_end(text: str, offset: int) -> int:
    end = text.find("\n", offset)
    return len(text) if end < 0 else end


def run_text(nodes: Sequence[SgNode], text: str, name: str, *, heading: bool) -> list[str]:
    """``ast-grep run --color never --heading always|never``'s text of one file's matches."""
    records = [""] * len(nodes)
    if not nodes:
        return records
    groups: list[tuple[int, int, list[tuple[int, int]]]] = []  # first node, first line, spans
    last_end = -1
    last_end_line = -1
    for index, node in enumerate(nodes):
        rng = node.range()
        start, end = rng.start.index, rng.end.index
        if groups and start < last_end:
            continue  # nested in the last printed match
        if groups and rng.start.line <= last_end_line:
            groups[-1][2].append((start, end))  # on the line where the last one ends: merged
            last_end = end
            continue
        groups.append((index, rng.start.line + 1, [(start, end)]))
        last_end, last_end_line = end, rng.end.line + 1
    for number, (index, first_line, spans) in enumerate(groups):
        shown = [text[_line_start(text, spans[0][0]) : spans[0][0]]]
        previous = spans[0][0]
        for start, end in spans:
            shown.append(text[previous:start])
            shown.append("\n".join(rust_lines(text[start:end])))
            previous = end
        shown.append(text[previous : _line_end(text, previous)])
        lines = rust_lines("".join(shown))
        if heading:
            width = len(str(len(lines) + first_line))
            body = "".join(f"{first_line + n:<{width}}│{line}\n" for n, line in enumerate(lines))
            if number == 0:
                body = f"{name}\n{body}"
            if number == len(groups) - 1:
                body += "\n"
        else:
            body = "".join(f"{name}:{first_line + n}:{line}\n" for n, line in enumerate(lines))
        records[index] = body
    return records


def render_note(note: str) -> str:
    """Render a rule's ``note`` (Markdown) as ast-grep prints it without colour.

    The marks of emphasis and code go, list items get ``•``, quotes ``▐``, code blocks
    stay as they are; each line ends with a line break.
    """
    out = []
    fenced = False
    for line in rust_lines(note):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append(line)
            continue
        if stripped.startswith("#"):
            marks = len(stripped) - len(stripped.lstrip("#"))
            if stripped[marks : marks + 1] in (" ", ""):
                line = stripped[marks:].strip()
        elif stripped.startswith(("- ", "* ", "+ ")):
            line = line[: len(line) - len(stripped)] + "• " + stripped[2:]
        elif stripped.startswith(">"):
            line = "▐ " + stripped[1:].lstrip()
        out.append(_inline(line))
    return "".join(f"{line}\n" for line in out)


def _inline(line: str) -> str:
    """Drop Markdown's inline marks (``**``, ``*``, ``~~``, backticks) from ``line``.

    The text of a code span is kept as it is.
    """
    parts = line.split("`")
    if len(parts) % 2 == 0:  # an unclosed backtick is text
        parts[-2:] = ["`".join(parts[-2:])]
    return "".join(
        part if odd else part.replace("~~", "").replace("*", "")
        for odd, part in ((i % 2 == 1, p) for i, p in enumerate(parts))
    )


def rule_report(
    found: Sequence[tuple[SgNode, RuleExtras]],
    text: str,
    name: str,
    fixes: Sequence[tuple[str, int, int] | None],
    messages: Sequence[str],
) -> list[str]:
    """``ast-grep scan --color never``'s report of one file, one record per match.

    ``fixes`` holds each match's fix (new text and the code-point range it
    replaces), ``messages`` each match's message. A file's matches are printed
    rule by rule (each rule's in the order found), as the CLI groups them.
    """
    from xcsh.structural.rules.labels import label_nodes  # a pattern search needs no rules

    records = [""] * len(found)
    order: dict[int, list[int]] = {}
    for index, (_, rule) in enumerate(found):
        order.setdefault(id(rule), []).append(index)
    for indices in order.values():
        rule = found[indices[0]][1]
        word = HEADER_WORDS.get(rule.severity, rule.severity)
        note = None if rule.note is None else render_note(rule.note)
        if rule.fix is None:
            for index in indices:
                records[index] = render_diagnostic(
                    severity=word,
                    code=rule.id,
                    message=messages[index],
                    name=name,
                    text=text,
                    labels=[
                        Label(
                            primary=lab.primary,
                            start=lab.first.range().start.index,
                            end=lab.last.range().end.index,
                            message=lab.message or "",
                        )
                        for lab in label_nodes(found[index][0], rule.labels)
                    ],
                    notes=[] if note is None else [note],
                )
            continue
        reached = 0
        for index in indices:
            fix = fixes[index]
            if fix is None or fix[1] < reached:
                continue  # overlaps the last fix printed
            new, start, end = fix
            reached = end
            diff = line_diff(text, text[:start] + new + text[end:])
            tail = "" if note is None else f"Note:\n{note}\n"
            records[index] = f"{name}\n{word}[{rule.id}]: {messages[index]}\n{diff}{tail}"
    return records


def _groups(
    ops: list[tuple[str, tuple[int, int], tuple[int, int]]], context: int
) -> list[list[tuple[str, tuple[int, int], tuple[int, int]]]]:
    """The diff's operations in hunks, ``context`` equal lines around each change."""
    if not ops:
        return []
    ops = list(ops)
    tag, (o1, o2), (n1, n2) = ops[0]
    if tag == "equal":
        cut = max(0, (o2 - o1) - context)
        ops[0] = (tag, (o1 + cut, o2), (n1 + cut, n2))
    tag, (o1, o2), (n1, n2) = ops[-1]
    if tag == "equal":
        keep = min(o2 - o1, context)
        ops[-1] = (tag, (o1, o1 + keep), (n1, n1 + keep))
    groups = []
    pending: list[tuple[str, tuple[int, int], tuple[int, int]]] = []
    for op in ops:
        tag, (o1, o2), (n1, n2) = op
        if tag == "equal" and o2 - o1 > context * 2:
            pending.append((tag, (o1, o1 + context), (n1, n1 + context)))
            groups.append(pending)
            cut = (o2 - o1) - context
            pending = [(tag, (o1 + cut, o2), (n1 + cut, n2))]
            continue
        pending.append(op)
    if pending and not (len(pending) == 1 and pending[0][0] == "equal"):
        groups.append(pending)
    return groups


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def line_diff(old: str, new: str, context: int = 3) -> str:
    """Write the diff ast-grep prints for a fix.

    It has ``@@ -a,b +c,d @@`` hunks (0-based starts), each line as ``OLD NEW│``
    numbers, a sign and the line.
    """
    before, after = _split(old), _split(new)
    out = []
    ops = [(tag, (i1, i2), (j1, j2)) for tag, i1, i2, j1, j2 in opcodes_str("lines", old, new)]
    for group in _groups(ops, context):
        _, (_, old_end), (_, new_end) = group[-1]
        old_width, new_width = len(str(old_end)), len(str(new_end))
        old_len = sum(o2 - o1 for _, (o1, o2), _ in group)
        new_len = sum(n2 - n1 for _, _, (n1, n2) in group)
        out.append(f"@@ -{group[0][1][0]},{old_len} +{group[0][2][0]},{new_len} @@\n")
        for tag, (o1, o2), (n1, n2) in group:
            rows: list[tuple[int | None, int | None, str, str]]
            if tag == "equal":
                rows = [(o1 + k, n1 + k, " ", before[o1 + k]) for k in range(o2 - o1)]
            else:
                rows = [(i, None, "-", before[i]) for i in range(o1, o2)]
                rows += [(None, j, "+", after[j]) for j in range(n1, n2)]
            for o, n, sign, value in rows:
                left = " " * old_width if o is None else f"{o + 1:<{old_width}}"
                right = " " * new_width if n is None else f"{n + 1:<{new_width}}"
                out.append(f"{left} {right}│{sign}{value}")
                if not value.endswith("\n"):
                    out.append("\n")
    return "".join(out)
