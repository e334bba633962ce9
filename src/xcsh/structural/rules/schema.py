"""The shape of a YAML rule, checked key by key so an error names its YAML path."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xcsh.core import ToolError


class RuleError(ToolError):
    """A rule file or rule object that cannot be used; the message names where and the fix.

    Attributes:
        origin: the file (or ``rule`` parameter) the rule came from.
        yaml_path: the dotted path inside the document (``rule.inside.stopBy``), or ``""``.
    """

    def __init__(self, origin: str, yaml_path: str, problem: str) -> None:
        where = f"{origin}: {yaml_path}: " if yaml_path else f"{origin}: "
        super().__init__(where + problem)
        self.origin = origin
        self.yaml_path = yaml_path


ATOMIC_KEYS = ("pattern", "kind", "regex", "nthChild", "range")


RELATIONAL_KEYS = ("inside", "has", "precedes", "follows")


COMPOSITE_KEYS = ("all", "any", "not", "matches")


RULE_KEYS = ATOMIC_KEYS + RELATIONAL_KEYS + COMPOSITE_KEYS
"""The keys of a rule object, as ast-grep 0.51 knows them."""


TOP_KEYS = (
    "id",
    "language",
    "rule",
    "constraints",
    "utils",
    "transform",
    "fix",
    "rewriters",
    "files",
    "ignores",
    "severity",
    "message",
    "note",
    "url",
    "metadata",
    "labels",
)


SEVERITIES = ("hint", "info", "warning", "error", "off")


def yaml_path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def check_rule(value: Any, where: str, origin: str, *, relation: bool = False) -> None:
    """Check the keys of a rule object recursively; raise naming the first bad path."""
    if not isinstance(value, dict):
        raise RuleError(
            origin,
            where,
            f"a rule must be a mapping of rule keys ({', '.join(RULE_KEYS)}); "
            f"got {type(value).__name__}.",
        )
    allowed = RULE_KEYS + (("stopBy", "field") if relation else ())
    for key, sub in value.items():
        here = yaml_path(where, str(key))
        if key not in allowed:
            raise _unknown_rule_key(origin, here, key, allowed)
        _check_sub_rules(key, sub, here, origin)
        _check_value(key, sub, here, origin)


def _unknown_rule_key(origin: str, here: str, key: object, allowed: Sequence[str]) -> RuleError:
    """The error for a key a rule object does not take, with where it belongs."""
    hint = ""
    if key in ("stopBy", "field"):
        hint = f" `{key}` belongs inside a relational rule (inside, has, precedes, follows)."
    elif key in TOP_KEYS:
        hint = f" `{key}` is a key of the rule file, beside `rule`, not inside it."
    return RuleError(
        origin,
        here,
        f"unknown rule key `{key}`. Use one of: {', '.join(allowed)}.{hint}",
    )


def _check_sub_rules(key: object, sub: Any, here: str, origin: str) -> None:
    """Check the rules inside a relational, ``not``, ``all``/``any`` or ``stopBy`` key."""
    if key in RELATIONAL_KEYS:
        check_rule(sub, here, origin, relation=True)
    elif key == "not":
        check_rule(sub, here, origin)
    elif key in ("all", "any"):
        if not isinstance(sub, list) or not sub:
            raise RuleError(origin, here, f"`{key}` takes a non-empty list of rules.")
        for index, item in enumerate(sub):
            check_rule(item, yaml_path(here, index), origin)
    elif key == "stopBy":
        if isinstance(sub, str):
            if sub not in ("neighbor", "end"):
                raise RuleError(
                    origin, here, f"`stopBy` is `neighbor`, `end` or a rule; got `{sub}`."
                )
        else:
            check_rule(sub, here, origin)


def _check_value(key: object, sub: Any, here: str, origin: str) -> None:
    """Check the value of a leaf key: a string, a pattern object or a valid regex."""
    if (
        key in ("pattern", "kind", "regex", "matches", "field")
        and not isinstance(sub, str)
        and not (key == "pattern" and isinstance(sub, dict))
    ):
        raise RuleError(origin, here, f"`{key}` takes a string.")
    if key == "pattern" and isinstance(sub, dict):
        unknown = set(sub) - {"context", "selector", "strictness"}
        if unknown or "context" not in sub:
            raise RuleError(
                origin,
                here,
                "a pattern object takes `context` (required), `selector` and `strictness`.",
            )
    if key == "regex" and isinstance(sub, str):
        problem = regex_problem(sub)
        if problem:
            raise RuleError(origin, here, f"invalid regular expression: {problem}.")


def regex_problem(regex: str) -> str:
    """Why ast-grep refuses ``regex`` (Rust's syntax: ``\\p{L}``, ``[[:alpha:]]``), or ``""``."""
    from ast_grep_py import SgRoot

    try:
        SgRoot("", "python").root().find_all({"rule": {"regex": regex}})
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # ast-grep-py reports a bad rule as a Rust panic or error
        text = str(exc).split("Stack backtrace:")[0]
        found = re.search(r"error: (.+)", text)
        return found.group(1).strip() if found else "not a valid regular expression"
    return ""


REWRITER_KEYS = ("id", "rule", "constraints", "utils", "transform", "fix", "rewriters")


FIX_KEYS = ("template", "expandStart", "expandEnd")


_TRANSFORMS = ("replace", "substring", "convert", "rewrite")


_META_NAMES = re.compile(r"\$\$?\$?([A-Z_][A-Z0-9_]*)")


@dataclass(frozen=True, kw_only=True)
class Fix:
    """A rule's ``fix``: the template, and rules widening the replaced range."""

    template: str
    expand_start: dict[str, Any] | None = None
    expand_end: dict[str, Any] | None = None


def fix_of(value: Any, where: str, origin: str) -> Fix | None:
    if value is None:
        return None
    if isinstance(value, str):
        return Fix(template=value)
    if isinstance(value, dict):
        unknown = set(value) - set(FIX_KEYS)
        if unknown:
            raise RuleError(
                origin,
                yaml_path(where, sorted(unknown)[0]),
                f"unknown key. A fix object takes: {', '.join(FIX_KEYS)}.",
            )
        template = value.get("template")
        if not isinstance(template, str):
            raise RuleError(
                origin, yaml_path(where, "template"), "a fix object needs a `template` string."
            )
        for key in ("expandStart", "expandEnd"):
            if key in value:
                check_rule(value[key], yaml_path(where, key), origin)
        return Fix(
            template=template,
            expand_start=value.get("expandStart"),
            expand_end=value.get("expandEnd"),
        )
    raise RuleError(origin, where, "`fix` is a string or a mapping with `template`.")


def split_transforms(
    value: Any, where: str, origin: str, rewriter_ids: Sequence[str]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]], tuple[str, ...]]:
    """``(for ast-grep-py, rewrite transforms, all names)``."""
    if value is None:
        return {}, {}, ()
    if not isinstance(value, dict):
        raise RuleError(
            origin, where, "`transform` maps new metavariable names to transformations."
        )
    native: dict[str, Any] = {}
    rewrites: dict[str, dict[str, Any]] = {}
    for name, spec in value.items():
        here = yaml_path(where, str(name))
        if isinstance(spec, str):
            if spec.strip().startswith("rewrite("):
                raise RuleError(
                    origin,
                    here,
                    "the string form of `rewrite` is not supported; write it as a mapping "
                    "`rewrite: {source: $A, rewriters: [ID], joinBy: ...}`.",
                )
            native[name] = spec
            continue
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in _TRANSFORMS:
            raise RuleError(
                origin, here, f"a transformation is one of: {', '.join(_TRANSFORMS)} (one key)."
            )
        kind, body = next(iter(spec.items()))
        if kind != "rewrite":
            native[name] = spec
            continue
        if not isinstance(body, dict) or "source" not in body or "rewriters" not in body:
            raise RuleError(
                origin, yaml_path(here, "rewrite"), "`rewrite` needs `source` and `rewriters`."
            )
        for index, rid in enumerate(body.get("rewriters") or []):
            if rid not in rewriter_ids:
                raise RuleError(
                    origin,
                    yaml_path(yaml_path(yaml_path(here, "rewrite"), "rewriters"), index),
                    f"no rewriter `{rid}` in `rewriters`"
                    + (f" (defined: {', '.join(rewriter_ids)})." if rewriter_ids else "."),
                )
        rewrites[name] = dict(body)
    for name, spec in native.items():
        text = str(spec)
        for used in _META_NAMES.findall(text):
            if used in rewrites:
                raise RuleError(
                    origin,
                    yaml_path(where, str(name)),
                    f"reads `{used}`, the result of a `rewrite`; xcsh cannot chain a "
                    "transformation after `rewrite` yet. Transform the source before rewriting.",
                )
    return native, rewrites, tuple(value)


def strings_of(value: Any, where: str, origin: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RuleError(origin, where, "takes a glob or a list of globs.")


@dataclass(frozen=True, kw_only=True)
class RuleWarning:
    """Something in a rule file that ast-grep runs anyway, and so does xcsh unless strict:
    a key it ignores inside a rule, or two rules sharing an id.

    Attributes:
        origin: the file (with its document and rule id) it is in.
        yaml_path: the dotted path (``rule.inside.stopby``).
        problem: what is wrong, with the likely fix (``unknown key (did you mean
            `stopBy`?)``).
        ignored: what ast-grep does with it (``ignored``, ``both run``).
    """

    origin: str
    yaml_path: str
    problem: str
    ignored: str = "ignored"

    def __str__(self) -> str:
        return f"{self.origin}: {self.yaml_path}: {self.problem}; {self.ignored}, as ast-grep does."

    def as_error(self) -> RuleError:
        """The refusal strict rule checking gives instead of the warning."""
        return RuleError(
            self.origin, self.yaml_path, f"{self.problem}. Rules are checked strictly: fix it."
        )


@functools.lru_cache(maxsize=256)
def glob_regex(globs: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression matching a ``/``-separated path when any of ``globs`` does,
    read as ast-grep reads a rule's ``files``/``ignores``: the whole path must match,
    ``*`` and ``?`` also match ``/``, ``**/`` is any number of folders (none
    included), ``[...]`` a class (``[!...]`` negated)."""
    parts: list[str] = []
    for glob in globs:
        out = ""
        index = 0
        while index < len(glob):
            if glob.startswith("**/", index):
                out += "(?:.*/)?"
                index += 3
            elif glob.startswith("/**", index) and index + 3 == len(glob):
                out += "(?:/.*)?"
                index += 3
            elif glob[index] == "*":
                out += ".*"
                index += 1
            elif glob[index] == "?":
                out += "."
                index += 1
            elif glob[index] == "[" and (close := glob.find("]", index + 2)) > 0:
                body = glob[index + 1 : close]
                negated = body.startswith("!")
                body = body.removeprefix("!").replace("\\", "\\\\")
                out += f"[{'^' if negated else ''}{body}]"
                index = close + 1
            else:
                out += re.escape(glob[index])
                index += 1
        parts.append(out)
    return re.compile("(?:" + "|".join(parts) + r")\Z", re.DOTALL)
