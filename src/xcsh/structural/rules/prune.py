"""Leaving out the keys ast-grep ignores inside a rule document, as ast-grep does, with
a :class:`~xcsh.structural.rules.schema.RuleWarning` naming each (refused when strict)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
    document: dict[str, Any], origin: str
) -> tuple[dict[str, Any], list[RuleWarning]]:
    """``document`` without the keys ast-grep ignores inside rules, rewriters, fixes and
    pattern objects, and a warning for each, naming its YAML path and the likely key.

    The top-level keys are not touched: ast-grep refuses an unknown one, and so does
    :func:`xcsh.structural.rules.compile_rule`.
    """
    pruner = _Pruner(origin)
    return pruner.body(dict(document), ""), pruner.warnings


class _Pruner:
    """Walks a rule document, leaving out the keys ast-grep ignores; ``warnings`` names
    each (``origin``: the document's file, for the warnings)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.warnings: list[RuleWarning] = []

    def keep(self, value: dict[str, Any], allowed: Sequence[str], where: str) -> dict[str, Any]:
        """The ``allowed`` keys of ``value`` (at ``where``); a warning for each other key."""
        out = {}
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

    def rule(self, value: Any, where: str, *, relation: bool = False) -> Any:
        """A rule object (a relation's, with ``stopBy`` and ``field``), its sub-rules pruned."""
        if not isinstance(value, dict):
            return value
        allowed = RULE_KEYS + (("stopBy", "field") if relation else ())
        out = self.keep(value, allowed, where)
        for key, sub in out.items():
            here = yaml_path(where, key)
            if key in RELATIONAL_KEYS:
                out[key] = self.rule(sub, here, relation=True)
            elif key in ("not", "stopBy"):
                out[key] = self.rule(sub, here)
            elif key in ("all", "any") and isinstance(sub, list):
                out[key] = [self.rule(item, yaml_path(here, i)) for i, item in enumerate(sub)]
            elif key == "pattern" and isinstance(sub, dict):
                out[key] = self.keep(sub, _PATTERN_KEYS, here)
            elif key == "nthChild" and isinstance(sub, dict):
                out[key] = self.keep(sub, _NTH_CHILD_KEYS, here)
                if "ofRule" in out[key]:
                    out[key]["ofRule"] = self.rule(out[key]["ofRule"], yaml_path(here, "ofRule"))
        return out

    def rules_of(self, value: Any, where: str) -> Any:
        """A table of named rules (``utils``, ``constraints``)."""
        if not isinstance(value, dict):
            return value
        return {name: self.rule(sub, yaml_path(where, str(name))) for name, sub in value.items()}

    def fix(self, value: Any, where: str) -> Any:
        """A fix object, its ``expandStart`` and ``expandEnd`` rules pruned."""
        if not isinstance(value, dict):
            return value
        out = self.keep(value, FIX_KEYS, where)
        for key in ("expandStart", "expandEnd"):
            if key in out:
                out[key] = self.rule(out[key], yaml_path(where, key))
        return out

    def rewriter(self, value: Any, where: str) -> Any:
        """A rewriter: its keys, then its body as a rule document's."""
        if not isinstance(value, dict):
            return value
        return self.body(self.keep(value, REWRITER_KEYS, where), where)

    def body(self, out: dict[str, Any], where: str) -> dict[str, Any]:
        """A rule document's (or rewriter's) rule, utils, constraints, fix and rewriters."""
        if "rule" in out:
            out["rule"] = self.rule(out["rule"], yaml_path(where, "rule"))
        for key in ("utils", "constraints"):
            if key in out:
                out[key] = self.rules_of(out[key], yaml_path(where, key))
        if "fix" in out:
            out["fix"] = self.fix(out["fix"], yaml_path(where, "fix"))
        if isinstance(out.get("rewriters"), list):
            out["rewriters"] = [
                self.rewriter(item, yaml_path(yaml_path(where, "rewriters"), i))
                for i, item in enumerate(out["rewriters"])
            ]
        return out


__all__ = ["drop_unknown_keys"]
