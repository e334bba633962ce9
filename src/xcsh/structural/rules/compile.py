"""YAML rules, as ``ast-grep scan`` reads them: the pipeline, and its last stage.

A rule file holds one or more YAML documents (``---``), each a rule with an
``id``, a ``language``, a ``rule`` (atomic, relational and composite keys),
and optionally ``constraints``, ``utils``, ``transform``, ``fix`` (a string,
or ``{template, expandStart, expandEnd}``), ``rewriters``, ``files``/``ignores``,
``severity``, ``message``, ``note`` and ``labels``; a project may add shared
utility rules (``utilDirs``).

Reading a rule is one pipeline, each stage a module whose typed output the next
takes:

1. :mod:`~xcsh.structural.rules.read`: text -> YAML documents -> a typed
   :class:`~xcsh.structural.rules.document.RuleDocument`;
2. :mod:`~xcsh.structural.rules.check`: the document -> a
   :class:`~xcsh.structural.rules.check.CheckedRule` (metavariable names, pattern
   sizes and kinds, ast-grep's own check);
3. here (:func:`compile_checked`): the checked rule -> a :class:`CompiledRule`,
   what it matches (:class:`~xcsh.structural.rules.matcher.RuleMatcher`) and what it
   adds to each match (:class:`~xcsh.structural.rules.extras.RuleExtras`).

:func:`parse_rules`, :func:`compile_rule`, :func:`load_rule_file` and
:func:`rule_from_parameter` run it. ast-grep-py evaluates the rule itself, with its
constraints, utils and transforms (``SgNode.find_all(config)``, ``get_transformed``);
what it lacks is xcsh's: the ``fix`` (expanded by
:mod:`xcsh.structural.pattern.rewrite`, with ``expandStart``/``expandEnd``),
``rewriters`` and the ``rewrite`` transform, file globs, severities and messages.

Every problem in a rule file is a :class:`RuleError` naming the file, the
document, the YAML path (``rule.inside.stopBy``) and the fix.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xcsh.fs import read_regular_bytes
from xcsh.structural.pattern.compile import bound_metavariables
from xcsh.structural.pattern.rewrite import Template, parse_template
from xcsh.structural.rules.check import CheckedRewriter, CheckedRule, check_rule
from xcsh.structural.rules.document import Fix
from xcsh.structural.rules.extras import Rewriter, RuleExtras
from xcsh.structural.rules.matcher import RuleMatcher
from xcsh.structural.rules.model import RuleObject, table_patterns
from xcsh.structural.rules.read import read_document, read_yaml
from xcsh.structural.rules.schema import PARAMETER_ORIGIN, RuleError, RuleWarning
from xcsh.structural.rules.tokens import required_text

if TYPE_CHECKING:
    from ast_grep_py import Rule

    from xcsh.structural.rules.labels import RuleLabel


@dataclass(frozen=True, kw_only=True)
class CompiledRule:
    """A checked YAML rule, ready to run on files (picklable for worker processes).

    Attributes:
        matcher: what it matches, and which files it reads (``files``/``ignores``).
        extras: what it adds to each match: its fix, transforms and report.
    """

    matcher: RuleMatcher
    extras: RuleExtras

    @property
    def id(self) -> str:
        """The rule's ``id``."""
        return self.extras.id

    @property
    def language(self) -> str:
        """The ast-grep-py language id of the files it runs on."""
        return self.matcher.language

    @property
    def severity(self) -> str:
        """Its ``severity`` (``off``: not run by ``xcsh scan``)."""
        return self.extras.severity

    @property
    def fix(self) -> Fix | None:
        """Its ``fix``, or ``None`` (the rule only reports)."""
        return self.extras.fix

    @property
    def labels(self) -> tuple[RuleLabel, ...] | None:
        """Its ``labels:``, or ``None`` (the report's default labels)."""
        return self.extras.labels


def compile_checked(checked: CheckedRule) -> CompiledRule:
    """The pipeline's last stage: a checked rule, compiled (nothing is refused here).

    Its metavariables, the text a file must hold (:func:`required_text`), its ``any``
    branches, its rewriters and the parsed templates of its fix and message.
    """
    document, utils = checked.document, checked.utils
    rid, transforms = document.id, document.transforms
    single, multi = _names_of(document.rule, utils)
    fix, message = document.fix, document.message
    matcher = RuleMatcher(
        source=document.origin,
        language=document.language.name,
        config=checked.config,
        single=single,
        multi=multi,
        required=required_text(document.rule, utils, document.language),
        files=document.files,
        ignores=document.ignores,
        branches=_branches_of(document.rule, multi),
    )
    extras = RuleExtras(
        id=rid,
        fix=fix,
        template=None if fix is None else _template(fix, single + transforms.names, multi, rid),
        rewrites=transforms.rewrites,
        native=tuple(n.name for n in transforms.native),
        rewriters={r.spec.id: _rewriter(r) for r in checked.rewriters},
        severity=document.severity,
        message=message,
        message_template=(
            _template(Fix(template=message), (), (), rid) if "$" in message else None
        ),
        note=document.note,
        labels=document.labels,
    )
    return CompiledRule(matcher=matcher, extras=extras)


def _rewriter(checked: CheckedRewriter) -> Rewriter:
    """One of a rule's ``rewriters``, compiled."""
    spec = checked.spec
    single, multi = _names_of(spec.rule, checked.utils)
    names = single + spec.transforms.native_first
    return Rewriter(
        id=spec.id,
        config=checked.config,
        fix=spec.fix,
        template=_template(spec.fix, names, multi, spec.id),
        rewrites=spec.transforms.rewrites,
        native=tuple(n.name for n in spec.transforms.native),
        names=names,
        multi=multi,
    )


def _names_of(
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


def _branches_of(
    rule: RuleObject, multi: tuple[str, ...]
) -> tuple[tuple[Rule, tuple[str, ...]], ...]:
    """The ``any`` branches of ``rule`` (see :attr:`RuleMatcher.branches`), or ``()``."""
    groups = [rule.any_branches()] + [item.any_branches() for item in rule.all_items()]
    out: list[tuple[Rule, tuple[str, ...]]] = []
    for group in groups:
        for branch in group:
            names = {m for text in branch.patterns() for m in bound_metavariables(text)[1]}
            out.append((branch.config, tuple(n for n in multi if n in names)))
    named = {n for _, names in out for n in names}
    optional = [n for n in named if not all(n in names for _, names in out)]
    return tuple(out) if optional else ()


def _template(fix: Fix, single: tuple[str, ...], multi: tuple[str, ...], rid: str) -> Template:
    """The parsed template of a fix (or a message) naming these metavariables."""
    return parse_template(fix.template, single=single, multi=multi, pattern=rid, strict=False)


def compile_rule(
    document: object,
    *,
    origin: str,
    global_utils: Mapping[str, RuleObject] | None = None,
    index: int | None = None,
    strict: bool = True,
    warnings: list[RuleWarning] | None = None,
) -> CompiledRule:
    """One rule document through the pipeline: read, checked, compiled.

    A key ast-grep ignores inside a rule, a rewriter, a fix or a pattern object
    (``stopby``, ``inside.parent``) is refused when ``strict``; otherwise it is
    left out, as ast-grep does, and a :class:`RuleWarning` naming it is appended
    to ``warnings``. An unknown top-level key is always refused, as ast-grep does.

    Args:
        document: the parsed YAML mapping (or the tools' ``rule`` argument).
        origin: where it came from, for messages (``rules/a.yml``).
        global_utils: utility rules of the project (``utilDirs``) by id, per language
            ``{language: {id: rule}}`` flattened by the caller to this rule's language.
        index: the document's position in its file (0-based), named in messages when
            the file holds several.
        strict: refuse keys ast-grep ignores.
        warnings: receives the warnings when not ``strict``.

    Raises:
        RuleError: naming the YAML path of the first problem and the fix.
    """
    typed = read_document(document, origin, index, strict=strict, warnings=warnings)
    checked = check_rule(typed, global_utils or {})
    return compile_checked(checked)


def parse_rules(
    text: str,
    *,
    origin: str,
    global_utils: Mapping[str, Mapping[str, RuleObject]] | None = None,
    strict: bool = True,
    warnings: list[RuleWarning] | None = None,
) -> list[CompiledRule]:
    """Every rule of a YAML text (documents separated by ``---``), through the pipeline.

    Each document is read, checked and compiled before the next is read, so the
    first problem of the file is the one raised. ``global_utils`` are the project's
    utility rules per language; ``strict`` and ``warnings`` as for
    :func:`compile_rule`; two rules sharing an id are refused when ``strict``, else
    both kept with a warning, as ast-grep runs both.

    Raises:
        RuleError: bad YAML (with its line and column) or a bad rule.
    """
    documents = read_yaml(text, origin)
    many = len(documents) > 1
    rules = []
    for index, raw in enumerate(documents):
        typed = read_document(
            raw, origin, index if many else None, strict=strict, warnings=warnings
        )
        shared = (global_utils or {}).get(typed.language.name, {})
        rules.append(compile_checked(check_rule(typed, shared)))
    ids = [r.id for r in rules]
    for rid in dict.fromkeys(rid for rid in ids if ids.count(rid) > 1):
        shared_id = RuleWarning(
            origin=origin,
            yaml_path="id",
            problem=f"{ids.count(rid)} rules share the id `{rid}` (give each its own)",
            ignored="each runs",
        )
        if strict:
            raise shared_id.as_error()
        if warnings is not None:
            warnings.append(shared_id)
    return rules


def load_rule_file(
    path: Path,
    *,
    display: str | None = None,
    strict: bool = True,
    warnings: list[RuleWarning] | None = None,
) -> list[CompiledRule]:
    """The rules of one ``.yml`` file (``strict``, ``warnings``: as for :func:`parse_rules`).

    Raises:
        RuleError: the file cannot be read, or holds a bad rule.
    """
    origin = display or str(path)
    try:
        text = read_regular_bytes(path).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(origin, "", f"cannot read the rule file: {exc}.") from None
    rules = parse_rules(text, origin=origin, strict=strict, warnings=warnings)
    return based(rules, path.parent)


def based(rules: list[CompiledRule], folder: Path) -> list[CompiledRule]:
    """``rules`` with their ``files``/``ignores`` read relative to ``folder``."""
    base = os.path.realpath(folder)
    return [
        dataclasses.replace(rule, matcher=dataclasses.replace(rule.matcher, base=base))
        for rule in rules
    ]


def rule_from_parameter(value: object, *, origin: str = PARAMETER_ORIGIN) -> list[CompiledRule]:
    """The rules a tool's ``rule`` parameter gives: a mapping, or YAML text.

    Raises:
        RuleError: as :func:`parse_rules`.
    """
    if isinstance(value, str):
        return parse_rules(value, origin=origin)
    return [compile_rule(value, origin=origin)]


__all__ = [
    "CompiledRule",
    "based",
    "compile_checked",
    "compile_rule",
    "load_rule_file",
    "parse_rules",
    "rule_from_parameter",
]
