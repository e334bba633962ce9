"""The steps of compiling one rule document (:func:`xcsh.structural.rules.compile_rule`):
its top level, its utility rules and constraints, its rewriters, and the configuration
ast-grep-py runs, each checked with the YAML path of a problem."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ast_grep_py import Config, SgRoot

from xcsh.core import ToolError
from xcsh.structural.languages import Language, resolve_language
from xcsh.structural.pattern import bound_metavariables
from xcsh.structural.pattern_checks import check_pattern_size
from xcsh.structural.rewrite import Template, parse_template
from xcsh.structural.rules.names import (
    bound_names,
    check_fix_names,
    check_rewrite_sources,
    patterns_in,
)
from xcsh.structural.rules.prune import drop_unknown_keys
from xcsh.structural.rules.schema import (
    REWRITER_KEYS,
    RULE_KEYS,
    TOP_KEYS,
    Fix,
    RuleError,
    RuleWarning,
    check_rule,
    fix_of,
    split_transforms,
    yaml_path,
)


@dataclass(frozen=True, kw_only=True)
class Rewriter:
    """One of a rule's ``rewriters``: a rule with a fix, used by the ``rewrite`` transform."""

    id: str
    config: dict[str, Any]
    fix: Fix
    template: Template
    rewrites: dict[str, dict[str, Any]] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()


def names_of(rule: Any, utils: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The metavariables the patterns of ``rule`` and ``utils`` bind: single, then multi."""
    single: list[str] = []
    multi: list[str] = []
    for text in patterns_in(rule) + patterns_in(dict(utils)):
        s, m = bound_metavariables(text)
        single += [n for n in s if n not in single]
        multi += [n for n in m if n not in multi]
    return tuple(single), tuple(multi)


def branches_of(
    rule: dict[str, Any], multi: tuple[str, ...]
) -> tuple[tuple[dict[str, Any], tuple[str, ...]], ...]:
    """The ``any`` branches of ``rule`` (see :attr:`CompiledRule.branches`), or ``()``."""
    groups = [rule.get("any")] + [
        item.get("any") for item in rule.get("all") or [] if isinstance(item, dict)
    ]
    out: list[tuple[dict[str, Any], tuple[str, ...]]] = []
    for group in groups:
        if not isinstance(group, list):
            continue
        for branch in group:
            if isinstance(branch, dict):
                names = {m for text in patterns_in(branch) for m in bound_metavariables(text)[1]}
                out.append((branch, tuple(n for n in multi if n in names)))
    named = {n for _, names in out for n in names}
    optional = [n for n in named if not all(n in names for _, names in out)]
    return tuple(out) if optional else ()


def _ast_grep_problem(exc: BaseException) -> str:
    """ast-grep's complaint in one line, without its backtrace."""
    text = str(exc).split("Stack backtrace:")[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if line != "Caused by:"]
    causes = [c for c in causes if c != "cannot get matcher"]
    return " ".join(causes) if causes else type(exc).__name__


def validate_config(config: dict[str, Any], language: str, origin: str, where: str) -> None:
    """Let ast-grep-py check the configuration once, on an empty tree."""
    try:
        SgRoot("", language).root().find_all(cast("Config", config))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        problem = _ast_grep_problem(exc).rstrip(".")
        raise RuleError(
            origin, where, f"ast-grep refused it: {problem}. Fix the rule as the message says."
        ) from None


def rewriter_of(
    value: Any,
    where: str,
    origin: str,
    language: str,
    utils: dict[str, Any],
    ids: list[str],
    outer: tuple[str, ...],
) -> Rewriter:
    """One of a rule's ``rewriters``, checked (``outer``: the names the rule binds).

    Raises:
        RuleError: naming the YAML path of the problem.
    """
    if not isinstance(value, dict):
        raise RuleError(origin, where, "a rewriter is a mapping with `id`, `rule` and `fix`.")
    for key in value:
        if key not in REWRITER_KEYS:
            raise RuleError(
                origin,
                yaml_path(where, str(key)),
                f"unknown key. A rewriter takes: {', '.join(REWRITER_KEYS)}.",
            )
    rid = value.get("id")
    if not isinstance(rid, str) or not rid:
        raise RuleError(origin, yaml_path(where, "id"), "a rewriter needs an `id` string.")
    check_rule(value.get("rule"), yaml_path(where, "rule"), origin)
    fix = fix_of(value.get("fix"), yaml_path(where, "fix"), origin)
    if fix is None:
        raise RuleError(origin, yaml_path(where, "fix"), "a rewriter needs a `fix`.")
    local_utils = {**utils, **(value.get("utils") or {})}
    native, rewrites, _ = split_transforms(
        value.get("transform"), yaml_path(where, "transform"), origin, ids
    )
    config: dict[str, Any] = {"rule": value["rule"]}
    if value.get("constraints"):
        config["constraints"] = value["constraints"]
    if local_utils:
        config["utils"] = local_utils
    if native:
        config["transform"] = native
    validate_config(config, language, origin, where)
    bound = bound_names(
        value["rule"],
        local_utils=value.get("utils") or {},
        constraints=value.get("constraints") or {},
        transforms=(*native, *rewrites),
    )
    bound += tuple(n for n in outer if n not in bound)  # the calling rule's captures
    check_rewrite_sources(rewrites, bound, origin, yaml_path(where, "transform"))
    check_fix_names(fix.template, bound, origin, yaml_path(where, "fix"))
    single, multi = names_of(value["rule"], local_utils)
    names = single + tuple(native) + tuple(rewrites)
    return Rewriter(
        id=rid,
        config=config,
        fix=fix,
        template=template_of(fix, names, multi, rid),
        rewrites=rewrites,
        names=names,
        multi=multi,
    )


def template_of(fix: Fix, single: tuple[str, ...], multi: tuple[str, ...], rid: str) -> Template:
    """The parsed template of a fix (or a message) naming these metavariables."""
    return parse_template(fix.template, single=single, multi=multi, pattern=rid, strict=False)


def checked_document(
    document: Any,
    origin: str,
    index: int | None,
    *,
    strict: bool,
    warnings: list[RuleWarning] | None,
) -> tuple[dict[str, Any], str, str, Language]:
    """A rule document's top level checked: the document without the keys ast-grep
    ignores, its id, where it is (for messages) and its language (see
    :func:`~xcsh.structural.rules.compile_rule` for ``strict`` and ``warnings``).

    Raises:
        RuleError: not a mapping, an unknown top-level key, no id, no language or no rule.
    """
    where = origin if index is None else f"{origin} (document {index + 1})"
    if not isinstance(document, dict):
        raise RuleError(
            where, "", "a rule document must be a mapping with `id`, `language` and `rule`."
        )
    for key in document:
        if key not in TOP_KEYS:
            hint = f" `{key}` belongs inside `rule`." if key in RULE_KEYS else ""
            raise RuleError(
                where, str(key), f"unknown key. A rule file takes: {', '.join(TOP_KEYS)}.{hint}"
            )
    rid = document.get("id")
    if not isinstance(rid, str) or not rid.strip():
        raise RuleError(where, "id", "every rule needs an `id` string (a name for its matches).")
    where = f"{where} rule `{rid}`"
    document, ignored = drop_unknown_keys(document, where)
    if ignored and strict:
        raise ignored[0].as_error()
    if warnings is not None:
        warnings += ignored
    lang_name = document.get("language")
    if not isinstance(lang_name, str):
        raise RuleError(where, "language", "missing: name the language, e.g. `language: python`.")
    try:
        language = resolve_language(lang_name)
    except ToolError as exc:
        raise RuleError(where, "language", str(exc)) from None
    if "rule" not in document:
        raise RuleError(where, "rule", "missing: every rule needs a `rule` (e.g. `pattern: ...`).")
    check_rule(document["rule"], "rule", where)
    return document, rid, where, language


def rule_tables(
    document: dict[str, Any], global_utils: Mapping[str, Mapping[str, Any]] | None, where: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The utility rules a rule sees (the project's, then its own), its own, and its
    constraints, each checked.

    Raises:
        RuleError: ``utils`` or ``constraints`` is not a mapping of rules.
    """
    utils: dict[str, Any] = dict((global_utils or {}).items())
    local = document.get("utils") or {}
    if not isinstance(local, dict):
        raise RuleError(where, "utils", "`utils` maps names to rules.")
    for name, util in local.items():
        check_rule(util, yaml_path("utils", str(name)), where)
    utils.update(local)
    constraints = document.get("constraints") or {}
    if not isinstance(constraints, dict):
        raise RuleError(where, "constraints", "`constraints` maps metavariable names to rules.")
    for name, constraint in constraints.items():
        check_rule(constraint, yaml_path("constraints", str(name)), where)
    return utils, local, constraints


def rule_config(
    rule: Any,
    tables: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
    language: Language,
    where: str,
) -> dict[str, Any]:
    """The configuration ast-grep-py runs (``tables``: constraints, utils and native
    transforms), checked by ast-grep once, every pattern inside within the size bounds.

    Raises:
        RuleError: a pattern too big, or ast-grep refuses the configuration.
    """
    constraints, utils, native = tables
    config: dict[str, Any] = {"rule": rule}
    if constraints:
        config["constraints"] = constraints
    if utils:
        config["utils"] = utils
    if native:
        config["transform"] = native
    for text in patterns_in(rule) + patterns_in(dict(utils)):
        try:  # the bounds of a `pat` hold for every pattern inside a rule
            check_pattern_size(text, language)
        except ToolError as exc:
            raise RuleError(where, "rule", str(exc)) from None
    validate_config(config, language.name, where, "rule")
    return config


def rewriter_ids(document: dict[str, Any], where: str) -> tuple[list[Any], list[str]]:
    """A rule's ``rewriters`` as written, and their ids.

    Raises:
        RuleError: ``rewriters`` is not a list.
    """
    raw = document.get("rewriters") or []
    if not isinstance(raw, list):
        raise RuleError(where, "rewriters", "`rewriters` is a list of rules with `id` and `fix`.")
    return raw, [str(r.get("id")) for r in raw if isinstance(r, dict)]


def rewriters_of(
    raw: list[Any],
    place: tuple[str, str],
    utils: dict[str, Any],
    ids: list[str],
    bound: tuple[str, ...],
) -> dict[str, Rewriter]:
    """A rule's rewriters by id, each checked (``place``: where the rule is, and its
    language; ``bound``: the names the rule binds).

    Raises:
        RuleError: naming the YAML path of the problem.
    """
    where, language = place
    built = (
        rewriter_of(value, yaml_path("rewriters", i), where, language, utils, ids, bound)
        for i, value in enumerate(raw)
    )
    return {r.id: r for r in built}


__all__ = [
    "Rewriter",
    "branches_of",
    "checked_document",
    "names_of",
    "rewriter_ids",
    "rewriter_of",
    "rewriters_of",
    "rule_config",
    "rule_tables",
    "template_of",
    "validate_config",
]
