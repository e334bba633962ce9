"""A rename written as a call pattern, and what it leaves under the old name.

Asked to rename a function, a model often writes the op ``old($$$A)`` →
``new($$$A)``. That pattern matches only calls written with the bare name: not
the definition, not ``module.old(...)``, not an import. :func:`callee_renames`
tells such ops; the ``ast_edit`` tool then previews the bare-name rename
(``old`` → ``new``) as well, and either offers it in place of a preview that
matched nothing (:func:`widened_note`) or says which uses of the old name the
preview leaves (:func:`left_note`, and :func:`remaining_note` after an apply).
Where nothing is previewed in its place, :func:`bare_call_notes` says why such a
pattern may have matched nothing.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from xcsh.core import JsonObject, JsonValue
from xcsh.core.wording import name_list, plural
from xcsh.structural.base.results import EditPreview
from xcsh.structural.scan.spec import EditOp, EditSpec

BARE_CALL = re.compile(r"(?P<name>[A-Za-z_]\w*)\(\$\$\$(?P<var>\w*)\)")
"""An op's ``pat`` or ``out`` that is a call of a bare name with all its arguments."""


@dataclass(frozen=True, kw_only=True)
class CallScope:
    """The arguments of the call made that a call a note proposes keeps.

    Args:
        lang, path, glob, check: the ``ast_edit`` call's, as given (``None`` or
            ``False``: not given, and left out of the proposed call).
    """

    lang: str | None = None
    path: str | None = None
    glob: list[str] | str | None = None
    check: bool = False

    def arguments(self) -> JsonObject:
        """The arguments given, in this order, as a proposed call writes them."""
        glob: JsonValue = list[JsonValue](self.glob) if isinstance(self.glob, list) else self.glob
        given: list[tuple[str, JsonValue]] = [
            ("lang", self.lang),
            ("path", self.path),
            ("glob", glob),
            ("check", self.check),
        ]
        return {key: value for key, value in given if value}


_SHOWN = 3
"""How many places of the old name a note lists."""


@dataclass(frozen=True)
class CalleeRename:
    """An op ``old($$$A)`` → ``new($$$A)``: only the called name changes."""

    old: str
    new: str


def bare_call_notes(edit: EditSpec, scope: CallScope) -> list[str]:
    """Why an op whose ``pat`` is a call of a bare name (``old($$$A)``) may have matched nothing.

    Such a pattern matches only calls written with the bare name, not
    ``module.old(...)`` or ``obj.old(...)``; a small model renaming a function
    often writes it. One note per such op of ``edit``, naming the bare-name rename
    (when ``out`` is ``new($$$A)``) that changes the definition and every use, and
    ending with that whole call (keeping ``scope``) in a fenced JSON block: a small
    model that copies the note as its answer has the call run (on a ``--base-url``
    server, a fenced call in an answer's text is a call; the prose around it stays
    text).
    """
    notes: list[str] = []
    for op in edit.ops:
        old = BARE_CALL.fullmatch(op.pat.strip())
        if old is None:
            continue
        name = old.group("name")
        new = BARE_CALL.fullmatch(op.out.strip())
        fix = ""
        if new is not None:
            bare_ops, call = bare_call(scope, [CalleeRename(name, new.group("name"))])
            fix = (
                "; to rename it everywhere (definition, calls and imports), call ast_edit "
                f"again with ops {bare_ops}, as this call:\n{call}"
            )
        notes.append(
            f"`{op.pat}` matches only calls written `{name}(...)`, not "
            f"`module.{name}(...)` or `obj.{name}(...)`{fix or '.'}"
        )
    return notes


def callee_renames(edit: EditSpec) -> tuple[CalleeRename, ...]:
    """The renames of ``edit`` when every op renames a callee, else ``()``.

    An op renames a callee when its ``pat`` is ``old($$$A)`` and its ``out`` is
    ``new($$$A)`` with the same ``$$$`` name and another bare name. An edit with
    YAML rules or a ``sel`` is left alone (``()``).
    """
    if edit.rules or edit.selector is not None or not edit.ops:
        return ()
    renames = []
    for op in edit.ops:
        old = BARE_CALL.fullmatch(op.pat.strip())
        new = BARE_CALL.fullmatch(op.out.strip())
        if old is None or new is None or old.group("var") != new.group("var"):
            return ()
        if old.group("name") == new.group("name"):
            return ()
        renames.append(CalleeRename(old.group("name"), new.group("name")))
    return tuple(renames)


def bare_edit(edit: EditSpec, renames: Sequence[CalleeRename]) -> EditSpec:
    """``edit`` with each callee rename as a bare-name rename (``old`` → ``new``)."""
    return replace(edit, ops=tuple(EditOp(pat=r.old, out=r.new) for r in renames))


def bare_ops(renames: Sequence[CalleeRename]) -> list[JsonObject]:
    """The bare-name ops ``{pat: old, out: new}`` of ``renames``, as a call writes them."""
    return [{"pat": r.old, "out": r.new} for r in renames]


def bare_arguments(arguments: JsonObject, renames: Sequence[CalleeRename]) -> JsonObject:
    """The tool call's ``arguments`` with the bare-name ops in place of the call patterns."""
    return {**arguments, "ops": list(bare_ops(renames))}


_DEFINES = re.compile(
    rb"\s*(?:(?:export|pub|public|private|static|async)\s+)*"
    rb"(?:def|class|function|fn|func|fun|sub)\s+(?P<name>\w+)"
)
"""A line that defines a name, in the usual keywords of the languages ast-grep reads."""


def left_places(narrow: EditPreview, wide: EditPreview) -> list[str]:
    """``file:line`` of each change of ``wide`` not inside a change of ``narrow``.

    ``wide`` is the bare-name rename of the names ``narrow`` renames in calls:
    its changes outside ``narrow``'s are the uses of the old name that
    ``narrow`` leaves (the definition, attribute calls, imports). A line that
    defines the name (``def old``, ``function old``, ...) comes first, marked
    ``(definition)``; the others follow in file order.
    """
    ranges: dict[str, list[tuple[int, int]]] = {}
    for edit in narrow.files:
        ranges[edit.file] = sorted((r.start_byte, r.end_byte) for r in edit.replacements)
    definitions, uses = [], []
    for edit in wide.files:
        mine = ranges.get(edit.file, [])
        starts = [start for start, _ in mine]
        lines = edit.old_bytes.split(b"\n")
        for rep in edit.replacements:
            at = bisect.bisect_right(starts, rep.start_byte) - 1
            if at >= 0 and rep.end_byte <= mine[at][1]:
                continue  # the callee of a call the narrow edit renames
            place = f"{edit.file}:{rep.line + 1}"
            defined = _DEFINES.match(lines[rep.line]) if rep.line < len(lines) else None
            if defined is not None and defined.group("name") == rep.old_text.encode():
                definitions.append(f"{place} (definition)")
            else:
                uses.append(place)
    return [*definitions, *uses]


def _calls(renames: Sequence[CalleeRename]) -> str:
    """The calls a note names: `` `a(...)` ``, `` `a(...)`, `b(...)` ``."""
    return name_list([f"`{r.old}(...)`" for r in renames])


def _names(renames: Sequence[CalleeRename]) -> str:
    """The old names as a note words them: `` `a` ``, `` `a`, `b` ``."""
    return name_list([f"`{r.old}`" for r in renames])


def bare_call(scope: CallScope, renames: Sequence[CalleeRename]) -> tuple[str, str]:
    """The bare-name ops as JSON, and the whole ``ast_edit`` call as a fenced JSON block."""
    ops = bare_ops(renames)
    call = {"name": "ast_edit", "arguments": {**scope.arguments(), "ops": ops}}
    return json.dumps(ops), f"```json\n{json.dumps(call)}\n```"


def widened_note(renames: Sequence[CalleeRename]) -> str:
    """The note of a bare-name rename previewed because the call patterns matched nothing."""
    calls = _calls(renames)
    pairs = name_list([f"`{r.old}` to `{r.new}`" for r in renames])
    return (
        f"No call written {calls} matched, so this preview renames {pairs} everywhere "
        "instead: the definition, every call (`module.name(...)` and `obj.name(...)` too) "
        "and imports."
    )


def unused_note(renames: Sequence[CalleeRename]) -> str:
    """The note of call renames when the old names are not used at all in the files searched."""
    return (
        f"No call written {_calls(renames)} matched, and no use of {_names(renames)} either "
        "in the files searched: check the name, and `path` and `lang`."
    )


def left_note(renames: Sequence[CalleeRename], places: Sequence[str], scope: CallScope) -> str:
    """The note of a preview of call renames that leaves other uses of the old names."""
    ops, _ = bare_call(scope, renames)
    return (
        f"This renames only calls written with the bare name; {_left(renames, places)} stay "
        f"as they are, at {_at(places)}. To rename everywhere (definition, calls and "
        f"imports), discard this preview and call ast_edit with ops {ops}."
    )


def remaining_note(renames: Sequence[CalleeRename], places: Sequence[str], scope: CallScope) -> str:
    """What an apply of call renames says of the uses of the old names it left."""
    ops, call = bare_call(scope, renames)
    return (
        f"Not renamed: {_left(renames, places)}, at {_at(places)}. To rename them too, "
        f"call ast_edit with ops {ops}, as this call:\n{call}"
    )


def _left(renames: Sequence[CalleeRename], places: Sequence[str]) -> str:
    """``14 other uses of `a```."""
    return f"{plural(len(places), 'other use')} of {_names(renames)}"


def _at(places: Sequence[str]) -> str:
    """``a.py:4 (definition), b.py:9, b.py:12 and 11 more``."""
    return name_list(places, _SHOWN)


@dataclass(frozen=True, kw_only=True)
class Hinted:
    """The preview to offer for an edit, with what it says of callee renames.

    Args:
        edit: the edit previewed (the bare-name rename when it was widened).
        preview: its preview.
        arguments: the tool call's arguments as the preview's details keep them.
        notes: paragraphs ending the preview's text (none, or one).
        apply_note: the paragraph ending the result of applying it, or ``""``.
    """

    edit: EditSpec
    preview: EditPreview
    arguments: JsonObject
    notes: tuple[str, ...] = ()
    apply_note: str = ""


async def hinted(
    edit: EditSpec,
    preview: EditPreview,
    arguments: JsonObject,
    scan: Callable[[EditSpec], Awaitable[EditPreview]],
    *,
    scope: CallScope,
    widen: bool,
) -> Hinted:
    """What to offer for ``preview`` of ``edit``, with what it says of call patterns.

    When every op of ``edit`` renames a callee (:func:`callee_renames`), the
    bare-name rename is previewed too, with ``scan`` (a second pass over the
    same scope). With ``widen``, a preview that matched nothing in the files
    searched gives way to it (:func:`widened_note`, or :func:`unused_note` when
    the name is not used either). A preview that matched calls but leaves other
    uses of the old name says so (:func:`left_note`, :func:`remaining_note`). A
    preview of call patterns that matched nothing, not widened, says why
    (:func:`bare_call_notes`). ``scope``: what a proposed call keeps of the call
    made (``arguments``, as the preview's details keep them).
    """
    same = Hinted(edit=edit, preview=preview, arguments=arguments)
    if preview.skipped or not preview.files_scanned:
        return same
    renames = callee_renames(edit)
    if not preview.total and (not renames or not widen):
        return replace(same, notes=tuple(bare_call_notes(edit, scope)))
    if not renames:
        return same
    wide_edit = bare_edit(edit, renames)
    wide = await scan(wide_edit)
    if not preview.total:
        if not wide.total:
            return replace(same, notes=(unused_note(renames),))
        return Hinted(
            edit=wide_edit,
            preview=wide,
            arguments=bare_arguments(arguments, renames),
            notes=(widened_note(renames),),
        )
    places = left_places(preview, wide)
    if not places:
        return same
    return Hinted(
        edit=edit,
        preview=preview,
        arguments=arguments,
        notes=(left_note(renames, places, scope),),
        apply_note=remaining_note(renames, places, scope),
    )


__all__ = [
    "BARE_CALL",
    "CallScope",
    "CalleeRename",
    "Hinted",
    "bare_arguments",
    "bare_call",
    "bare_call_notes",
    "bare_edit",
    "bare_ops",
    "callee_renames",
    "hinted",
    "left_note",
    "left_places",
    "remaining_note",
    "unused_note",
    "widened_note",
]
