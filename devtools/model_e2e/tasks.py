"""The task set: what a person asks xcsh on a real package, and how each answer is checked.

Each task runs xcsh on a fresh git copy of the package and checks the
result on disk and in the events; the checks never trust the model's
account of what it did.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from model_e2e.project import INFLECTION, MODULE, TESTS, Package, changed_files, git, run_tests
from model_e2e.runner import XCSH, Event, RunLog, run_xcsh


@dataclass
class Context:
    """Where one run of a task happens."""

    repo: Path
    home: Path
    base_url: str
    timeout: float
    extra: tuple[str, ...] = ()
    exchange: Path | None = None
    """The file the recording proxy writes this run's requests and answers to."""
    run: int = 0
    """The run's number (from 0): it picks the run's rename (:attr:`rename`)."""
    package: Package = INFLECTION
    """The package :attr:`repo` is a copy of."""

    @property
    def rename(self) -> Rename:
        """The rename this run asks for: runs of one task go through :data:`RENAMES` in turn."""
        return RENAMES[self.run % len(RENAMES)]

    def xcsh(
        self,
        prompt: str,
        *,
        extra: tuple[str, ...] = (),
        stop_when: Callable[[Event], bool] | None = None,
    ) -> RunLog:
        """Run ``xcsh -p prompt`` in the repository."""
        return run_xcsh(
            self.repo,
            self.home,
            self.base_url,
            prompt,
            extra=extra + self.extra,
            timeout=self.timeout,
            stop_when=stop_when,
        )


@dataclass
class Outcome:
    """One run of a task: passed or why not, and the xcsh runs it took."""

    ok: bool
    reason: str
    logs: list[RunLog] = field(default_factory=list)
    lost_preview: bool = False


@dataclass(frozen=True)
class Task:
    """A named task, the function that runs and checks it, and the packages it runs on.

    Run ``i`` of the task works on ``packages[i % len(packages)]``.
    """

    name: str
    run: Callable[[Context], Outcome]
    packages: tuple[Package, ...] = (INFLECTION,)

    def package(self, run: int) -> Package:
        """The package run number ``run`` works on."""
        return self.packages[run % len(self.packages)]


def _calls_by_ast_grep(repo: Path, name: str) -> set[tuple[str, int]]:
    """(file, line) of every call of ``name`` or ``X.name``, as ``xcsh ast-grep`` finds them."""
    found: set[tuple[str, int]] = set()
    for pattern in (f"{name}($$$A)", f"$O.{name}($$$A)"):
        done = subprocess.run(
            [XCSH, "ast-grep", "-p", pattern, "-l", "python", "--json", "."],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
        )
        for line in done.stdout.splitlines():
            record = json.loads(line)
            found.add((record["file"], record["range"]["start"]["line"] + 1))
    return found


def find_calls(ctx: Context) -> Outcome:
    """Every call of ``underscore``, answered as ``file:line`` and checked against ast-grep."""
    log = ctx.xcsh(
        "Find every call of the function `underscore` in this project (definitions and "
        "imports do not count). Answer with one line per call, as path:line."
    )
    expected = _calls_by_ast_grep(ctx.repo, "underscore")
    answer = log.answer()
    said = {(f, int(n)) for f, n in re.findall(r"([\w./-]+\.py):(\d+)", answer)}
    said = {(f.removeprefix("./"), n) for f, n in said}
    missing = sorted(expected - said)
    extra = sorted(said - expected)
    if not expected:
        return Outcome(False, "ast-grep found no call (harness problem)", [log])
    if missing or extra:
        return Outcome(False, f"missing {missing[:3]} extra {extra[:3]}", [log])
    if changed_files(ctx.repo):
        return Outcome(False, f"a search changed files: {changed_files(ctx.repo)}", [log])
    return Outcome(True, "", [log])


def defined_functions(path: Path) -> set[str]:
    """The names of the functions defined at the top of the module at ``path``."""
    tree = ast.parse(path.read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


@dataclass(frozen=True)
class Rename:
    """A function of the package to rename, and its new name."""

    old: str
    new: str

    def prompt(self) -> str:
        """The request as a person would type it."""
        return (
            f"Rename the function `{self.old}` to `{self.new}` everywhere in this project: its "
            "definition and every call, tests included. Use ast_edit, then apply the change."
        )


RENAMES = (
    Rename("ordinal", "ordinal_suffix"),
    Rename("camelize", "to_camel_case"),
    Rename("underscore", "to_snake_case"),
    Rename("pluralize", "to_plural"),
    Rename("humanize", "to_human"),
    Rename("titleize", "to_title"),
    Rename("singularize", "to_singular"),
    Rename("ordinalize", "with_ordinal"),
    Rename("parameterize", "to_slug"),
    Rename("tableize", "to_table_name"),
    Rename("dasherize", "to_dashes"),
)
"""The renames runs pick from, each of a top-level function the package's tests call (a
different one per run, so runs at temperature 0 are not one sample repeated)."""


NOT_RENAMED = "the definition was not renamed"


def rename_problem(repo: Path, rename: Rename = RENAMES[0]) -> str | None:
    """What is wrong with ``rename`` on disk in ``repo``, or ``None``.

    The definition renamed, no call of the old name left outside doctests, and
    the package's tests pass.
    """
    functions = defined_functions(repo / MODULE)
    if rename.new not in functions or rename.old in functions:
        return NOT_RENAMED
    code = (repo / MODULE).read_text() + (repo / TESTS).read_text()
    left = re.findall(rf"^(?!\s*>>>).*\b{rename.old}\(", code, re.MULTILINE)
    if left:
        return f"calls left: {left[0].strip()[:60]}"
    passed, summary = run_tests(repo)
    if not passed:
        return f"tests fail after the rename: {summary}"
    return None


def rename_apply(ctx: Context) -> Outcome:
    """The run's rename (:attr:`Context.rename`) with ``ast_edit``, applied; files and tests."""
    log = ctx.xcsh(ctx.rename.prompt())
    applied = [r for r in log.of("resolved") if r.get("action") == "apply" and not r["is_error"]]
    problem = rename_problem(ctx.repo, ctx.rename)
    if problem == NOT_RENAMED:
        return Outcome(False, problem, [log])
    if not applied:
        return Outcome(False, "renamed without an applied preview", [log])
    return Outcome(problem is None, problem or "", [log])


def discard(ctx: Context) -> Outcome:
    """A rewrite the task says to discard: ``resolve discard`` with a reason, nothing changed."""
    log = ctx.xcsh(
        "Preview, with ast_edit, replacing every call `re.sub($$$A)` with `regex.sub($$$A)` "
        f"in {MODULE}. We decided not to make this change: discard the preview with a reason."
    )
    pushed = log.of("pending_pushed")
    discarded = [r for r in log.of("resolved") if r.get("action") == "discard"]
    if changed_files(ctx.repo):
        return Outcome(False, f"files changed: {changed_files(ctx.repo)}", [log])
    if not pushed:
        return Outcome(False, "no preview was made", [log])
    if not discarded or not str(discarded[-1].get("reason", "")).strip():
        return Outcome(False, "the preview was not discarded with a reason", [log])
    return Outcome(True, "", [log])


def edit(ctx: Context) -> Outcome:
    """An ``edit`` of one line: the version string, nothing else."""
    log = ctx.xcsh(f"In {MODULE}, change __version__ to '0.5.2'. Change nothing else.")
    diff = git(ctx.repo, "diff", "-U0", "--", MODULE)
    added = [
        line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
    ]
    if changed_files(ctx.repo) != [MODULE]:
        return Outcome(False, f"changed: {changed_files(ctx.repo)}", [log])
    if len(added) != 1 or not re.fullmatch(r"\+__version__ = ['\"]0\.5\.2['\"]", added[0]):
        return Outcome(False, f"unexpected change: {added[:2]}", [log])
    return Outcome(True, "", [log])


def bash(ctx: Context) -> Outcome:
    """Run the test suite with ``bash`` under the default sandbox; the answer gives the count."""
    import sys

    python = sys.executable
    log = ctx.xcsh(
        f"Run the tests with the bash tool: `{python} -m pytest -q -p no:cacheprovider "
        f"{TESTS}`. Then tell me how many tests passed."
    )
    ran = [c for c in log.of("tool_call_start") if c.get("name") == "bash"]
    _, summary = run_tests(ctx.repo)
    count = re.search(r"(\d+) passed", summary)
    if not ran:
        return Outcome(False, "bash was not called", [log])
    if count is None or count.group(1) not in log.answer():
        return Outcome(False, f"answer lacks the count ({summary})", [log])
    if changed_files(ctx.repo):
        return Outcome(False, f"files changed: {changed_files(ctx.repo)}", [log])
    return Outcome(True, "", [log])


def continue_pending(ctx: Context) -> Outcome:
    """A preview left pending by a stopped run is found and applied by ``--continue``."""

    def pushed(event: Event) -> bool:
        return event.type == "pending_pushed"

    first = ctx.xcsh(
        "Rename the function `dasherize` to `to_dashes` everywhere in this project with ast_edit.",
        stop_when=pushed,
    )
    if not first.of("pending_pushed"):
        return Outcome(False, "the first run made no preview", [first])
    if changed_files(ctx.repo):
        return Outcome(False, "the first run changed files before it was stopped", [first])
    second = ctx.xcsh(
        "Apply the pending preview from before, if it is right.", extra=("--continue",)
    )
    logs = [first, second]
    starts = second.of("turn_start")
    if not starts or int(starts[0].get("pending", 0)) < 1:
        return Outcome(False, "lost preview: --continue found nothing pending", logs, True)
    applied = [r for r in second.of("resolved") if r.get("action") == "apply" and not r["is_error"]]
    if not applied:
        return Outcome(False, "the pending preview was not applied", logs)
    if "to_dashes" not in defined_functions(ctx.repo / MODULE):
        return Outcome(False, "applied, but the definition is not renamed", logs)
    return Outcome(True, "", logs)


PRINT_TASKS: dict[str, Task] = {
    t.name: t
    for t in (
        Task("find-calls", find_calls),
        Task("rename-apply", rename_apply),
        Task("discard", discard),
        Task("edit", edit),
        Task("bash", bash),
        Task("continue", continue_pending),
    )
}
"""The tasks run through ``xcsh -p --mode json``, by name, in the table's order."""
