"""The text a file must hold for a YAML rule to match in it: the pre-filter of a scan.

A scan of many rules parses each file once and runs each rule of its
language on that tree; before a rule runs, the file's bytes are checked for
the text every match of the rule needs, so most rules skip most files
without touching the tree.

What a rule needs is a conjunction of clauses, each a set of alternatives
(``((b"jwt",), (b"password", b"passwd"))``: the file holds ``jwt`` and one of
``password``/``passwd``). It is derived conservatively from what must exist
somewhere in the file for a node to match:

- a ``pattern`` string: its fixed tokens (as for ``xcsh ast-grep -p``);
- a ``regex``: the longest literal run of each of its top-level alternatives
  (``^pymysql.connect$`` needs ``pymysql`` or ``connect``'s longer run);
  anything the reader does not follow (classes, groups with alternation,
  flags) needs nothing;
- ``all``, and the keys of one rule object, need what each part needs;
  ``inside``, ``has``, ``precedes`` and ``follows`` need what their rule
  needs (the related node is in the file too); ``matches`` what the utility
  rule needs;
- ``any`` needs one clause per branch, joined (the most selective of each);
  ``not``, ``kind``, ``nthChild``, ``range`` and pattern objects need nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from xcsh.core import ToolError
from xcsh.structural.base.languages import Language
from xcsh.structural.base.matcher import Clause, Requirement, admits
from xcsh.structural.pattern.compile import compile_pattern
from xcsh.structural.rules.model import (
    AllRule,
    AnyRule,
    MatchesRule,
    PatternRule,
    RegexRule,
    Relation,
    RuleObject,
    RulePart,
)

_MIN = 2
"""Shorter literal runs are too common to skip anything."""

_META = set(".^$*+?{}[]()|\\")


def required_text(
    rule: RuleObject, utils: Mapping[str, RuleObject], language: Language
) -> Requirement:
    """What a file must hold for ``rule`` to match in it; ``()`` when nothing is known.

    ``utils`` are the utility rules it sees, by id; ``language`` the file's.
    """
    reader = _Reader(utils, language)
    return _dedupe(reader.rule(rule, depth=0))


def _dedupe(clauses: list[Clause]) -> Requirement:
    out: list[Clause] = []
    for clause in clauses:
        if clause and clause not in out:
            out.append(clause)
    return tuple(out)


class _Reader:
    def __init__(self, utils: Mapping[str, RuleObject], language: Language) -> None:
        self.utils = utils
        self.language = language

    def rule(self, value: RuleObject, *, depth: int) -> list[Clause]:
        if depth > 20:
            return []
        clauses: list[Clause] = []
        for part in value.parts:
            clauses += self.part(part, depth=depth)
        return clauses

    def part(self, part: RulePart, *, depth: int) -> list[Clause]:
        """What one part of a rule object needs (see the module docstring)."""
        if isinstance(part, PatternRule) and isinstance(part.pattern, str):
            return self.pattern(part.pattern)
        if isinstance(part, RegexRule):
            clause = regex_clause(part.regex)
            return [clause] if clause else []
        if isinstance(part, Relation):
            return self.rule(part.rule, depth=depth + 1)
        if isinstance(part, AllRule):
            return [c for item in part.rules for c in self.rule(item, depth=depth + 1)]
        if isinstance(part, AnyRule):
            clause = self.either(part.rules, depth=depth + 1)
            return [clause] if clause else []
        if isinstance(part, MatchesRule) and part.util in self.utils:
            return self.rule(self.utils[part.util], depth=depth + 1)
        return []

    def either(self, branches: tuple[RuleObject, ...], *, depth: int) -> Clause:
        """One clause every branch implies: the most selective clause of each, joined."""
        joined: list[bytes] = []
        for branch in branches:
            clauses = self.rule(branch, depth=depth)
            if not clauses:
                return ()
            best = max(clauses, key=lambda c: (min(len(alt) for alt in c), -len(c)))
            joined += [alt for alt in best if alt not in joined]
        return tuple(joined)

    def pattern(self, text: str) -> list[Clause]:
        try:
            compiled = compile_pattern(text, self.language)
        except ToolError:
            return []
        if compiled.doubt is not None:
            return []
        return list(compiled.required)


def regex_clause(regex: str) -> Clause:
    """For each top-level alternative of ``regex``, its longest literal run (UTF-8).

    ``()`` when an alternative has none this reader can vouch for.
    """
    alternatives = _split_alternatives(regex)
    if alternatives is None:
        return ()
    out: list[bytes] = []
    for alternative in alternatives:
        run = _longest_literal(alternative)
        if run is None or len(run) < _MIN:
            return ()
        encoded = run.encode("utf-8")
        if encoded not in out:
            out.append(encoded)
    return tuple(out)


def _split_alternatives(regex: str) -> list[str] | None:
    """The top-level ``|`` alternatives of ``regex``, or ``None`` for a form not followed here.

    One wrapping group is unwrapped, as in ``^(a|b)$``.
    """
    body = regex
    if body.startswith("^"):
        body = body[1:]
    if body.endswith("$") and not body.endswith("\\$"):
        body = body[:-1]
    if body.startswith("(") and body.endswith(")") and not body.startswith("(?"):
        inner = body[1:-1]
        if "(" not in inner and ")" not in inner:
            body = inner
    parts: list[str] = []
    depth = 0
    current = ""
    escaped = False
    for char in body:
        if escaped:
            current += char
            escaped = False
            continue
        if char == "\\":
            escaped = True
            current += char
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "|" and depth == 0:
            parts.append(current)
            current = ""
            continue
        if char == "|":
            return None  # an alternation inside a group
        current += char
    parts.append(current)
    return [part.removeprefix("^").removesuffix("$") for part in parts]


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (``[`` or ``(``), or -1."""
    opening = text[start]
    closing = "]" if opening == "[" else ")"
    depth = 0
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if opening == "[" and index > start + 1 and char == "]" and depth == 1:
            return index
        if char == opening and (opening == "(" or index == start):
            depth += 1
        elif char == closing and opening == "(":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def _longest_literal(alternative: str) -> str | None:
    """The longest run of characters ``alternative`` matches literally.

    ``None`` when it holds something this reader does not follow (flags, a class it
    cannot skip).
    """
    if "(?" in alternative:
        return None  # flags (case-insensitive) or lookarounds
    runs: list[str] = []
    current = ""
    index = 0
    while index < len(alternative):
        char = alternative[index]
        following = alternative[index + 1] if index + 1 < len(alternative) else ""
        if char == "\\":
            if not following or following.isalnum():
                runs.append(current)  # \d, \w, \b: a class or an anchor
                current = ""
                index += 2
                continue
            literal, index = following, index + 2
            following = alternative[index] if index < len(alternative) else ""
        elif char in "[(":
            close = _closing(alternative, index)
            if close < 0:
                return None
            runs.append(current)  # a class, or a group that may be optional
            current = ""
            index = close + 1
            continue
        elif char in _META:
            runs.append(current)
            current = ""
            index += 1
            continue
        else:
            literal, index = char, index + 1
        if following in ("?", "*", "{"):
            runs.append(current)  # the character may be absent
            current = ""
        elif following == "+":
            runs.append(current + literal)
            current = ""
        else:
            current += literal
    runs.append(current)
    return max(runs, key=len)


__all__ = ["Clause", "Requirement", "admits", "regex_clause", "required_text"]
