"""Which metavariables a YAML rule can bind, and the check that its fixes use no other.

Its ``fix``, its ``rewrite`` transforms and its rewriters' fixes are checked, as
``ast-grep scan`` checks them when it loads a rule: a name nothing binds would
insert nothing, silently.

What counts as bound, as the CLI counts it: every capturing name (``$A``, ``$$A``,
``$$$A``; not ``$_`` or ``$_A``) of every pattern in the rule tree (relational
and composite sub-rules, ``not`` and ``stopBy`` included), in the rule's own
``utils`` (all of them, used or not) and in its ``constraints``, plus the names
its ``transform`` defines. A project's shared utility rules (``utilDirs``) do
not count, even through ``matches``: the CLI refuses their names too. Arity is
not checked (``$$$A`` in a fix where the rule binds ``$A`` is accepted). A
rewriter's fix may also use what the rule that runs it binds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from xcsh.structural.pattern.compile import bound_metavariables
from xcsh.structural.pattern.rewrite import template_names
from xcsh.structural.rules.document import RewriteTransform
from xcsh.structural.rules.labels import RuleLabel
from xcsh.structural.rules.model import RuleObject, table_patterns
from xcsh.structural.rules.schema import RuleError, yaml_path


def bound_names(
    rule: RuleObject,
    *,
    local_utils: Mapping[str, RuleObject] | None = None,
    constraints: Mapping[str, RuleObject] | None = None,
    transforms: Iterable[str] = (),
) -> tuple[str, ...]:
    """The names a rule can bind, in first-seen order (see the module docstring)."""
    names: list[str] = []
    texts = [
        *rule.patterns(),
        *table_patterns(local_utils or {}),
        *table_patterns(constraints or {}),
    ]
    for text in texts:
        single, multi = bound_metavariables(text)
        names += [n for n in single + multi if n not in names]
    names += [n for n in transforms if n not in names]
    return tuple(names)


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(f"${n}" for n in names) if names else "no metavariables"


def check_fix_names(template: str, bound: tuple[str, ...], origin: str, where: str) -> None:
    """Refuse a fix ``template`` (at YAML path ``where``) naming a metavariable not in ``bound``.

    Raises:
        RuleError: naming the fix, the metavariable and what the rule binds.
    """
    for name, sigil in template_names(template):
        if name in bound:
            continue
        hint = (
            " Metavariables starting with `_` capture nothing."
            if name.startswith("_")
            else " Bind it in a pattern of the rule (or define it in `transform`), or "
            "remove it from the fix."
        )
        raise RuleError(
            origin,
            where,
            f"the fix `{template}` uses `{sigil}{name}`, which nothing in the rule binds, "
            f"so nothing could be inserted for it (the rule binds {_listed(bound)}).{hint}",
        )


def check_rewrite_sources(
    rewrites: Iterable[RewriteTransform], bound: tuple[str, ...], origin: str, where: str
) -> None:
    """Refuse a ``rewrite`` transform whose ``source`` names a metavariable not in ``bound``.

    Raises:
        RuleError: at ``transform.NAME.rewrite.source``.
    """
    for spec in rewrites:
        source = spec.source
        used = source.lstrip("$")
        if used in bound:
            continue
        raise RuleError(
            origin,
            yaml_path(yaml_path(yaml_path(where, spec.name), "rewrite"), "source"),
            f"`{source}` is not bound by the rule (it binds {_listed(bound)}). "
            "Rewrite a metavariable one of its patterns captures.",
        )


def check_label_names(
    labels: Iterable[RuleLabel], bound: tuple[str, ...], origin: str, where: str
) -> None:
    """Refuse a ``labels:`` entry naming a metavariable the rule does not bind.

    ``bound`` is what the rule and its constraints bind (a transform's name does not
    count: a label marks nodes, and a transform makes text), as ``ast-grep scan``
    checks at load.

    Raises:
        RuleError: at ``labels.NAME``.
    """
    for label in labels:
        if label.name in bound:
            continue
        raise RuleError(
            origin,
            yaml_path(where, label.name),
            f"the label names `${label.name}`, which the rule does not bind (it binds "
            f"{_listed(bound)}). Bind it in a pattern of the rule or of its constraints, "
            "or remove the label.",
        )
