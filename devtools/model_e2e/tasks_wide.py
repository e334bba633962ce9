"""The wider task set: everyday asks on packages the prompts were never tuned on.

Each task runs on ``parse`` and ``isodate`` in turn (even runs on the first,
odd runs on the second) and each run asks about another target, so runs at
temperature 0 are not one sample repeated. Every outcome is checked on disk
and in the events, never by the model's account.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ast_grep_py import SgRoot

from model_e2e.project import ISODATE, PARSE, Package, changed_files, git, run_tests
from model_e2e.runner import RunLog
from model_e2e.tasks import Context, Outcome, Task

T = TypeVar("T")

WIDE_PACKAGES = (ISODATE, PARSE)
"""The packages of the wider task set, in the order runs take them."""


def _pick(ctx: Context, choices: dict[str, tuple[T, ...]]) -> T:
    """The run's target: the package's list, in turn over the runs on that package."""
    listed = choices[ctx.package.name]
    return listed[(ctx.run // len(WIDE_PACKAGES)) % len(listed)]


def _applied(log_resolved: list[dict[str, object]]) -> bool:
    return any(r.get("action") == "apply" and not r.get("is_error") for r in log_resolved)


def _python_files(repo: Path) -> list[Path]:
    return sorted(p for p in repo.rglob("*.py") if ".git" not in p.parts)


# -- a rewrite asked in words, its arguments named by placeholder words ----------------


@dataclass(frozen=True)
class Rewrite:
    """Every call ``old(UPPER, lower)`` becomes ``new(UPPER, lower)``, both arguments kept."""

    old: str
    new: str
    upper: str
    lower: str

    def prompt(self) -> str:
        """The request, with the arguments named by placeholder words."""
        return (
            f"Replace every call `{self.old}({self.upper}, {self.lower})` in this project with "
            f"`{self.new}({self.upper}, {self.lower})`, keeping both arguments. Use ast_edit, "
            "then apply the change."
        )

    def expected(self, source: str) -> str:
        """``source`` as the rewrite meant it: each two-argument call of ``old`` replaced."""
        root = SgRoot(source, "python").root()
        edits = []
        for node in root.find_all(pattern=f"{self.old}($A, $B)"):
            a, b = node.get_match("A"), node.get_match("B")
            assert a is not None and b is not None
            edits.append(node.replace(f"{self.new}({a.text()}, {b.text()})"))
        return root.commit_edits(edits) if edits else source


REWRITES: dict[str, tuple[Rewrite, ...]] = {
    "isodate": (
        Rewrite("divmod", "floor_divmod", "VALUE", "base"),
        Rewrite("isinstance", "is_kind", "OBJ", "kind"),
        Rewrite("strftime", "format_iso", "VALUE", "fmt"),
        Rewrite("max_days_in_month", "days_in_month", "YEAR", "month"),
        Rewrite("tz_isoformat", "format_tz", "VALUE", "fmt"),
    ),
    "parse": (
        Rewrite("_test_expression", "check_expression", "FORMAT", "expected"),
        Rewrite("parse.search", "parse.find", "PATTERN", "text"),
        Rewrite("re.split", "regex.split", "PATTERN", "text"),
        Rewrite("parse.findall", "parse.find_all", "PATTERN", "text"),
        Rewrite("assert_fixed_mismatch", "check_mismatch", "PARSER", "text"),
    ),
}


def rewrite_words(ctx: Context) -> Outcome:
    """A rewrite asked in words: the files are exactly what the meant rewrite gives."""
    rewrite = _pick(ctx, REWRITES)
    before = {p: p.read_text() for p in _python_files(ctx.repo)}
    log = ctx.xcsh(rewrite.prompt())
    wrong = [
        str(p.relative_to(ctx.repo))
        for p, text in before.items()
        if p.read_text() != rewrite.expected(text)
    ]
    if not _applied(log.of("resolved")):
        return Outcome(False, "no preview was applied", [log])
    if wrong:
        return Outcome(False, f"not the rewrite meant in {wrong[:3]}", [log])
    return Outcome(True, "", [log])


# -- a discard asked for -----------------------------------------------------------------


DISCARDS: dict[str, tuple[tuple[str, str], ...]] = {
    "isodate": (
        ("parse_duration", "read_duration"),
        ("build_tzinfo", "make_tzinfo"),
        ("date_isoformat", "format_date"),
    ),
    "parse": (
        ("extract_format", "split_format"),
        ("with_pattern", "pattern_type"),
        ("date_convert", "to_date"),
    ),
}


def discard_asked(ctx: Context) -> Outcome:
    """A rename previewed, then discarded as asked: a preview, a reasoned discard, no change."""
    old, new = _pick(ctx, DISCARDS)
    log = ctx.xcsh(
        f"Preview renaming the function `{old}` to `{new}` with ast_edit. We decided not to "
        "make this change: discard the preview with a reason."
    )
    discarded = [r for r in log.of("resolved") if r.get("action") == "discard"]
    if changed_files(ctx.repo):
        return Outcome(False, f"files changed: {changed_files(ctx.repo)}", [log])
    if not log.of("pending_pushed"):
        return Outcome(False, "no preview was made", [log])
    if not discarded or not str(discarded[-1].get("reason", "")).strip():
        return Outcome(False, "the preview was not discarded with a reason", [log])
    return Outcome(True, "", [log])


# -- a question answered by searching ------------------------------------------------------


SEARCHES: dict[str, tuple[str, ...]] = {
    "isodate": ("build_tzinfo", "parse_time", "build_date_regexps", "fquotmod", "_strfdt"),
    "parse": ("extract_format", "get_regex_for_datetime_format", "_to_group_name", "_handle_field"),
}


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def callers(repo: Path, name: str) -> tuple[set[str], set[str]]:
    """The functions outside the tests whose body calls ``name``, and every function defined."""
    found: set[str] = set()
    defined: set[str] = set()
    for path in _python_files(repo):
        if "test" in path.name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                defined.add(node.name)
                calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
                if any(_called_name(c) == name for c in calls):
                    found.add(node.name)
    return found, defined


_FILE_NAME = re.compile(r"[\w.-]*/[\w./-]*|[\w./-]+\.py\b")
_CODE = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"[A-Za-z_]\w*")


def answered_names(answer: str, defined: set[str], asked: str = "") -> set[str]:
    """The names of functions of ``defined`` an answer gives, other than ``asked``.

    File names and paths are left out (``parse.py:745`` names the file, not the
    function ``parse``). When the answer writes some of those names as code
    (`` `_handle_field` ``), only names written so count: "the search results"
    does not name the parse package's function ``search``.
    """
    text = _FILE_NAME.sub(" ", answer)
    quoted = set(_NAME.findall(" ".join(_CODE.findall(text)))) & defined - {asked}
    return quoted or set(_NAME.findall(text)) & defined - {asked}


def search_question(ctx: Context) -> Outcome:
    """Which functions call a function: the names answered are exactly those the code has."""
    name = _pick(ctx, SEARCHES)
    log = ctx.xcsh(
        f"Which functions in this project (tests aside) call the function `{name}`? Search the "
        "code, then answer with the names of the calling functions."
    )
    expected, defined = callers(ctx.repo, name)
    said = answered_names(log.answer(), defined, name)
    searched = [c for c in log.of("tool_call_start") if c.get("name") in ("ast_grep", "grep")]
    if changed_files(ctx.repo):
        return Outcome(False, f"a search changed files: {changed_files(ctx.repo)}", [log])
    if not searched:
        return Outcome(False, "no search was made", [log])
    if said != expected:
        return Outcome(
            False, f"answered {sorted(said)[:4]}, the callers are {sorted(expected)}", [log]
        )
    return Outcome(True, "", [log])


# -- a multi-file rename, its preview checked by the project's tests, applied --------------


RENAMES_CHECKED: dict[str, tuple[tuple[str, str], ...]] = {
    "isodate": (
        ("parse_time", "read_time"),
        ("build_tzinfo", "make_tzinfo"),
        ("date_isoformat", "format_date"),
        ("time_isoformat", "format_time"),
        ("parse_tzinfo", "read_tzinfo"),
    ),
    "parse": (
        ("with_pattern", "pattern_type"),
        ("extract_format", "split_format"),
    ),
}


def _uses(repo: Path, name: str) -> list[str]:
    """``file:line`` of every use of ``name`` as code: a name, attribute, definition or import."""
    places = []
    for path in _python_files(repo):
        for node in ast.walk(ast.parse(path.read_text())):
            used = (
                (isinstance(node, ast.Name) and node.id == name)
                or (isinstance(node, ast.Attribute) and node.attr == name)
                or (isinstance(node, ast.FunctionDef) and node.name == name)
                or (isinstance(node, ast.alias) and name in (node.name, node.asname))
            )
            if used:
                places.append(f"{path.relative_to(repo)}:{getattr(node, 'lineno', 0)}")
    return places


def rename_checked(ctx: Context) -> Outcome:
    """A rename across files with ``check: true``: checked preview, applied, tests pass."""
    old, new = _pick(ctx, RENAMES_CHECKED)
    with (ctx.home / "settings.toml").open("a") as settings:
        settings.write(f"check = {_toml(ctx.package.test_command())}\n")
    log = ctx.xcsh(
        f"Rename the function `{old}` to `{new}` everywhere in this project: its definition, "
        "imports and every call, tests included. Call ast_edit with check: true so the project's "
        "tests run on the preview, then apply it."
    )
    checked = [p for p in log.of("pending_pushed") if (p.get("value") or {}).get("check")]
    if not checked:
        return Outcome(False, "no preview was checked", [log])
    if not _applied(log.of("resolved")):
        return Outcome(False, "no preview was applied", [log])
    return _renamed(ctx.repo, ctx.package, old, new, log)


def _renamed(repo: Path, package: Package, old: str, new: str, log: RunLog) -> Outcome:
    """The rename on disk: no use of ``old`` left, ``new`` in two files or more, tests pass."""
    left, now = _uses(repo, old), _uses(repo, new)
    if left:
        return Outcome(False, "nothing renamed" if not now else f"uses left: {left[:3]}", [log])
    if len({p.split(":")[0] for p in now}) < 2:
        return Outcome(False, "renamed in one file only", [log])
    passed, summary = run_tests(repo, package)
    if not passed:
        return Outcome(False, f"tests fail after the rename: {summary}", [log])
    return Outcome(True, "", [log])


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -- a change made with edit after reading the file ----------------------------------------


@dataclass(frozen=True)
class LineEdit:
    """One line of a file, changed as asked."""

    file: str
    old: str
    new: str
    what: str

    def prompt(self) -> str:
        """The request: read the file, then change the line with ``edit``."""
        return f"Read {self.file}, then use the edit tool to {self.what}. Change nothing else."


EDITS: dict[str, tuple[LineEdit, ...]] = {
    "isodate": (
        LineEdit(
            "src/isodate/isostrf.py",
            'D_DEFAULT = "P%P"',
            'D_DEFAULT = "P%p"',
            'change D_DEFAULT from "P%P" to "P%p"',
        ),
        LineEdit(
            "src/isodate/isostrf.py",
            'DATE_CENTURY = "%C"',
            'DATE_CENTURY = "%y"',
            'change DATE_CENTURY from "%C" to "%y"',
        ),
        LineEdit(
            "src/isodate/isostrf.py",
            'TZ_HOUR = "%h"',
            'TZ_HOUR = "%k"',
            'change TZ_HOUR from "%h" to "%k"',
        ),
    ),
    "parse": (
        LineEdit(
            "parse.py",
            '__version__ = "1.20.2"',
            '__version__ = "1.20.3"',
            'set __version__ to "1.20.3"',
        ),
        LineEdit(
            "parse.py",
            'AM_PAT = r"(\\s+[AP]M)"',
            'AM_PAT = r"(\\s*[AP]M)"',
            "change AM_PAT so that the space before AM/PM is optional: `\\s+` becomes `\\s*`",
        ),
        LineEdit(
            "parse.py",
            'DAYS_PAT = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun)"',
            'DAYS_PAT = r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun|Any)"',
            'add "Any" as the last choice of DAYS_PAT',
        ),
    ),
}


def edit_after_read(ctx: Context) -> Outcome:
    """``read`` the file, then ``edit`` it: exactly the line asked for changed."""
    change = _pick(ctx, EDITS)
    log = ctx.xcsh(change.prompt())
    calls = [c.get("name") for c in log.of("tool_call_start")]
    diff = git(ctx.repo, "diff", "-U0", "--", change.file)
    lines = diff.splitlines()
    added = [ln[1:] for ln in lines if ln.startswith("+") and not ln.startswith("+++")]
    removed = [ln[1:] for ln in lines if ln.startswith("-") and not ln.startswith("---")]
    if changed_files(ctx.repo) != [change.file]:
        return Outcome(False, f"changed: {changed_files(ctx.repo)}", [log])
    if (added, removed) != ([change.new], [change.old]):
        return Outcome(False, f"unexpected change: -{removed[:1]} +{added[:1]}", [log])
    if "read" not in calls or "edit" not in calls or calls.index("read") > calls.index("edit"):
        return Outcome(False, f"not read, then edit: {calls}", [log])
    return Outcome(True, "", [log])


WIDE_TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("rewrite-words", rewrite_words, WIDE_PACKAGES),
        Task("discard-asked", discard_asked, WIDE_PACKAGES),
        Task("search-callers", search_question, WIDE_PACKAGES),
        Task("rename-checked", rename_checked, WIDE_PACKAGES),
        Task("edit-after-read", edit_after_read, WIDE_PACKAGES),
    )
}
"""The wider task set, by name, in the table's order."""
