"""The steps of compiling one typed rule document.

See :func:`xcsh.structural.rules.compile_rule`: the names it binds, its
rewriters, and the configuration ast-grep-py runs, each checked with the YAML
path of a problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ast_grep_py import Config, SgRoot

from xcsh.core import ToolError
from xcsh.structural.base.languages import Language
from xcsh.structural.pattern.checks import check_pattern_size
from xcsh.structural.pattern.compile import bound_metavariables
from xcsh.structural.pattern.rewrite import Template, parse_template
from xcsh.structural.rules.document import (
    Fix,
    NativeTransform,
    RewriterSpec,
    RewriteTransform,
    ast_grep_config,
)
from xcsh.structural.rules.model import RuleObject, table_patterns
from xcsh.structural.rules.names import bound_names, check_fix_names, check_rewrite_sources
from xcsh.structural.rules.schema import RuleError, yaml_path

if TYPE_CHECKING:
    from ast_grep_py import Rule


@dataclass(frozen=True, kw_only=True)
class Rewriter:
    """One of a rule's ``rewriters``: a rule with a fix, used by the ``rewrite`` transform.

    Attributes:
        id: its ``id``.
        config: the configuration ast-grep-py runs to find what it rewrites.
        fix: its ``fix``.
        template: the fix's template, parsed.
        rewrites: its own ``rewrite`` transformations.
        native: the names of the transformations ast-grep-py evaluates for it.
        names: the single metavariables it binds, then the names its transforms define.
        multi: the ``$$$`` names it binds.
    """

    id: str
    config: Config
    fix: Fix
    template: Template
    rewrites: tuple[RewriteTransform, ...] = ()
    native: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()


def names_of(
    rule: RuleObject, utils: Mapping[str, RuleObject]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The metavariables the patterns of ``rule`` and ``utils`` bind: single, then multi."""
    single: list[str] = []
    multi: list[str] = []
    for text in (*rule.patterns(), *table_patterns(utils)):
        s, m = bound_metavariables(text)
        single += [n for n in s if n not in single]
        multi += [n for n in m if n not in multi]
    return tuple(single), tuple(multi)


def branches_of(
    rule: RuleObject, multi: tuple[str, ...]
) -> tuple[tuple[Rule, tuple[str, ...]], ...]:
    """The ``any`` branches of ``rule`` (see :attr:`CompiledRule.branches`), or ``()``."""
    groups = [rule.any_branches()] + [item.any_branches() for item in rule.all_items()]
    out: list[tuple[Rule, tuple[str, ...]]] = []
    for group in groups:
        for branch in group:
            names = {m for text in branch.patterns() for m in bound_metavariables(text)[1]}
            out.append((branch.config, tuple(n for n in multi if n in names)))
    named = {n for _, names in out for n in names}
    optional = [n for n in named if not all(n in names for _, names in out)]
    return tuple(out) if optional else ()


def _ast_grep_problem(exc: BaseException) -> str:
    """ast-grep's complaint in one line, without its backtrace."""
    text = str(exc).split("Stack backtrace:")[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if line != "Caused by:"]
    causes = [c for c in causes if c != "cannot get matcher"]
    # a cause the next one repeats in full ("Invalid Kind", then "Kind `x` is invalid.")
    # is left out: joined, it read "Invalid Kind Kind `x` is invalid."
    causes = [
        cause
        for cause, after in zip(causes, [*causes[1:], ""], strict=True)
        if not _words(cause) <= _words(after)
    ]
    return " ".join(causes) if causes else type(exc).__name__


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


_STUB = {"regex": "^"}
"""A rule ast-grep accepts, standing for a utility rule while another one is checked."""


def refusal(config: Config, language: str) -> str | None:
    """ast-grep's complaint about ``config`` in one line, or None when it accepts it.

    ``config`` is run once on an empty tree of ``language``.
    """
    try:
        SgRoot("", language).root().find_all(config)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return _ast_grep_problem(exc).rstrip(".")
    return None


def refused_part(config: Config, language: str, problem: str) -> str:
    """The YAML path (inside its document) of the part of ``config`` ast-grep refuses.

    ``problem`` is ast-grep's complaint about the whole of it. The path is ``utils``
    when ast-grep names them; else ``rule`` when the rule with its utils is refused;
    else the first entry of ``constraints``, then of ``transform``, that is refused
    with the entries before it (``constraints.A``, ``transform.B``); else ``rule``.
    """
    whole: dict[str, object] = dict(config)
    if problem.startswith("`utils`"):
        return _refused_util(_entries(whole.get("utils")), language)
    base: dict[str, object] = {key: whole[key] for key in ("rule", "utils") if key in whole}
    if refusal(cast("Config", base), language) is not None:
        return "rule"
    for key in ("constraints", "transform"):
        entries = _entries(whole.get(key))
        grown: dict[str, object] = {}
        for name, entry in entries.items():
            grown[name] = entry
            if refusal(cast("Config", {**base, key: grown}), language) is not None:
                return yaml_path(key, name)
        if entries:
            base[key] = entries
    return "rule"


def _entries(part: object) -> dict[str, object]:
    """A mapping part of a rule (``utils``, ``constraints``, ``transform``), or ``{}``."""
    return {str(k): v for k, v in part.items()} if isinstance(part, Mapping) else {}


def _refused_util(utils: Mapping[str, object], language: str) -> str:
    """``utils.NAME`` of the first utility rule ast-grep refuses (else ``utils``).

    The rules not checked yet stand for rules it accepts until their turn.
    """
    grown: dict[str, object] = dict.fromkeys(utils, _STUB)
    for name, rule in utils.items():
        grown[name] = rule
        if refusal(cast("Config", {"rule": _STUB, "utils": grown}), language) is not None:
            return yaml_path("utils", name)
    return "utils"


def validate_config(config: Config, language: str, origin: str, where: str) -> None:
    """Let ast-grep-py check the configuration once, on an empty tree.

    ``where`` is the YAML path of the document part ``config`` comes from (``""``
    for the rule itself, ``rewriters[0]`` for a rewriter).

    Raises:
        RuleError: ast-grep refuses it (its own message, on one line), at the YAML
            path of the part refused (:func:`refused_part`).
    """
    problem = refusal(config, language)
    if problem is None:
        return
    part = yaml_path(where, refused_part(config, language, problem))
    raise RuleError(
        origin, part, f"ast-grep refused it: {problem}. Fix the rule as the message says."
    )


def check_utility(rule: RuleObject, names: Iterable[str], language: str, origin: str) -> None:
    """Let ast-grep check one shared utility rule (``utilDirs``), used or not.

    ``ast-grep scan`` checks them all at load. ``names`` are the ids of the utility
    rules of its language; each, and any other id its ``matches`` name, stands for a
    rule ast-grep accepts (a ``matches`` naming no rule is only refused where a rule
    uses it, as by ast-grep).

    Raises:
        RuleError: ast-grep refuses it, naming its file ``origin`` and ``rule``.
    """
    referenced = {*names, *_matched(rule.to_json())}
    config = cast("Config", {"rule": rule.to_json(), "utils": dict.fromkeys(referenced, _STUB)})
    problem = refusal(config, language)
    if problem is not None:
        raise RuleError(
            origin, "rule", f"ast-grep refused it: {problem}. Fix the rule as the message says."
        )


def _matched(value: object) -> Iterator[str]:
    """Every id a ``matches`` names inside the rule JSON ``value``."""
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "matches" and isinstance(sub, str):
                yield sub
            else:
                yield from _matched(sub)
    elif isinstance(value, list):
        for item in value:
            yield from _matched(item)


def _names(
    native: tuple[NativeTransform, ...], rewrites: tuple[RewriteTransform, ...]
) -> tuple[str, ...]:
    """The names the transformations define: ast-grep-py's, then the ``rewrite`` ones."""
    return tuple(n.name for n in native) + tuple(r.name for r in rewrites)


def rewriter_of(
    spec: RewriterSpec,
    place: tuple[str, str],
    utils: Mapping[str, RuleObject],
    outer: tuple[str, ...],
) -> Rewriter:
    """One of a rule's ``rewriters``, compiled and checked.

    ``place`` is where the rule is, and its language; ``utils`` the utility rules
    the rule sees; ``outer`` the names the rule binds.

    Raises:
        RuleError: naming the YAML path of the problem.
    """
    origin, language = place
    where = spec.where
    local_utils = {**utils, **spec.utils}
    native, rewrites = spec.transforms.native, spec.transforms.rewrites
    config = ast_grep_config(
        spec.rule, constraints=spec.constraints, utils=local_utils, native=native
    )
    validate_config(config, language, origin, where)
    bound = bound_names(
        spec.rule,
        local_utils=spec.utils,
        constraints=spec.constraints,
        transforms=_names(native, rewrites),
    )
    bound += tuple(n for n in outer if n not in bound)  # the calling rule's captures
    check_rewrite_sources(rewrites, bound, origin, yaml_path(where, "transform"))
    check_fix_names(spec.fix.template, bound, origin, yaml_path(where, "fix"))
    single, multi = names_of(spec.rule, local_utils)
    names = single + _names(native, rewrites)
    return Rewriter(
        id=spec.id,
        config=config,
        fix=spec.fix,
        template=template_of(spec.fix, names, multi, spec.id),
        rewrites=rewrites,
        native=tuple(n.name for n in native),
        names=names,
        multi=multi,
    )


def template_of(fix: Fix, single: tuple[str, ...], multi: tuple[str, ...], rid: str) -> Template:
    """The parsed template of a fix (or a message) naming these metavariables."""
    return parse_template(fix.template, single=single, multi=multi, pattern=rid, strict=False)


def rule_config(
    rule: RuleObject,
    tables: tuple[Mapping[str, RuleObject], Mapping[str, RuleObject], tuple[NativeTransform, ...]],
    language: Language,
    where: str,
) -> Config:
    """The configuration ast-grep-py runs, checked.

    ``tables`` are the constraints, utils and native transforms. ast-grep checks the
    configuration once, and every pattern inside must be within the size bounds.

    Raises:
        RuleError: a pattern too big, or ast-grep refuses the configuration.
    """
    constraints, utils, native = tables
    config = ast_grep_config(rule, constraints=constraints, utils=utils, native=native)
    for text in (*rule.patterns(), *table_patterns(utils)):
        try:  # the bounds of a `pat` hold for every pattern inside a rule
            check_pattern_size(text, language)
        except ToolError as exc:
            raise RuleError(where, "rule", str(exc)) from None
    validate_config(config, language.name, where, "")
    return config


def rewriters_of(
    specs: tuple[RewriterSpec, ...],
    place: tuple[str, str],
    utils: Mapping[str, RuleObject],
    bound: tuple[str, ...],
) -> dict[str, Rewriter]:
    """A rule's rewriters by id, each compiled and checked.

    ``place`` is where the rule is, and its language; ``bound`` the names the rule binds.

    Raises:
        RuleError: naming the YAML path of the problem.
    """
    built = (rewriter_of(spec, place, utils, bound) for spec in specs)
    return {r.id: r for r in built}


__all__ = [
    "Rewriter",
    "branches_of",
    "check_utility",
    "names_of",
    "refusal",
    "refused_part",
    "rewriter_of",
    "rewriters_of",
    "rule_config",
    "template_of",
    "validate_config",
]
