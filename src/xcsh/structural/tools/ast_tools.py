"""The model-facing ``ast_grep`` and ``ast_edit`` tools (contract §4)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue, WithJsonSchema

from xcsh.checks import Checker
from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.journal import Journal
from xcsh.pending import PendingActionStore
from xcsh.structural.base.results import EditPreview, SearchResult
from xcsh.structural.base.strictness import Strictness
from xcsh.structural.engine import preview_edit, search
from xcsh.structural.rules.compile import CompiledRule, rule_from_parameter
from xcsh.structural.scan.spec import EditOp, EditSpec, MatchSpec, ScopeSpec
from xcsh.structural.tools.details import AstEditDetails, AstGrepDetails, LeftOutFile
from xcsh.structural.tools.edit_action import (
    EditAction,
    EditProducer,
    build_edit_action,
    push_edit_preview,
    staged_files,
)
from xcsh.structural.tools.edit_text import edit_label, nothing_pending_line, skipped_text
from xcsh.structural.tools.grep_text import (
    Enclosing,
    format_match,
    functions_line,
    grep_summary,
)
from xcsh.structural.tools.relaxed import (
    languages_held,
    relaxed_edit,
    relaxed_search,
    relaxed_search_note,
    scope_words,
)
from xcsh.structural.tools.rename_hint import CallScope, hinted

if TYPE_CHECKING:
    from xcsh.structural.scan.warm import WarmIndex

T = TypeVar("T")

_GREP_DESCRIPTION = (
    "Structural code search with ast-grep patterns (read-only). A pattern is code with "
    "metavariables: $A matches one node, $$$A any number of nodes (arguments, statements), "
    "$_ one node without capturing. Example: pat ['subprocess.Popen($$$A)'], lang 'python'. "
    "If a pattern is only a fragment that does not parse alone (a Go call, a method), give "
    "more context and select the node kind with sel, e.g. pat 'func t() { fmt.Println($$$A) }' "
    "with sel 'call_expression'. Prints each match as path:line:col with captured "
    "metavariables; use limit/offset to page."
)
_EDIT_DESCRIPTION = (
    "Structural rewrite with ast-grep patterns. Each op {pat, out} replaces every match of pat "
    "with out, where metavariables of pat ($A, $$$A) are substituted (empty out deletes the "
    "match). Every call is only a preview: nothing changes on disk until you call resolve "
    "with 'apply' (or 'discard'). Files with syntax errors, binary and non-UTF-8 files are "
    "skipped and listed. Use sel to target a node kind inside a pattern that needs context."
)


NO_CHECKS_HERE = "Check: not run (this runtime has no project check)."


def _one_as_list(value: object) -> object:
    """A single value where a list is expected becomes a one-element list.

    MCP clients (the Inspector among them) and small models send one pattern
    as a plain string, or one op as a plain object.
    """
    return [value] if isinstance(value, str | dict) else value


class _ScopeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lang: str | None = Field(
        default=None,
        description="Language (python, javascript, typescript, tsx, go, rust, ...). "
        "Inferred from file extensions when omitted.",
    )
    path: str | None = Field(
        default=None,
        description="File, folder or glob to search, relative to the working folder "
        "(default: the working folder).",
    )
    glob: list[str] | str | None = Field(
        default=None, description="Extra glob filter(s) such as '*.py' or 'src/**/*.ts'."
    )
    sel: str | None = Field(
        default=None,
        description="Node kind inside the pattern to match (for patterns that need context).",
    )
    strictness: Strictness = Field(
        default="smart", description="ast-grep strictness level; 'smart' is the default."
    )


RuleObject = Annotated[
    dict[str, JsonValue], WithJsonSchema({"additionalProperties": True, "type": "object"})
]
"""A YAML rule given as a JSON object (its schema for the model: any object)."""

_RULE_DESCRIPTION = (
    "A YAML rule instead of pat (as ast-grep scan reads it): an object or YAML text with "
    "id, language, rule (pattern, kind, regex, inside, has, precedes, follows, all, any, "
    "not, matches), and optionally constraints, utils, transform, fix, rewriters, "
    "files/ignores. Several rules: YAML documents separated by ---."
)


class AstGrepParams(_ScopeParams):
    """Arguments of ``ast_grep`` (contract §4)."""

    pat: Annotated[list[str] | None, BeforeValidator(_one_as_list)] = Field(
        default=None, min_length=1, description="One or more ast-grep patterns."
    )
    rule: RuleObject | str | None = Field(default=None, description=_RULE_DESCRIPTION)
    limit: int = Field(default=50, gt=0, description="Maximum matches to show (default 50).")
    offset: int = Field(default=0, ge=0, description="Matches to skip before showing (paging).")


class AstEditOp(BaseModel):
    """One rewrite of ``ast_edit``."""

    model_config = ConfigDict(extra="forbid")

    pat: str = Field(min_length=1, description="ast-grep pattern to match.")
    out: str = Field(description="Replacement; may use the pattern's metavariables. Empty deletes.")


class AstEditParams(_ScopeParams):
    """Arguments of ``ast_edit`` (contract §4)."""

    ops: Annotated[list[AstEditOp] | None, BeforeValidator(_one_as_list)] = Field(
        default=None, min_length=1, description="Rewrites to apply, {pat, out} each."
    )
    rule: RuleObject | str | None = Field(
        default=None, description=_RULE_DESCRIPTION + " Its fix is the rewrite."
    )
    limit: int | None = Field(
        default=None, gt=0, description="Maximum number of replacements (default: all)."
    )
    include_broken: bool = Field(
        default=False,
        description="Also rewrite files whose new text would have parse errors the old text "
        "did not have (left out and listed by default).",
    )
    include_parse_errors: bool = Field(
        default=False,
        description="Also rewrite files that already have parse errors (skipped by default; "
        "use it for valid files the parser gets wrong).",
    )
    check: bool = Field(
        default=False,
        description="Also run the project's check (its test command) on a staged copy with "
        "this change applied, before anyone decides: the preview then says whether it "
        "passes, newly fails (naming the tests), fails before and after, or timed out.",
    )


def _rules(
    given: Sequence[object] | None, rule: dict[str, JsonValue] | str | None, name: str
) -> list[CompiledRule]:
    """The rules of a ``rule`` argument; checks that exactly one of ``name`` and ``rule`` is given.

    Raises:
        ToolError: both or neither given, or a bad rule (naming its YAML path).
    """
    if (given is None) == (rule is None):
        raise ToolError(f"Give `{name}` or `rule` (a YAML rule), exactly one of them.")
    return [] if rule is None else rule_from_parameter(rule)


def _where(cwd: str, params: _ScopeParams) -> ScopeSpec:
    """The scope a call's ``path``, ``glob`` and ``lang`` name, in the workspace ``cwd``."""
    globs = params.glob
    return ScopeSpec(
        root=cwd,
        path=params.path,
        globs=() if globs is None else (globs,) if isinstance(globs, str) else tuple(globs),
        lang=params.lang,
    )


Progress = Callable[[int, int], None]
"""A scan's progress callback: files done, files in all."""


def _cancel_check(ctx: ToolCallContext, stopped: threading.Event) -> Progress:
    def progress(done: int, total: int) -> None:
        if ctx.cancel.is_set() or stopped.is_set():
            raise ToolError(
                f"Cancelled after {done} of {plural(total, 'file')}; nothing was changed."
            )

    return progress


class _Compute(Protocol):
    """``compute(progress=None)``: an edit previewed against the files as they are now."""

    def __call__(self, progress: Progress | None = None) -> EditPreview: ...


async def _scan_in_thread(ctx: ToolCallContext, scan: Callable[[Progress], T]) -> T:
    """``scan(progress)`` on a worker thread, stopped when the call is cancelled.

    Cancelling the awaiting task (Ctrl-C, SIGTERM, a closed MCP session)
    cannot stop a thread; the progress callback sees the flag set here and
    ends the scan and its worker processes at the next file or batch.
    """
    stopped = threading.Event()
    try:
        return await asyncio.to_thread(scan, _cancel_check(ctx, stopped))
    except asyncio.CancelledError:
        stopped.set()
        raise


def create_ast_grep_tool(
    cwd: str, *, index: WarmIndex | None = None, widen: bool = False
) -> AgentTool[AstGrepParams, AstGrepDetails]:
    """Build the read-only ``ast_grep`` tool for the workspace ``cwd`` (contract §4).

    With ``index`` (the session's :class:`~xcsh.structural.scan.warm.WarmIndex`),
    files unchanged since an earlier call are answered from it.

    A pattern that matched nothing where a relaxed form of it matches
    (:mod:`~xcsh.structural.tools.relaxed`) gets a note naming that form and its
    count; with ``widen`` (the compact profile) the relaxed form's matches are
    listed in its place, said so first; each match then also names the function it is
    in, and a last line lists those functions. A ``lang`` no file in scope has gets a
    note naming the languages the scope holds.

    The text lists each match as ``path:line:col`` (1-based) with its text and
    captured metavariables, then the total, a note when ``limit`` cut the list,
    and the skipped files. ``details`` is an
    :class:`~xcsh.structural.tools.details.AstGrepDetails`: the matches as the
    CLI's JSON objects, the total, offset, limit, files scanned and files left out.

    Raises (from ``execute``):
        ToolError: bad arguments (empty ``pat``, non-positive ``limit``,
            unknown language, malformed pattern, path outside the workspace).
    """

    async def run(params: AstGrepParams, ctx: ToolCallContext) -> AgentToolResult[AstGrepDetails]:
        rules = _rules(params.pat, params.rule, "pat")
        what = MatchSpec(
            patterns=tuple(params.pat or ()),
            rules=tuple(rules),
            selector=params.sel,
            strictness=params.strictness,
        )
        where = _where(cwd, params)

        async def searched(spec: MatchSpec) -> SearchResult:
            def scan(progress: Progress) -> SearchResult:
                return search(
                    spec,
                    where,
                    limit=params.limit,
                    offset=params.offset,
                    index=index,
                    progress=progress,
                )

            return await _scan_in_thread(ctx, scan)

        result = await searched(what)
        pats = ", ".join(f"`{p}`" for p in params.pat or []) or ", ".join(
            f"rule `{r.id}`" for r in rules
        )
        first: list[str] = []
        after: list[str] = []
        if result.total == 0 and result.files_scanned:
            words = await asyncio.to_thread(scope_words, where)
            found = await relaxed_search(what, searched, words)
            if found is not None:
                form, wide = found
                said = [relaxed_search_note(what.patterns[0], form, wide.total, shown=widen)]
                first, after = (said, []) if widen else ([], said)
                if widen:
                    result, pats = wide, f"`{form.pat}`"
        held = languages_held(where) if params.lang and not result.files_scanned else {}
        lines: list[str] = list(first)
        enclosing = Enclosing() if widen else None
        for match in result.matches:
            lines += format_match(match, enclosing)
        lines += grep_summary(result, params.lang, params.offset, pats, held) + after
        if enclosing is not None:
            lines += functions_line(result.matches, enclosing)
        skipped = skipped_text(result.skipped)
        if skipped:
            lines.append(skipped)
        details = AstGrepDetails(
            matches=tuple(m.to_cli_json() for m in result.matches),
            total=result.total,
            offset=params.offset,
            limit=params.limit,
            files_scanned=result.files_scanned,
            skipped=tuple(LeftOutFile(file=s.file, reason=s.reason) for s in result.skipped),
        )
        return AgentToolResult(content=[TextContent("\n".join(lines))], details=details)

    return AgentTool(
        name="ast_grep",
        label="AST Grep",
        description=_GREP_DESCRIPTION,
        parameters=AstGrepParams,
        run=run,
        read_only=True,
    )


def _edit_spec(params: AstEditParams) -> EditSpec:
    """The edit an ``ast_edit`` call asks for (its ops, or its rule, and how to match)."""
    return EditSpec(
        ops=tuple(EditOp(pat=op.pat, out=op.out) for op in params.ops or ()),
        rules=tuple(_rules(params.ops, params.rule, "ops")),
        selector=params.sel,
        strictness=params.strictness,
        limit=params.limit,
        include_broken=params.include_broken,
        include_parse_errors=params.include_parse_errors,
    )


def create_ast_edit_tool(
    cwd: str,
    store: PendingActionStore,
    *,
    journal: Journal | None = None,
    checker: Checker | None = None,
    index: WarmIndex | None = None,
    widen_renames: bool = False,
) -> AgentTool[AstEditParams, AstEditDetails]:
    """Build the ``ast_edit`` tool: every call previews; ``resolve`` applies (contract §4).

    ``index``: the session's warm index, as for :func:`create_ast_grep_tool`
    (a preview rebuilt by ``resolve`` uses it too).

    With at least one replacement the call pushes a :class:`PendingAction`
    labelled ``AST Edit: <R> replacement(s) in <F> file(s)``,
    ``source_tool_name="ast_edit"``, without ``reject``; the result's and the
    action's ``details`` are an :class:`~xcsh.structural.tools.details.AstEditDetails`:
    the typed preview, its label and total, the files left out, the closing
    notes and the call's arguments. Its ``apply(reason)`` writes exactly the previewed bytes via
    :func:`~xcsh.structural.engine.apply_preview`, recorded in ``journal``
    (the workspace's undo journal; the session passes it), and raises
    :class:`ToolError` if a file changed since the preview.

    Zero replacements: the text is ``No replacements made`` (plus notes) and
    nothing is pushed. Overlapping ops fail the call with a ToolError naming them.

    Ops renaming a callee (``old($$$A)`` → ``new($$$A)``) say which uses of the
    name they leave; with ``widen_renames`` (the compact profile), matching no call,
    they preview the bare-name rename instead (:mod:`~xcsh.structural.tools.rename_hint`).
    An op that matched nothing where a relaxed form of it matches
    (:mod:`~xcsh.structural.tools.relaxed`) gets a note naming that form and its count;
    with ``widen_renames`` that form is previewed in its place, said so first. A result
    that pushed nothing ends with whether anything is pending (:func:`nothing_pending_line`).

    With ``checker`` (the workspace's project check), a call with ``check: true``
    (or every call, under ``check_when = "always"``) runs the check on a staged
    copy with the preview applied; the verdict is the typed preview's ``check``
    and a paragraph of the text.
    """
    producer = EditProducer(
        store=store, journal=journal, check_files=checker.check if checker is not None else None
    )

    async def run(params: AstEditParams, ctx: ToolCallContext) -> AgentToolResult[AstEditDetails]:
        edit = _edit_spec(params)
        where = _where(cwd, params)

        def computing(spec: EditSpec) -> _Compute:
            def compute(progress: Progress | None = None) -> EditPreview:
                return preview_edit(spec, where, progress=progress, index=index)

            return compute

        async def scan(spec: EditSpec) -> EditPreview:
            return await _scan_in_thread(ctx, computing(spec))

        scope = CallScope(lang=params.lang, path=params.path, glob=params.glob, check=params.check)
        offered = await hinted(
            edit, await scan(edit), params.model_dump(), scan, scope=scope, widen=widen_renames
        )
        if not offered.preview.total and offered.preview.files_scanned:
            words = await asyncio.to_thread(scope_words, where)
            offered = await relaxed_edit(edit, offered, scan, words, widen=widen_renames)
        held = languages_held(where) if params.lang and not offered.preview.files_scanned else {}
        preview = offered.preview
        verdict, note = None, ""
        if checker is not None:
            verdict, note = await checker.review(staged_files(preview), asked=params.check)
        elif params.check and preview.total:
            note = NO_CHECKS_HERE
        result = push_edit_preview(
            producer,
            preview,
            offered.arguments,
            recompute=computing(offered.edit),
            check=verdict,
            check_note=note,
            notes=offered.notes,
            apply_note=offered.apply_note,
            held_languages=held,
        )
        if preview.total:
            return result
        # second, so that a note ending with a call to make stays last
        head, _, rest = result.text.partition("\n")
        said = "\n".join([head, nothing_pending_line(store.count), *([rest] if rest else [])])
        return dataclasses.replace(result, content=[TextContent(said)])

    return AgentTool(
        name="ast_edit",
        label="AST Edit",
        description=_EDIT_DESCRIPTION,
        parameters=AstEditParams,
        run=run,
    )


__all__ = [
    "AstEditOp",
    "AstEditParams",
    "AstGrepParams",
    "EditAction",
    "EditProducer",
    "build_edit_action",
    "create_ast_edit_tool",
    "create_ast_grep_tool",
    "edit_label",
    "push_edit_preview",
]
