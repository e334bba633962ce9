"""Reading a rule, the pipeline's first stage: text -> typed :class:`RuleDocument`.

The one place a rule is read by key. A rule file's text is parsed as YAML
(:mod:`xcsh.structural.rules.loader`, as ast-grep reads it), then each document
(or the tools' ``rule`` argument) becomes the frozen values of
:mod:`xcsh.structural.rules.document` and :mod:`xcsh.structural.rules.model`, its
shape checked key by key so that each problem is a
:class:`~xcsh.structural.rules.schema.RuleError` naming its YAML path and the fix.
Rule objects are read by :func:`~xcsh.structural.rules.schema.parse_rule`, after the
keys ast-grep ignores inside them are left out
(:func:`~xcsh.structural.rules.prune.drop_unknown_keys`).

What needs the rule's metavariables or ast-grep itself (the names a fix uses, the
size of each pattern, ast-grep's own check) is the next stage's:
:mod:`xcsh.structural.rules.check`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from xcsh.core import ToolError
from xcsh.structural.base.languages import Language, resolve_language
from xcsh.structural.rules.document import (
    Fix,
    NativeTransform,
    RewriterSpec,
    RewriteTransform,
    RuleDocument,
    Transform,
    Transforms,
)
from xcsh.structural.rules.labels import RuleLabel
from xcsh.structural.rules.model import RuleObject
from xcsh.structural.rules.prune import drop_unknown_keys
from xcsh.structural.rules.schema import (
    FIX_KEYS,
    PARAMETER_ORIGIN,
    REWRITER_KEYS,
    RULE_KEYS,
    SEVERITIES,
    TOP_KEYS,
    RuleError,
    RuleWarning,
    parse_rule,
    yaml_path,
)

_TRANSFORMS = ("replace", "substring", "convert", "rewrite")


_META_NAMES = re.compile(r"\$\$?\$?([A-Z_][A-Z0-9_]*)")


def read_yaml(text: str, origin: str) -> list[object]:
    """The documents of a rule file's ``text`` (separated by ``---``; empty ones left out).

    Raises:
        RuleError: not valid YAML (with its line and column), or no document at all.
    """
    import yaml  # only a rule file needs the YAML parser

    from xcsh.structural.rules import loader

    try:
        documents = [d for d in loader.load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        raise RuleError(origin, "", not_yaml(exc)) from None
    if not documents:
        raise RuleError(origin, "", "holds no rule. Write `id`, `language` and `rule`.")
    return documents


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


def read_document(
    document: object,
    origin: str,
    index: int | None,
    *,
    strict: bool,
    warnings: list[RuleWarning] | None,
) -> RuleDocument:
    """One rule document (parsed YAML, or the tools' ``rule`` argument), typed.

    ``index`` is its place in a file of several (``None``: the only one). A key
    ast-grep ignores inside a rule, a rewriter, a fix or a pattern object
    (``stopby``, ``inside.parent``) is refused when ``strict``; otherwise it is left
    out, as ast-grep does, and a :class:`RuleWarning` naming it is appended to
    ``warnings``. An unknown top-level key is always refused, as ast-grep does.

    Raises:
        RuleError: naming the YAML path of the first problem and the fix.
    """
    document, rid, where, language = _top_level(
        document, origin, index, strict=strict, warnings=warnings
    )
    rule = parse_rule(document["rule"], "rule", where)
    utils = _table(document.get("utils"), "utils", where, "`utils` maps names to rules.")
    constraints = _table(
        document.get("constraints"),
        "constraints",
        where,
        "`constraints` maps metavariable names to rules.",
    )
    severity = document.get("severity", "hint")
    if severity not in SEVERITIES:
        raise RuleError(where, "severity", f"use one of: {', '.join(SEVERITIES)}.")
    raw_rewriters = document.get("rewriters") or []
    if not isinstance(raw_rewriters, list):
        raise RuleError(where, "rewriters", "`rewriters` is a list of rules with `id` and `fix`.")
    ids = [str(r.get("id")) for r in raw_rewriters if isinstance(r, dict)]
    transforms = transforms_of(document.get("transform"), "transform", where, ids)
    rewriters = tuple(
        _rewriter(value, yaml_path("rewriters", i), where, ids)
        for i, value in enumerate(raw_rewriters)
    )
    message = document.get("message", "")
    note = document.get("note")
    return RuleDocument(
        id=rid,
        origin=origin,
        where=where,
        language=language,
        rule=rule,
        utils=utils,
        constraints=constraints,
        transforms=transforms,
        rewriters=rewriters,
        fix=fix_of(document.get("fix"), "fix", where),
        files=strings_of(document.get("files"), "files", where),
        ignores=strings_of(document.get("ignores"), "ignores", where),
        severity=str(severity),
        message=message if isinstance(message, str) else str(message),
        note=note if isinstance(note, str) or note is None else str(note),
        labels=labels_of(document.get("labels"), where),
    )


def _top_level(
    document: object,
    origin: str,
    index: int | None,
    *,
    strict: bool,
    warnings: list[RuleWarning] | None,
) -> tuple[dict[str, object], str, str, Language]:
    """A document's top level, checked.

    Returns the document without the keys ast-grep ignores, its id, where it is
    (for messages) and its language.

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
    named = f"rule `{rid}`"
    if origin != PARAMETER_ORIGIN:
        where = f"{where} {named}"
    else:  # the tools' `rule` parameter: already a rule, so not "rule rule `x`"
        where = named if index is None else f"{named} (document {index + 1})"
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
    return document, rid, where, language


def _table(value: object, key: str, origin: str, problem: str) -> dict[str, RuleObject]:
    """A table of named rules (``utils``, ``constraints``) at YAML path ``key``, each checked.

    Raises:
        RuleError: ``problem`` when it is not a mapping, or a bad rule inside.
    """
    value = value or {}
    if not isinstance(value, dict):
        raise RuleError(origin, key, problem)
    return {
        str(name): parse_rule(sub, yaml_path(key, str(name)), origin) for name, sub in value.items()
    }


def _rewriter(value: object, where: str, origin: str, ids: list[str]) -> RewriterSpec:
    """One of a rule's ``rewriters`` (at YAML path ``where``), checked and typed.

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
    rule = parse_rule(value.get("rule"), yaml_path(where, "rule"), origin)
    fix = fix_of(value.get("fix"), yaml_path(where, "fix"), origin)
    if fix is None:
        raise RuleError(origin, yaml_path(where, "fix"), "a rewriter needs a `fix`.")
    return RewriterSpec(
        id=rid,
        where=where,
        rule=rule,
        utils=_table(
            value.get("utils"), yaml_path(where, "utils"), origin, "`utils` maps names to rules."
        ),
        constraints=_table(
            value.get("constraints"),
            yaml_path(where, "constraints"),
            origin,
            "`constraints` maps metavariable names to rules.",
        ),
        transforms=transforms_of(
            value.get("transform"), yaml_path(where, "transform"), origin, ids
        ),
        fix=fix,
    )


def fix_of(value: object, where: str, origin: str) -> Fix | None:
    """A ``fix`` (at YAML path ``where``), ``None`` when absent.

    It is a template string, or ``{template, expandStart, expandEnd}``.

    Raises:
        RuleError: an unknown key, no ``template`` string, or a bad expand rule.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return Fix(template=value)
    if not isinstance(value, dict):
        raise RuleError(origin, where, "`fix` is a string or a mapping with `template`.")
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
    expand = {
        key: parse_rule(value[key], yaml_path(where, key), origin)
        for key in ("expandStart", "expandEnd")
        if key in value
    }
    return Fix(
        template=template,
        expand_start=expand.get("expandStart"),
        expand_end=expand.get("expandEnd"),
        is_text=False,
    )


def transforms_of(
    value: object, where: str, origin: str, rewriter_ids: Sequence[str]
) -> Transforms:
    """A ``transform`` (at YAML path ``where``), checked.

    Each name it defines is a transformation ast-grep-py evaluates, or a ``rewrite``
    with some of these ``rewriter_ids``.

    Raises:
        RuleError: not a mapping, an unknown transformation, a ``rewrite`` without
            ``source`` or ``rewriters`` or naming an unknown rewriter, or a
            transformation reading a ``rewrite``'s result.
    """
    if value is None:
        return Transforms()
    if not isinstance(value, dict):
        raise RuleError(
            origin, where, "`transform` maps new metavariable names to transformations."
        )
    entries = tuple(
        _transform(str(name), spec, yaml_path(where, str(name)), origin, rewriter_ids)
        for name, spec in value.items()
    )
    out = Transforms(entries=entries)
    rewritten = {entry.name for entry in out.rewrites}
    for entry in out.native:
        for used in _META_NAMES.findall(str(entry.written)):
            if used in rewritten:
                raise RuleError(
                    origin,
                    yaml_path(where, entry.name),
                    f"reads `{used}`, the result of a `rewrite`; xcsh cannot chain a "
                    "transformation after `rewrite` yet. Transform the source before rewriting.",
                )
    return out


def _transform(
    name: str, spec: object, here: str, origin: str, rewriter_ids: Sequence[str]
) -> Transform:
    """One transformation ``name`` (at YAML path ``here``), checked."""
    if isinstance(spec, str):
        if spec.strip().startswith("rewrite("):
            raise RuleError(
                origin,
                here,
                "the string form of `rewrite` is not supported; write it as a mapping "
                "`rewrite: {source: $A, rewriters: [ID], joinBy: ...}`.",
            )
        return NativeTransform(name=name, written=spec)
    if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in _TRANSFORMS:
        raise RuleError(
            origin, here, f"a transformation is one of: {', '.join(_TRANSFORMS)} (one key)."
        )
    kind, body = next(iter(spec.items()))
    if kind != "rewrite":
        return NativeTransform(name=name, written=spec)
    here = yaml_path(here, "rewrite")
    if not isinstance(body, dict) or "source" not in body or "rewriters" not in body:
        raise RuleError(origin, here, "`rewrite` needs `source` and `rewriters`.")
    chosen = tuple(body.get("rewriters") or [])
    for index, rid in enumerate(chosen):
        if rid not in rewriter_ids:
            raise RuleError(
                origin,
                yaml_path(yaml_path(here, "rewriters"), index),
                f"no rewriter `{rid}` in `rewriters`"
                + (f" (defined: {', '.join(rewriter_ids)})." if rewriter_ids else "."),
            )
    join_by = body.get("joinBy")
    return RewriteTransform(
        name=name,
        source=str(body["source"]),
        rewriters=tuple(str(rid) for rid in chosen),
        join_by=None if join_by is None else str(join_by),
    )


def strings_of(value: object, where: str, origin: str) -> tuple[str, ...]:
    """A glob or a list of globs (at YAML path ``where``); ``()`` when absent.

    Raises:
        RuleError: anything else.
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise RuleError(origin, where, "takes a glob or a list of globs.")


def labels_of(value: object, origin: str) -> tuple[RuleLabel, ...] | None:
    """``labels:`` of a rule document (``None`` when absent).

    Raises:
        RuleError: it is not a mapping of metavariable names to ``{style, message}``.
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RuleError(
            origin, "labels", "must map metavariable names to {style: primary|secondary}"
        )
    out = []
    for name, spec in value.items():
        where = f"labels.{name}"
        if not isinstance(spec, Mapping) or spec.get("style") not in ("primary", "secondary"):
            raise RuleError(origin, where, "needs style: primary or style: secondary")
        message = spec.get("message")
        if message is not None and not isinstance(message, str):
            raise RuleError(origin, f"{where}.message", "must be text")
        out.append(RuleLabel(name=str(name), primary=spec["style"] == "primary", message=message))
    return tuple(out)


__all__ = [
    "fix_of",
    "labels_of",
    "not_yaml",
    "read_document",
    "read_yaml",
    "strings_of",
    "transforms_of",
]
