"""YAML rules, as ``ast-grep scan`` reads them: loading, checking, compiling.

A rule file holds one or more YAML documents (``---``), each a rule with an
``id``, a ``language``, a ``rule`` (atomic, relational and composite keys),
and optionally ``constraints``, ``utils``, ``transform``, ``fix`` (a string,
or ``{template, expandStart, expandEnd}``), ``rewriters``, ``files`` /
``ignores`` globs, ``severity``, ``message`` and ``note``. A project's
``sgconfig.yml`` names folders of rule files (``ruleDirs``) and of shared
utility rules (``utilDirs``).

ast-grep-py evaluates the rule itself, with its constraints, utils and
transforms (``SgNode.find_all(config)``, ``get_transformed``). What it lacks
is done here: the ``fix`` (expanded by :mod:`xcsh.structural.pattern.rewrite`, with
``expandStart``/``expandEnd``), ``rewriters`` and the ``rewrite``
transform, file globs, severities and messages.

Every problem in a rule file is a :class:`RuleError` naming the file, the
document, the YAML path (``rule.inside.stopBy``) and the fix.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ast_grep_py import Config, SgNode

from xcsh.core import ToolError
from xcsh.fs import read_regular_bytes
from xcsh.structural.base.errors import Doubt
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.base.matcher import Requirement, admits
from xcsh.structural.pattern.rewrite import Template
from xcsh.structural.rules.adapter import document_language, read_document
from xcsh.structural.rules.document import Fix, RewriteTransform
from xcsh.structural.rules.kinds import check_pattern_kinds
from xcsh.structural.rules.labels import RuleLabel
from xcsh.structural.rules.model import RuleObject
from xcsh.structural.rules.names import (
    bound_names,
    check_fix_names,
    check_label_names,
    check_rewrite_sources,
)
from xcsh.structural.rules.parts import (
    Rewriter,
    branches_of,
    names_of,
    rewriters_of,
    rule_config,
    template_of,
)
from xcsh.structural.rules.schema import PARAMETER_ORIGIN, RuleError, RuleWarning, glob_regex
from xcsh.structural.rules.tokens import required_text

if TYPE_CHECKING:
    from ast_grep_py import Rule


@dataclass(frozen=True, kw_only=True)
class CompiledRule:
    """A checked YAML rule, ready to run on files (picklable for worker processes).

    Attributes:
        id: the rule's ``id``.
        source: where it came from (``rules/no-await.yml``), for messages.
        language: the ast-grep-py language id.
        config: the ``find_all`` configuration (``rule``, ``constraints``, ``utils``,
            and the transforms ast-grep-py evaluates).
        rewrites: ``rewrite`` transforms (evaluated by xcsh), in order.
        native: the names of the transforms ast-grep-py evaluates.
        rewriters: the rule's rewriters by id.
        fix: the fix, or ``None`` (the rule only reports).
        template: the fix's template, parsed (unbound metavariables insert nothing).
        single: metavariable names of the rule's patterns (reported when bound).
        multi: ``$$$`` names of the rule's patterns.
        transforms: names of every transform, in order.
        required: the text a file must hold for the rule to match in it
            (:mod:`xcsh.structural.rules.tokens`); ``()`` when nothing is known.
        files: globs a file must match (relative to :attr:`base`), or empty for all.
        ignores: globs of files left out.
        severity, message, note: reported with each match (``message`` may hold metavariables).
        message_template: ``message`` parsed as a fix template, when it names a metavariable.
    """

    id: str
    source: str
    language: str
    config: Config
    rewrites: tuple[RewriteTransform, ...] = ()
    native: tuple[str, ...] = ()
    rewriters: dict[str, Rewriter] = field(default_factory=dict)
    fix: Fix | None = None
    template: Template | None = None
    single: tuple[str, ...] = ()
    multi: tuple[str, ...] = ()
    transforms: tuple[str, ...] = ()
    required: Requirement = ()
    files: tuple[str, ...] = ()
    ignores: tuple[str, ...] = ()
    severity: str = "hint"
    message: str = ""
    note: str | None = None
    labels: tuple[RuleLabel, ...] | None = None
    """``labels:``, which replace the default labels of the rule's report."""
    message_template: Template | None = None
    doubt: Doubt | None = None
    has_error: bool = False
    trailing_multi: tuple[str, ...] = ()
    base: str = ""
    """The real path of the folder ``files``/``ignores`` are relative to: the project's
    (the folder of ``sgconfig.yml``), or a ``--rule`` file's own; ``""`` for the workspace."""
    branches: tuple[tuple[Rule, tuple[str, ...]], ...] = ()
    """The branches of the rule's ``any`` (top level, or in a top-level ``all``) with the
    ``$$$`` names each binds, when a name is bound on some branches only: such a name
    captured nothing is bound only if the first branch that matches binds it."""

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether ``$$$name``, which captured nothing in the match ``node``, is bound.

        Bound, it is reported as ``[]``; an ``any`` branch that did not match leaves it
        unbound instead, as the CLI tells them apart.
        """
        if name in self.trailing_multi:
            return False  # never reached by ast-grep's matcher
        if not any(name in names for _, names in self.branches):
            return True
        for branch, names in self.branches:
            try:
                if node.matches(**branch):
                    return name in names
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException:  # a branch ast-grep-py cannot check alone (utils)
                return True
        return True

    @property
    def yaml_rule(self) -> CompiledRule:
        """The rule itself.

        Its fix, transforms, severity, message and labels come with each match.
        """
        return self

    def find_all(self, root: SgNode) -> list[SgNode]:
        """Every node under ``root`` (itself included) the rule matches, in source order."""
        return root.find_all(self.config)

    def matches(self, node: SgNode) -> bool:
        """Whether ``node`` itself matches the rule (constraints and utilities included)."""
        return node.find(self.config) == node

    def may_match(self, raw: bytes, file: str, path: Path | None = None) -> bool:
        """Whether a file may hold a match.

        Its bytes ``raw`` must hold the text the rule needs, and its name must pass
        ``files``/``ignores`` (see :meth:`applies_to`).
        """
        return self.admits(raw) and self.applies_to(file, path)

    def admits(self, raw: bytes) -> bool:
        """Whether a file of bytes ``raw`` holds the text the rule needs to match in it."""
        return admits(self.required, raw)

    def applies_to(self, file: str, path: Path | None = None) -> bool:
        """Whether a file passes ``files``/``ignores``.

        ``file`` is its workspace-relative ``/``-separated name, ``path`` its
        absolute path. The globs are read relative to
        :attr:`base` when the file is inside it, as ``ast-grep scan`` reads them
        relative to the project's folder, else to ``file``, and as ast-grep's globs
        (:func:`~xcsh.structural.rules.schema.glob_regex`: ``*`` also matches ``/``).
        """
        if not self.files and not self.ignores:
            return True
        if self.base and path is not None:
            real = os.path.realpath(path)
            if real.startswith(self.base.rstrip(os.sep) + os.sep):
                file = real[len(self.base.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
        if self.ignores and glob_regex(self.ignores).match(file):
            return False
        return not self.files or glob_regex(self.files).match(file) is not None


def compile_rule(
    document: object,
    *,
    origin: str,
    global_utils: Mapping[str, RuleObject] | None = None,
    index: int | None = None,
    strict: bool = True,
    warnings: list[RuleWarning] | None = None,
) -> CompiledRule:
    """Check one rule document and compile it.

    A key ast-grep ignores inside a rule, a rewriter, a fix or a pattern object
    (``stopby``, ``inside.parent``) is refused when ``strict``; otherwise it is
    left out, as ast-grep does, and a :class:`RuleWarning` naming it is appended
    to ``warnings``. An unknown top-level key is always refused, as ast-grep does.

    Args:
        document: the parsed YAML mapping (or the tools' ``rule`` argument), read by
            :func:`~xcsh.structural.rules.adapter.read_document`.
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
    doc = read_document(document, origin, index, strict=strict, warnings=warnings)
    where, language, rid = doc.where, doc.language, doc.id
    utils = {**(global_utils or {}), **doc.utils}
    native, rewrites = doc.transforms.native, doc.transforms.rewrites
    transforms = doc.transforms.names
    bound = bound_names(
        doc.rule, local_utils=doc.utils, constraints=doc.constraints, transforms=transforms
    )
    rewriters = rewriters_of(doc.rewriters, (where, language.name), utils, bound)
    config = rule_config(doc.rule, (doc.constraints, utils, native), language, where)
    check_pattern_kinds(doc.rule, (utils, doc.utils), language, where)
    single, multi = names_of(doc.rule, utils)
    fix, message = doc.fix, doc.message
    check_rewrite_sources(rewrites, bound, where, "transform")
    marked = bound_names(doc.rule, local_utils=doc.utils, constraints=doc.constraints)
    check_label_names(doc.labels or (), marked, where, "labels")
    if fix is not None:
        check_fix_names(fix.template, bound, where, "fix" if fix.is_text else "fix.template")
    return CompiledRule(
        id=rid,
        source=origin,
        language=language.name,
        config=config,
        rewrites=rewrites,
        native=tuple(n.name for n in native),
        rewriters=rewriters,
        fix=fix,
        template=None if fix is None else template_of(fix, single + transforms, multi, rid),
        single=single,
        multi=multi,
        transforms=transforms,
        required=required_text(doc.rule, utils, language),
        branches=branches_of(doc.rule, multi),
        files=doc.files,
        ignores=doc.ignores,
        severity=doc.severity,
        message=message,
        message_template=(
            template_of(Fix(template=message), (), (), rid) if "$" in message else None
        ),
        note=doc.note,
        labels=doc.labels,
    )


def not_yaml(exc: Exception) -> str:
    """``not valid YAML: line 2, column 6: PROBLEM.``: pyyaml's error in one line.

    Args:
        exc: a ``yaml.YAMLError`` (its line and column, counted from 1, when it
            has a mark; its whole text only when it has no problem of its own).
    """
    mark = getattr(exc, "problem_mark", None)
    at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc)
    return f"not valid YAML: {at}{problem}."


def parse_rules(
    text: str,
    *,
    origin: str,
    global_utils: Mapping[str, Mapping[str, RuleObject]] | None = None,
    strict: bool = True,
    warnings: list[RuleWarning] | None = None,
) -> list[CompiledRule]:
    """Every rule of a YAML text (documents separated by ``---``), compiled.

    ``strict`` and ``warnings`` as for :func:`compile_rule`; two rules sharing an
    id are refused when ``strict``, else both kept with a warning, as ast-grep
    runs both.

    Raises:
        RuleError: bad YAML (with its line and column) or a bad rule.
    """
    import yaml  # only a rule file needs the YAML parser

    from xcsh.structural.rules import loader

    try:
        documents = [d for d in loader.load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        raise RuleError(origin, "", not_yaml(exc)) from None
    if not documents:
        raise RuleError(origin, "", "holds no rule. Write `id`, `language` and `rule`.")
    many = len(documents) > 1
    rules = []
    for index, document in enumerate(documents):
        utils = _utils_for(global_utils, document_language(document))
        rules.append(
            compile_rule(
                document,
                origin=origin,
                global_utils=utils,
                index=index if many else None,
                strict=strict,
                warnings=warnings,
            )
        )
    ids = [r.id for r in rules]
    for rid in dict.fromkeys(rid for rid in ids if ids.count(rid) > 1):
        shared = RuleWarning(
            origin=origin,
            yaml_path="id",
            problem=f"{ids.count(rid)} rules share the id `{rid}` (give each its own)",
            ignored="each runs",
        )
        if strict:
            raise shared.as_error()
        if warnings is not None:
            warnings.append(shared)
    return rules


def _utils_for(
    global_utils: Mapping[str, Mapping[str, RuleObject]] | None, language: str | None
) -> dict[str, RuleObject]:
    """The project's utility rules a document in ``language`` sees (none when unknown)."""
    if not global_utils or language is None:
        return {}
    try:
        name = resolve_language(language).name
    except ToolError:
        return {}
    return dict(global_utils.get(name, {}))


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
    return [dataclasses.replace(rule, base=base) for rule in rules]


def rule_from_parameter(value: object, *, origin: str = PARAMETER_ORIGIN) -> list[CompiledRule]:
    """The rules a tool's ``rule`` parameter gives: a mapping, or YAML text.

    Raises:
        RuleError: as :func:`parse_rules`.
    """
    if isinstance(value, str):
        return parse_rules(value, origin=origin)
    return [compile_rule(value, origin=origin)]
