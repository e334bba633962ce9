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
is done here: the ``fix`` (expanded by :mod:`xcsh.structural.rewrite`, with
``expandStart``/``expandEnd``), ``rewriters`` and the ``rewrite``
transform, file globs, severities and messages.

Every problem in a rule file is a :class:`RuleError` naming the file, the
document, the YAML path (``rule.inside.stopBy``) and the fix.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ast_grep_py import Config, SgNode, SgRoot

from xcsh.core import ToolError
from xcsh.structural.errors import Doubt
from xcsh.structural.languages import resolve_language
from xcsh.structural.pattern import bound_metavariables
from xcsh.structural.pattern_checks import check_pattern_size
from xcsh.structural.rewrite import Template, parse_template
from xcsh.structural.rule_labels import RuleLabel, parse_labels
from xcsh.structural.rule_schema import (
    REWRITER_KEYS,
    RULE_KEYS,
    SEVERITIES,
    TOP_KEYS,
    Fix,
    RuleError,
    RuleWarning,
    check_rule,
    drop_unknown_keys,
    fix_of,
    glob_regex,
    split_transforms,
    strings_of,
    yaml_path,
)
from xcsh.structural.rule_tokens import Requirement, admits, required_text
from xcsh.structural.rule_vars import (
    bound_names,
    check_fix_names,
    check_rewrite_sources,
    patterns_in,
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


@dataclass(frozen=True, kw_only=True)
class CompiledRule:
    """A checked YAML rule, ready to run on files (picklable for worker processes).

    Attributes:
        id: the rule's ``id``.
        source: where it came from (``rules/no-await.yml``), for messages.
        language: the ast-grep-py language id.
        config: the ``find_all`` configuration (``rule``, ``constraints``, ``utils``,
            and the transforms ast-grep-py evaluates).
        rewrites: ``rewrite`` transforms (evaluated by xcsh), by name.
        rewriters: the rule's rewriters by id.
        fix: the fix, or ``None`` (the rule only reports).
        template: the fix's template, parsed (unbound metavariables insert nothing).
        single: metavariable names of the rule's patterns (reported when bound).
        multi: ``$$$`` names of the rule's patterns.
        transforms: names of every transform, in order.
        required: the text a file must hold for the rule to match in it
            (:mod:`xcsh.structural.rule_tokens`); ``()`` when nothing is known.
        files: globs a file must match (relative to :attr:`base`), or empty for all.
        ignores: globs of files left out.
        severity, message, note: reported with each match (``message`` may hold metavariables).
        message_template: ``message`` parsed as a fix template, when it names a metavariable.
    """

    id: str
    source: str
    language: str
    config: dict[str, Any]
    rewrites: dict[str, dict[str, Any]] = field(default_factory=dict)
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
    branches: tuple[tuple[dict[str, Any], tuple[str, ...]], ...] = ()
    """The branches of the rule's ``any`` (top level, or in a top-level ``all``) with the
    ``$$$`` names each binds, when a name is bound on some branches only: such a name
    captured nothing is bound only if the first branch that matches binds it."""

    def multi_bound(self, node: SgNode, name: str) -> bool:
        """Whether the ``$$$name`` that captured nothing in the match ``node`` is bound
        (reported as ``[]``) rather than left unbound by an ``any`` branch that did not
        match, as the CLI tells them apart."""
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
    def selector(self) -> None:
        """Rules have no ``sel``."""
        return None

    def admits(self, raw: bytes) -> bool:
        """Whether a file of bytes ``raw`` holds the text the rule needs to match in it."""
        return admits(self.required, raw)

    def applies_to(self, file: str, path: Path | None = None) -> bool:
        """Whether a file passes ``files``/``ignores``: ``file`` is its workspace-relative
        ``/``-separated name, ``path`` its absolute path. The globs are read relative to
        :attr:`base` when the file is inside it, as ``ast-grep scan`` reads them
        relative to the project's folder, else to ``file``, and as ast-grep's globs
        (:func:`~xcsh.structural.rule_schema.glob_regex`: ``*`` also matches ``/``)."""
        if not self.files and not self.ignores:
            return True
        if self.base and path is not None:
            real = os.path.realpath(path)
            if real.startswith(self.base.rstrip(os.sep) + os.sep):
                file = real[len(self.base.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
        if self.ignores and glob_regex(self.ignores).match(file):
            return False
        return not self.files or glob_regex(self.files).match(file) is not None


def _names(rule: Any, utils: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    single: list[str] = []
    multi: list[str] = []
    for text in patterns_in(rule) + patterns_in(dict(utils)):
        s, m = bound_metavariables(text)
        single += [n for n in s if n not in single]
        multi += [n for n in m if n not in multi]
    return tuple(single), tuple(multi)


def _branches(
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
    text = str(exc).split("Stack backtrace:")[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [re.sub(r"^\d+:\s*", "", line) for line in lines if line != "Caused by:"]
    causes = [c for c in causes if c != "cannot get matcher"]
    return " ".join(causes) if causes else type(exc).__name__


def _validate(config: dict[str, Any], language: str, origin: str, where: str) -> None:
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


def _rewriter(
    value: Any,
    where: str,
    origin: str,
    language: str,
    utils: dict[str, Any],
    ids: list[str],
    outer: tuple[str, ...],
) -> Rewriter:
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
    _validate(config, language, origin, where)
    bound = bound_names(
        value["rule"],
        local_utils=value.get("utils") or {},
        constraints=value.get("constraints") or {},
        transforms=(*native, *rewrites),
    )
    bound += tuple(n for n in outer if n not in bound)  # the calling rule's captures
    check_rewrite_sources(rewrites, bound, origin, yaml_path(where, "transform"))
    check_fix_names(fix.template, bound, origin, yaml_path(where, "fix"))
    single, multi = _names(value["rule"], local_utils)
    names = single + tuple(native) + tuple(rewrites)
    return Rewriter(
        id=rid,
        config=config,
        fix=fix,
        template=_template(fix, names, multi, rid),
        rewrites=rewrites,
        names=names,
        multi=multi,
    )


def _template(fix: Fix, single: tuple[str, ...], multi: tuple[str, ...], rid: str) -> Template:
    return parse_template(fix.template, single=single, multi=multi, pattern=rid, strict=False)


def compile_rule(
    document: Any,
    *,
    origin: str,
    global_utils: Mapping[str, Mapping[str, Any]] | None = None,
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
        document: the parsed YAML mapping.
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
    severity = document.get("severity", "hint")
    if severity not in SEVERITIES:
        raise RuleError(where, "severity", f"use one of: {', '.join(SEVERITIES)}.")
    raw_rewriters = document.get("rewriters") or []
    if not isinstance(raw_rewriters, list):
        raise RuleError(where, "rewriters", "`rewriters` is a list of rules with `id` and `fix`.")
    ids = [str(r.get("id")) for r in raw_rewriters if isinstance(r, dict)]
    native, rewrites, transforms = split_transforms(
        document.get("transform"), "transform", where, ids
    )
    bound = bound_names(
        document["rule"], local_utils=local, constraints=constraints, transforms=transforms
    )
    rewriters = {
        r.id: r
        for r in (
            _rewriter(value, yaml_path("rewriters", i), where, language.name, utils, ids, bound)
            for i, value in enumerate(raw_rewriters)
        )
    }
    config: dict[str, Any] = {"rule": document["rule"]}
    if constraints:
        config["constraints"] = constraints
    if utils:
        config["utils"] = utils
    if native:
        config["transform"] = native
    for text in patterns_in(document["rule"]) + patterns_in(dict(utils)):
        try:  # the bounds of a `pat` hold for every pattern inside a rule
            check_pattern_size(text, language)
        except ToolError as exc:
            raise RuleError(where, "rule", str(exc)) from None
    _validate(config, language.name, where, "rule")
    single, multi = _names(document["rule"], utils)
    message = document.get("message", "")
    message = message if isinstance(message, str) else str(message)
    note = document.get("note")
    fix = fix_of(document.get("fix"), "fix", where)
    check_rewrite_sources(rewrites, bound, where, "transform")
    if fix is not None:
        fix_path = "fix" if isinstance(document.get("fix"), str) else "fix.template"
        check_fix_names(fix.template, bound, where, fix_path)
    return CompiledRule(
        id=rid,
        source=origin,
        language=language.name,
        config=config,
        rewrites=rewrites,
        rewriters=rewriters,
        fix=fix,
        template=None if fix is None else _template(fix, single + transforms, multi, rid),
        single=single,
        multi=multi,
        transforms=transforms,
        required=required_text(document["rule"], utils, language),
        branches=_branches(document["rule"], multi),
        files=strings_of(document.get("files"), "files", where),
        ignores=strings_of(document.get("ignores"), "ignores", where),
        severity=severity,
        message=message,
        message_template=(
            _template(Fix(template=message), (), (), rid) if "$" in message else None
        ),
        note=note if isinstance(note, str) or note is None else str(note),
        labels=parse_labels(document.get("labels"), where),
    )


def parse_rules(
    text: str,
    *,
    origin: str,
    global_utils: Mapping[str, Mapping[str, Any]] | None = None,
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

    try:
        documents = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise RuleError(origin, "", f"not valid YAML: {at}{problem}.") from None
    if not documents:
        raise RuleError(origin, "", "holds no rule. Write `id`, `language` and `rule`.")
    many = len(documents) > 1
    rules = []
    for index, document in enumerate(documents):
        language = document.get("language") if isinstance(document, dict) else None
        utils = _utils_for(global_utils, language)
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
    global_utils: Mapping[str, Mapping[str, Any]] | None, language: Any
) -> dict[str, Any]:
    if not global_utils or not isinstance(language, str):
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
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleError(origin, "", f"cannot read the rule file: {exc}.") from None
    rules = parse_rules(text, origin=origin, strict=strict, warnings=warnings)
    return based(rules, path.parent)


def based(rules: list[CompiledRule], folder: Path) -> list[CompiledRule]:
    """``rules`` with their ``files``/``ignores`` read relative to ``folder``."""
    base = os.path.realpath(folder)
    return [dataclasses.replace(rule, base=base) for rule in rules]


def rule_from_parameter(value: Any, *, origin: str = "rule") -> list[CompiledRule]:
    """The rules a tool's ``rule`` parameter gives: a mapping, or YAML text.

    Raises:
        RuleError: as :func:`parse_rules`.
    """
    if isinstance(value, str):
        return parse_rules(value, origin=origin)
    return [compile_rule(value, origin=origin)]
