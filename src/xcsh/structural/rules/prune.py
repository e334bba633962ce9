"""Leaving out the keys ast-grep ignores inside a rule document, as ast-grep does.

A :class:`~xcsh.structural.rules.schema.RuleWarning` names each (refused when strict).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xcsh.structural.rules.schema import (
    FIX_KEYS,
    RELATIONAL_KEYS,
    REWRITER_KEYS,
    RULE_KEYS,
    RuleWarning,
    yaml_path,
)

_NTH_CHILD_KEYS = ("position", "ofRule", "reverse")


_PATTERN_KEYS = ("context", "selector", "strictness")


def _hint(key: str, allowed: Sequence[str], elsewhere: dict[str, str]) -> str:
    """Where ``key`` belongs instead, or the allowed key it likely misspells (``""``: none)."""
    import difflib

    if key in elsewhere:
        return elsewhere[key]
    folded = {name.lower(): name for name in allowed}
    if key.lower() in folded:
        return f"did you mean `{folded[key.lower()]}`?"
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
    return f"did you mean `{close[0]}`?" if close else ""


def _misplaced(allowed: Sequence[str]) -> dict[str, str]:
    """Keys that belong in another kind of object than one taking ``allowed``, with where."""
    out = {key: f"`{key}` belongs inside `nthChild`" for key in _NTH_CHILD_KEYS}
    if "stopBy" not in allowed:
        out.update(
            {
                key: f"`{key}` belongs inside a relational rule (inside, has, precedes, follows)"
                for key in ("stopBy", "field")
            }
        )
    return {key: hint for key, hint in out.items() if key not in allowed}


def drop_unknown_keys(
    document: dict[str, object], origin: str
) -> tuple[dict[str, object], list[RuleWarning]]:
    """``document`` without the keys ast-grep ignores, and a warning for each.

    Keys are left out inside rules, rewriters, fixes and pattern objects; each
    warning names the YAML path and the likely key.

    The top-level keys are not touched: ast-grep refuses an unknown one, and so does
    :func:`xcsh.structural.rules.compile_rule`.
    """
    pruner = _Pruner(origin)
    return pruner.body(dict(document), ""), pruner.warnings


class _Pruner:
    """Walks a rule document, leaving out the keys ast-grep ignores.

    ``warnings`` names each; ``origin`` is the document's file, for the warnings.
    """

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.warnings: list[RuleWarning] = []

    def keep(
        self, value: dict[str, object], allowed: Sequence[str], where: str
    ) -> dict[str, object]:
        """The ``allowed`` keys of ``value`` (at ``where``); a warning for each other key."""
        out: dict[str, object] = {}
        for key, sub in value.items():
            if key in allowed:
                out[key] = sub
            else:
                hint = _hint(str(key), allowed, _misplaced(allowed))
                problem = f"unknown key ({hint})" if hint else "unknown key"
                self.warnings.append(
                    RuleWarning(
                        origin=self.origin, yaml_path=yaml_path(where, str(key)), problem=problem
                    )
                )
        return out

    def rule(self, value: object, where: str, *, relation: bool = False) -> object:
        """A rule object (a relation's, with ``stopBy`` and ``field``), its sub-rules pruned."""
        if not isinstance(value, dict):
            return value
        allowed = RULE_KEYS + (("stopBy", "field") if relation else ())
        kept = self.keep(value, allowed, where)
        return {key: self.rule_value(key, sub, yaml_path(where, key)) for key, sub in kept.items()}

    def rule_value(self, key: str, sub: object, here: str) -> object:
        """The value of a rule object's ``key`` (at ``here``), its sub-rules pruned."""
        if key in RELATIONAL_KEYS:
            return self.rule(sub, here, relation=True)
        if key in ("not", "stopBy"):
            return self.rule(sub, here)
        if key in ("all", "any") and isinstance(sub, list):
            return [self.rule(item, yaml_path(here, i)) for i, item in enumerate(sub)]
        if key == "pattern" and isinstance(sub, dict):
            return self.keep(sub, _PATTERN_KEYS, here)
        if key == "nthChild" and isinstance(sub, dict):
            kept = self.keep(sub, _NTH_CHILD_KEYS, here)
            return {
                name: self.rule(item, yaml_path(here, name)) if name == "ofRule" else item
                for name, item in kept.items()
            }
        return sub

    def rules_of(self, value: object, where: str) -> object:
        """A table of named rules (``utils``, ``constraints``)."""
        if not isinstance(value, dict):
            return value
        return {name: self.rule(sub, yaml_path(where, str(name))) for name, sub in value.items()}

    def fix(self, value: object, where: str) -> object:
        """A fix object, its ``expandStart`` and ``expandEnd`` rules pruned."""
        if not isinstance(value, dict):
            return value
        out = self.keep(value, FIX_KEYS, where)
        for key in ("expandStart", "expandEnd"):
            if key in out:
                out[key] = self.rule(out[key], yaml_path(where, key))
        return out

    def rewriter(self, value: object, where: str) -> object:
        """A rewriter: its keys, then its body as a rule document's."""
        if not isinstance(value, dict):
            return value
        return self.body(self.keep(value, REWRITER_KEYS, where), where)

    def body(self, out: dict[str, object], where: str) -> dict[str, object]:
        """A rule document's (or rewriter's) rule, utils, constraints, fix and rewriters."""
        steps: tuple[tuple[str, Callable[[object, str], object]], ...] = (
            ("rule", self.rule),
            ("utils", self.rules_of),
            ("constraints", self.rules_of),
            ("fix", self.fix),
            ("rewriters", self.rewriters),
        )
        for key, step in steps:
            if key in out:
                out[key] = step(out[key], yaml_path(where, key))
        return out

    def rewriters(self, value: object, where: str) -> object:
        """A list of rewriters, each pruned."""
        if not isinstance(value, list):
            return value
        return [self.rewriter(item, yaml_path(where, i)) for i, item in enumerate(value)]


__all__ = ["drop_unknown_keys"]
