"""``xcsh ast-edit``'s preview: one edit across every PATH."""

from __future__ import annotations

import dataclasses

from xcsh.cli.options import EditOptions
from xcsh.cli.rule_files import load_rules
from xcsh.structural import (
    EditOp,
    EditPreview,
    EditSpec,
    ScopeSpec,
    check_one_language,
    preview_edit,
)


def merged_preview(options: EditOptions, root: str, paths: list[str]) -> EditPreview:
    """One preview across every PATH, each file read once (by real path).

    Each file is rewritten in its own language (as ``ast-grep run`` infers one
    per file) unless ``-l`` names one; a ``-p``/``-r`` rewrite that would change
    files of several languages is refused, YAML rules (each written for its own
    language) are not. ``--limit`` counts across PATHs, in the order given.
    """
    covered: set[str] = set()
    merged: EditPreview | None = None
    remaining = options.limit
    rules = load_rules(options)
    edit = EditSpec(
        ops=()
        if rules or options.pattern is None
        else (EditOp(pat=options.pattern, out=options.rewrite or ""),),
        rules=tuple(rules),
        selector=options.selector,
        strictness=options.strictness,
        include_broken=options.include_broken,
        include_parse_errors=options.include_parse_errors,
    )
    for path in paths:
        preview = preview_edit(
            dataclasses.replace(edit, limit=remaining),
            ScopeSpec(root=root, path=path, globs=options.globs, lang=options.lang),
            captures=bool(options.json),
            covered=covered if len(paths) > 1 else None,
        )
        if merged is None:
            merged = preview
        else:
            merged.files.extend(preview.files)
            merged.skipped.extend(s for s in preview.skipped if s not in merged.skipped)
            merged.files_scanned += preview.files_scanned
            merged.identical += preview.identical
            merged.limit_reached = merged.limit_reached or preview.limit_reached
        if remaining is not None:
            remaining -= preview.total
            if remaining <= 0:
                break
    assert merged is not None  # paths is never empty
    if options.lang is None and not rules:  # each rule names its own language
        check_one_language(merged)
    return merged
