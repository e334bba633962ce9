"""Structural search and rewrite on ast-grep: the engine and the ``ast_grep``/``ast_edit`` tools.

Contract: contract §4. Matches and replacement text agree with the ``ast-grep``
CLI 0.51 for the same pattern, rewrite and file, except where contract §4 says
we deliberately differ (line endings, tab indentation, unbound
metavariables, unparsable patterns, nested matches reported).

Engine API (for the tools, ``xcsh ast-grep``/``xcsh ast-edit`` and benchmarks)::

    from xcsh.structural import (
        EditOp, EditSpec, MatchSpec, ScopeSpec, apply_preview, iter_matches, preview_edit, search,
    )

    where = ScopeSpec(root=".", lang="python")       # path, globs, lang: where to look
    what = MatchSpec(patterns=("print($$$A)",))       # patterns or rules, selector, strictness
    result = search(what, where, limit=None, progress=lambda done, total: ...)
    result.matches          # list[Match]; Match.to_cli_json() == one `ast-grep run --json` object
    result.total, result.skipped

    for match in iter_matches(what, ScopeSpec(root=".")):   # streaming, flat memory
        print(json.dumps(match.to_cli_json()))
    for record in iter_records(["print($$$A)"], RecordFormat(json=True), root="."):
        sys.stdout.write(record)  # the same JSON line, rendered without a Match (fast)

    edit = EditSpec(ops=(EditOp(pat="print($$$A)", out="log.info($$$A)"),))
    preview = preview_edit(edit, ScopeSpec(root="."))
    preview.files           # list[FileEdit]: .file, .replacements, .new_bytes, .old_sha256, .diff()
    preview.total, preview.skipped, preview.diff()
    apply_preview(preview)  # writes exactly preview's bytes; refuses stale files; all-or-nothing

:class:`ScopeSpec` says where a call looks: ``root`` (the workspace),
``path`` (file, folder or glob; default ``root``), ``globs`` (extra
filters), ``lang`` (inferred from extensions if omitted; an edit changing
files of several languages is an error). :class:`MatchSpec` says what it
matches: ``patterns`` or ``rules``, ``selector`` (``sel``), ``strictness``
(default ``smart``); :class:`EditSpec` adds the rewrites, ``limit`` and the
``include_*`` flags. Keyword arguments: ``progress(files_done,
files_total)``, ``workers`` (processes; default up to 2, small scans run
in-process). Every bad input raises :class:`xcsh.ToolError` with a message
naming the problem and the fix.

How it is fast: a file whose bytes lack one of the pattern's fixed tokens
(the text of its non-metavariable leaves) is never parsed; larger scans
run on a process pool (ast-grep-py holds the GIL while parsing), streamed
in walk order so memory holds only the matches kept.

Tools: :func:`create_ast_grep_tool` (read-only) and
:func:`create_ast_edit_tool` (every call a preview; a pending action
labelled ``AST Edit: <R> replacement(s) in <F> file(s)`` applies it).
"""

from typing import TYPE_CHECKING

from xcsh.core.lazy import lazy_exports
from xcsh.structural.base.languages import (
    LANGUAGES,
    Language,
    language_for_path,
    resolve_language,
    supported_languages,
)
from xcsh.structural.base.results import (
    Capture,
    EditPreview,
    FileEdit,
    Match,
    Position,
    Replacement,
    SearchResult,
    SkippedFile,
    Span,
    skipped_note,
)
from xcsh.structural.base.strictness import STRICTNESS_LEVELS, Strictness
from xcsh.structural.engine import (
    PARALLEL_MIN_BYTES,
    PARALLEL_MIN_FILES,
    AppliedEdit,
    EditOp,
    EditSpec,
    MatchSpec,
    ProgressCallback,
    Scope,
    ScopeSpec,
    apply_preview,
    check_one_language,
    error_patterns,
    explain_nothing_found,
    iter_matches,
    iter_records,
    preview_edit,
    resolve_scope,
    search,
    stale_files,
)
from xcsh.structural.matches.records import RecordFormat
from xcsh.structural.pattern.compile import CompiledPattern, compile_pattern

if TYPE_CHECKING:
    from xcsh.structural.rules import (
        CompiledRule,
        RuleError,
        load_rule_file,
        parse_rules,
        rule_from_parameter,
    )
    from xcsh.structural.rules.project import Project, find_config, load_project
    from xcsh.structural.tools.ast_tools import (
        AstEditParams,
        AstGrepParams,
        create_ast_edit_tool,
        create_ast_grep_tool,
        edit_label,
    )

# The tools (pydantic models, the tool interface) load only when asked for, so
# `xcsh ast-grep` runs on the engine alone.
__getattr__ = lazy_exports(
    __name__,
    {
        "xcsh.structural.tools.ast_tools": (
            "AstEditParams",
            "AstGrepParams",
            "create_ast_edit_tool",
            "create_ast_grep_tool",
            "edit_label",
        ),
        "xcsh.structural.rules": (
            "RuleError",
            "CompiledRule",
            "load_rule_file",
            "parse_rules",
            "rule_from_parameter",
        ),
        "xcsh.structural.rules.project": ("Project", "find_config", "load_project"),
    },
)


__all__ = [
    "LANGUAGES",
    "PARALLEL_MIN_BYTES",
    "PARALLEL_MIN_FILES",
    "STRICTNESS_LEVELS",
    "AppliedEdit",
    "AstEditParams",
    "AstGrepParams",
    "Capture",
    "CompiledPattern",
    "CompiledRule",
    "EditOp",
    "EditPreview",
    "EditSpec",
    "FileEdit",
    "Language",
    "Match",
    "MatchSpec",
    "Position",
    "ProgressCallback",
    "Project",
    "RecordFormat",
    "Replacement",
    "RuleError",
    "Scope",
    "ScopeSpec",
    "SearchResult",
    "SkippedFile",
    "Span",
    "Strictness",
    "apply_preview",
    "check_one_language",
    "compile_pattern",
    "create_ast_edit_tool",
    "create_ast_grep_tool",
    "edit_label",
    "error_patterns",
    "explain_nothing_found",
    "find_config",
    "iter_matches",
    "iter_records",
    "language_for_path",
    "load_project",
    "load_rule_file",
    "parse_rules",
    "preview_edit",
    "resolve_language",
    "resolve_scope",
    "rule_from_parameter",
    "search",
    "skipped_note",
    "stale_files",
    "supported_languages",
]
