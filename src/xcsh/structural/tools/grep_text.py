"""The ``ast_grep`` result as the model reads it: each match, then the summary lines."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from xcsh.core.wording import name_list, plural
from xcsh.structural.base.errors import error_pattern_note
from xcsh.structural.base.results import Match, SearchResult
from xcsh.structural.tools.edit_action import empty_scope_note
from xcsh.structural.tools.edit_text import block, line_indent

_DEFINES = re.compile(
    r"\s*(?:(?:export|pub|public|private|protected|static|async)\s+)*"
    r"(?:def|function|fn|func|fun|sub)\s+(?P<name>\w+)"
)
"""A line that defines a function, in the usual keywords of the languages ast-grep reads."""


class Enclosing:
    """The function each match is in, read from its file's lines (each file read once).

    The nearest line above the match that defines a function and is indented
    less than the match's line; none when a line of top-level code comes first.
    """

    def __init__(self) -> None:
        self._lines: dict[Path, list[str]] = {}

    def __call__(self, match: Match) -> str | None:
        """The name of the function ``match`` is in, or ``None`` (top level, or unreadable)."""
        if match.path not in self._lines:
            try:
                text = match.path.read_bytes().decode("utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[match.path] = text.split("\n")
        lines = self._lines[match.path]
        at = match.span.start.line
        if at >= len(lines):
            return None
        indent = _indent(lines[at])
        for line in reversed(lines[:at]):
            if not line.strip() or _indent(line) >= indent:
                continue
            defined = _DEFINES.match(line)
            if defined is not None:
                return defined.group("name")
            if _indent(line) == 0 and not line.lstrip().startswith(("@", "#", "//")):
                return None
            indent = _indent(line)
        return None


def functions_line(matches: list[Match], enclosing: Enclosing) -> list[str]:
    """``Functions these matches are in: a, b.`` (none when no match is in a function)."""
    names = list(dict.fromkeys(n for m in matches if (n := enclosing(m)) is not None))
    return [f"Functions these matches are in: {name_list(names)}."] if names else []


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def format_match(match: Match, enclosing: Enclosing | None = None) -> list[str]:
    """``path:line:col:`` and the match's text, then each captured metavariable.

    With ``enclosing``, the header names the function the match is in
    (``path:line:col (in parse_time):``), for a small model asked who calls what.
    """
    where = f"{match.file}:{match.span.start.line + 1}:{match.span.start.column + 1}"
    name = enclosing(match) if enclosing is not None else None
    where += f" (in {name}):" if name else ":"
    base = line_indent(match)
    lines = []
    if match.rule is not None:  # a YAML rule's match: what the rule says first
        said = f": {match.rule.message}" if match.rule.message else ""
        lines.append(f"{match.rule.severity}[{match.rule.id}]{said}")
    lines += block(where, match.text, base, "    ")
    for name, cap in match.single.items():
        lines += block(f"  ${name} =", cap.text, base, "      ")
    raw = match.text.encode("utf-8")
    for name, caps in match.multi.items():
        text = ""
        if caps:
            first = caps[0].span.start_byte - match.span.start_byte
            last = caps[-1].span.end_byte - match.span.start_byte
            text = raw[first:last].decode("utf-8", errors="replace")
        lines += block(f"  $$${name} =", text, base, "      ")
    return lines


def grep_summary(
    result: SearchResult,
    lang: str | None,
    offset: int,
    pats: str,
    held: Mapping[str, int],
) -> list[str]:
    """The lines after the matches.

    None found (and why a pattern may be wrong, or that no file was in scope,
    with the languages the scope ``held`` without ``lang``), or the total and
    which of the matches are shown (``pats``: what was searched, for the text;
    ``offset``: the call's).
    """
    lines: list[str] = []
    if result.total == 0:
        lines.append(f"No matches for {pats} in {plural(result.files_scanned, 'file')}.")
        lines.extend(error_pattern_note(pat) for pat in result.error_patterns)
        if result.files_scanned == 0 and not result.skipped:
            lines.append(empty_scope_note(lang, held))
    else:
        lines.append(
            f"{plural(result.total, 'match', 'matches')} in "
            f"{plural(result.files_with_matches, 'file')}."
        )
        shown_end = offset + len(result.matches)
        if offset or shown_end < result.total:
            if result.matches:
                lines.append(
                    f"Showing matches {offset + 1}-{shown_end} of {result.total}"
                    + (
                        f"; call again with offset={shown_end} for more."
                        if shown_end < result.total
                        else "."
                    )
                )
            else:
                lines.append(f"No matches at offset {offset} (total {result.total}).")
    return lines


__all__ = ["Enclosing", "format_match", "functions_line", "grep_summary"]
