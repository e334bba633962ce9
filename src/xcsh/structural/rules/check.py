"""Checking a rule, the pipeline's second stage: typed document -> :class:`CheckedRule`.

A :class:`~xcsh.structural.rules.document.RuleDocument` (from
:mod:`xcsh.structural.rules.read`) is checked as ``ast-grep scan`` checks a rule
at load, before any file is read, and as xcsh adds to it; the first problem is a
:class:`~xcsh.structural.rules.schema.RuleError` naming its YAML path and the fix.
In this order:

1. each rewriter: ast-grep's check of its configuration
   (:mod:`xcsh.structural.rules.validate`), then that its ``rewrite`` sources and
   its fix name only metavariables it or the rule binds
   (:mod:`xcsh.structural.rules.names`);
2. every pattern of the rule and of the utility rules it sees is within the size
   bounds of a ``pat``;
3. ast-grep's check of the rule's configuration (rule, constraints, utils,
   native transforms);
4. a pattern that does not parse where ast-grep needs it to
   (:mod:`xcsh.structural.rules.kinds`);
5. the rule's ``rewrite`` sources, ``labels`` and fix name only metavariables it
   binds.

What passes is a :class:`CheckedRule`: the document with the utility rules it sees
and the configurations ast-grep accepted, which
:mod:`xcsh.structural.rules.compile` compiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ast_grep_py import Config

from xcsh.core import ToolError
from xcsh.structural.base.languages import Language
from xcsh.structural.pattern.checks import check_pattern_size
from xcsh.structural.rules.document import RewriterSpec, RuleDocument, ast_grep_config
from xcsh.structural.rules.kinds import check_pattern_kinds
from xcsh.structural.rules.model import RuleObject, table_patterns
from xcsh.structural.rules.names import (
    bound_names,
    check_fix_names,
    check_label_names,
    check_rewrite_sources,
)
from xcsh.structural.rules.schema import RuleError, yaml_path
from xcsh.structural.rules.validate import validate_config


@dataclass(frozen=True, kw_only=True)
class CheckedRewriter:
    """One of a rule's ``rewriters``, checked.

    Attributes:
        spec: the rewriter as written.
        config: its configuration, as ast-grep accepted it.
        utils: the utility rules it sees by id (the rule's, then its own).
    """

    spec: RewriterSpec
    config: Config
    utils: dict[str, RuleObject]


@dataclass(frozen=True, kw_only=True)
class CheckedRule:
    """A rule document that passed every check, ready to compile.

    Attributes:
        document: the rule as read.
        utils: the utility rules it sees by id: the project's for its language, then
            its own (its own win).
        config: the configuration ast-grep-py runs (rule, constraints, utils and
            native transforms), as ast-grep accepted it.
        rewriters: its rewriters, in order.
    """

    document: RuleDocument
    utils: dict[str, RuleObject]
    config: Config
    rewriters: tuple[CheckedRewriter, ...] = ()


def check_rule(document: RuleDocument, shared: Mapping[str, RuleObject]) -> CheckedRule:
    """Check one typed rule document (see the module docstring for the order).

    Args:
        document: from :func:`~xcsh.structural.rules.read.read_document`.
        shared: the project's utility rules (``utilDirs``) of the rule's language, by id.

    Raises:
        RuleError: naming the YAML path of the first problem and the fix.
    """
    where, language = document.where, document.language
    utils = {**shared, **document.utils}
    transforms = document.transforms
    bound = bound_names(
        document.rule,
        local_utils=document.utils,
        constraints=document.constraints,
        transforms=transforms.names,
    )
    rewriters = tuple(
        _check_rewriter(spec, (where, language.name), utils, bound) for spec in document.rewriters
    )
    config = _rule_config(document, utils, language)
    check_pattern_kinds(document.rule, (utils, document.utils), language, where)
    check_rewrite_sources(transforms.rewrites, bound, where, "transform")
    marked = bound_names(
        document.rule, local_utils=document.utils, constraints=document.constraints
    )
    check_label_names(document.labels or (), marked, where, "labels")
    fix = document.fix
    if fix is not None:
        check_fix_names(fix.template, bound, where, "fix" if fix.is_text else "fix.template")
    return CheckedRule(document=document, utils=utils, config=config, rewriters=rewriters)


def _rule_config(
    document: RuleDocument, utils: dict[str, RuleObject], language: Language
) -> Config:
    """The configuration ast-grep-py runs, checked.

    Every pattern inside (the rule's and the utility rules') must be within the size
    bounds, then ast-grep checks the configuration once.

    Raises:
        RuleError: a pattern too big, or ast-grep refuses the configuration.
    """
    rule, where = document.rule, document.where
    config = ast_grep_config(
        rule,
        constraints=document.constraints,
        utils=utils,
        native=document.transforms.native,
    )
    for text in (*rule.patterns(), *table_patterns(utils)):
        try:  # the bounds of a `pat` hold for every pattern inside a rule
            check_pattern_size(text, language)
        except ToolError as exc:
            raise RuleError(where, "rule", str(exc)) from None
    validate_config(config, language.name, where, "")
    return config


def _check_rewriter(
    spec: RewriterSpec,
    place: tuple[str, str],
    utils: Mapping[str, RuleObject],
    outer: tuple[str, ...],
) -> CheckedRewriter:
    """One of a rule's ``rewriters``, checked.

    ``place`` is where the rule is, and its language; ``utils`` the utility rules
    the rule sees; ``outer`` the names the rule binds (a rewriter's fix may use them).

    Raises:
        RuleError: naming the YAML path of the problem.
    """
    origin, language = place
    where = spec.where
    local_utils = {**utils, **spec.utils}
    transforms = spec.transforms
    config = ast_grep_config(
        spec.rule, constraints=spec.constraints, utils=local_utils, native=transforms.native
    )
    validate_config(config, language, origin, where)
    bound = bound_names(
        spec.rule,
        local_utils=spec.utils,
        constraints=spec.constraints,
        transforms=transforms.native_first,
    )
    bound += tuple(n for n in outer if n not in bound)  # the calling rule's captures
    check_rewrite_sources(transforms.rewrites, bound, origin, yaml_path(where, "transform"))
    check_fix_names(spec.fix.template, bound, origin, yaml_path(where, "fix"))
    return CheckedRewriter(spec=spec, config=config, utils=local_utils)


__all__ = ["CheckedRewriter", "CheckedRule", "check_rule"]
