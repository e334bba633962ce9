"""The ``grep`` tool: regex search over the workspace, honouring ignore files.

Two backends give the same output (``path:line: text`` for matches,
``path-line- text`` for context lines, ``--`` between groups):

- ripgrep (``rg``, from the ``ripgrep`` dependency installed beside xcsh's
  interpreter, else from ``PATH``; see :func:`find_rg`), run with ``--json`` and flags that
  make it walk like :func:`xcsh.fs.iter_files`: ``.gitignore`` counts outside
  git repositories (``--no-require-git``), dot-files are searched, dot-folders
  and ``node_modules`` are skipped, results are sorted by path. Ignore files
  of the folders between the workspace root and the searched folder are
  applied by xcsh (ripgrep's own lookup would climb past the workspace); a
  folder named explicitly is searched even when they ignore it, as ripgrep
  does. Globs are applied by xcsh too, because ripgrep's ``--glob`` would
  override ignore files; a name-only glob is also passed as a ripgrep file
  type to narrow the walk.
- a Python fallback (``re`` over :func:`xcsh.fs.iter_files`) otherwise.

Known differences: the regex dialects (Rust's ``regex`` crate has no
look-around or back-references; Python's ``re`` has), and ripgrep also reads
``.rgignore`` and, inside git repositories, ``.git/info/exclude``. Symlinked
files are skipped by both.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import shutil
import signal
import sys
import sysconfig
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from xcsh.core import AgentTool, AgentToolResult, TextContent, ToolCallContext, ToolError
from xcsh.core.wording import plural
from xcsh.fs import Workspace, ignored_by, inherited_rules, read_regular_bytes
from xcsh.fs.text import BINARY_SNIFF_BYTES
from xcsh.tools.coding._walk import GlobFilter, sort_key, walk
from xcsh.tools.coding.details import GrepDetails

DEFAULT_LIMIT = 100
MAX_LINE_CHARS = 300
_RG_STREAM_LIMIT = 16 * 1024 * 1024

Backend = Literal["auto", "ripgrep", "python"]

DESCRIPTION = f"""\
Search file contents with a regular expression. Prints `path:line: text` for each \
matching line (and `path-line- text` for context lines), paths relative to the \
workspace. Files listed in .gitignore/.ignore, dot-folders and node_modules are skipped. \
Narrow with `path` (file or folder) and `glob` (`*.py`, `src/**/*.ts`, `*.{{ts,tsx}}`); \
`ignore_case`, `literal` (plain text, no regex), `context` lines, and `limit` (default \
{DEFAULT_LIMIT} matching lines). Use it to find where text occurs before reading or editing. \
To find code by its syntax (every call of a function whatever its arguments, a construct \
regardless of formatting), `ast_grep` is the better choice."""


class GrepParams(BaseModel):
    """Arguments of ``grep``."""

    pattern: str = Field(min_length=1, description="Regular expression (or text with literal).")
    path: str = Field(default=".", description="File or folder to search (default: workspace).")
    glob: str | None = Field(default=None, description="Only files matching this glob.")
    ignore_case: bool = Field(default=False, description="Match case-insensitively.")
    literal: bool = Field(default=False, description="Treat pattern as plain text, not a regex.")
    context: int = Field(default=0, ge=0, le=20, description="Lines of context around matches.")
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=5000, description="Stop after this many matching lines."
    )

    @field_validator("glob")
    @classmethod
    def _no_empty_glob(cls, value: str | None) -> str | None:
        """An empty glob (``""``, what a small model fills in when it has none) is no glob."""
        return value if value is None or value.strip() else None


@dataclass(frozen=True)
class _Hit:
    number: int
    text: str
    is_match: bool


@dataclass
class _Collector:
    """Gathers lines in order and stops after ``limit`` matches (plus their after-context)."""

    limit: int
    context: int
    files: dict[str, list[_Hit]] = field(default_factory=dict)
    matches: int = 0
    more: bool = False
    _last: tuple[str, int] | None = None

    def add(self, relative: str, number: int, text: str, is_match: bool) -> bool:
        """Record a line; False once the limit is reached and nothing more is wanted."""
        if self.matches >= self.limit:
            last = self._last
            after_context = (
                not is_match
                and last is not None
                and relative == last[0]
                and number <= last[1] + self.context
            )
            if not after_context:
                self.more = True
                return False
        if is_match:
            self.matches += 1
            self._last = (relative, number)
        self.files.setdefault(relative, []).append(_Hit(number, text, is_match))
        return True


def find_rg() -> str | None:
    """Find the ripgrep executable; ``None`` when there is none.

    The one the ``ripgrep`` package installed in this interpreter's scripts folder comes
    first (so it is found when the virtual environment is not activated), else ``rg``
    on ``PATH``.
    """
    name = "rg.exe" if sys.platform == "win32" else "rg"
    for folder in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def create_grep_tool(
    cwd: str | Path,
    *,
    allow_outside: Sequence[str | Path] = (),
    backend: Backend = "auto",
) -> AgentTool[GrepParams, GrepDetails]:
    """Build the ``grep`` tool.

    Args:
        cwd: the workspace folder.
        allow_outside: extra folders the user allowed searching.
        backend: ``"auto"`` (ripgrep when :func:`find_rg` finds it at call time,
            else Python), ``"ripgrep"`` (an error when it is missing) or
            ``"python"``.

    Returns:
        A read-only tool; ``run`` raises :class:`ToolError` for an invalid
        regex or glob, a missing path, or a ripgrep failure.
    """
    policy = Workspace(cwd, allow_outside)

    async def run(params: GrepParams, ctx: ToolCallContext) -> AgentToolResult[GrepDetails]:
        start = policy.resolve(params.path)
        shown = policy.display(start)
        if not start.exists():
            raise ToolError(f"Path not found: {shown}. Use find or ls to locate it.")
        glob = GlobFilter(params.glob) if params.glob is not None else None
        collector = _Collector(params.limit, params.context)
        rg = find_rg() if backend != "python" else None
        if backend == "ripgrep" and rg is None:
            raise ToolError("ripgrep (rg) is not installed; install it or use the Python backend.")
        if rg is not None:
            used = "ripgrep"
            warning = await _search_rg(rg, params, start, glob, policy, collector, ctx)
        else:
            used = "python"
            regex = _compile(params)
            stop = threading.Event()
            try:
                await asyncio.to_thread(
                    _search_python, regex, params, start, glob, policy, collector, ctx, stop
                )
            finally:
                stop.set()
            warning = None
        if ctx.cancel.is_set():
            raise ToolError("Search cancelled.")
        text = _format(collector, start, policy, params)
        if warning:
            text += f"\n[ripgrep reported: {warning}]"
        return AgentToolResult(
            content=[TextContent(text)],
            details=GrepDetails(
                backend=used,
                matches=collector.matches,
                files=len(collector.files),
                truncated=collector.more,
            ),
        )

    return AgentTool(
        name="grep",
        label="Grep",
        description=DESCRIPTION,
        parameters=GrepParams,
        run=run,
        read_only=True,
    )


def _compile(params: GrepParams) -> re.Pattern[str]:
    source = re.escape(params.pattern) if params.literal else params.pattern
    try:
        return re.compile(source, re.IGNORECASE if params.ignore_case else 0)
    except re.error as exc:
        raise ToolError(
            f"Invalid regular expression {params.pattern!r}: {exc}. Escape special "
            "characters with a backslash, or set literal to true."
        ) from exc


def _file_lines(path: Path) -> list[str] | None:
    try:
        raw = read_regular_bytes(path)
    except OSError:
        return None
    if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
        return None
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _file_events(
    regex: re.Pattern[str], lines: list[str], context: int
) -> Iterator[tuple[int, str, bool]]:
    hits = [index for index, line in enumerate(lines) if regex.search(line)]
    if not hits:
        return
    wanted: set[int] = set()
    for index in hits:
        wanted.update(range(max(0, index - context), min(len(lines), index + context + 1)))
    matched = set(hits)
    for index in sorted(wanted):
        yield index + 1, lines[index], index in matched


def _search_python(
    regex: re.Pattern[str],
    params: GrepParams,
    start: Path,
    glob: GlobFilter | None,
    policy: Workspace,
    collector: _Collector,
    ctx: ToolCallContext,
    stop: threading.Event,
) -> None:
    files = [(path, rel) for path, rel in walk(start, policy, glob) if not path.is_symlink()]
    files.sort(key=lambda item: sort_key(item[1]))
    for path, relative in files:
        if stop.is_set() or ctx.cancel.is_set():
            return
        lines = _file_lines(path)
        if lines is None:
            continue
        for number, text, is_match in _file_events(regex, lines, params.context):
            if not collector.add(relative, number, text, is_match):
                return


class _RgData(BaseModel):
    """ripgrep's arbitrary data: ``text``, or ``bytes`` (base64) when it is not UTF-8."""

    text: str | None = None
    bytes: str = ""

    def decoded(self) -> str:
        if self.text is not None:
            return self.text
        return base64.b64decode(self.bytes).decode("utf-8", errors="replace")


class _RgLines(BaseModel):
    """The ``data`` of a ``match`` or ``context`` message of ``rg --json``."""

    path: _RgData
    lines: _RgData
    line_number: int | None = None


class _RgMessage(BaseModel):
    """One line of ``rg --json``: its ``type`` and its ``data``.

    The data is read as :class:`_RgLines` for the ``match`` and ``context`` messages only.
    """

    type: str
    data: object = None  # not validated here: only a match's or a context's is read


async def _search_rg(
    rg: str,
    params: GrepParams,
    start: Path,
    glob: GlobFilter | None,
    policy: Workspace,
    collector: _Collector,
    ctx: ToolCallContext,
) -> str | None:
    """Run ripgrep; returns its first stderr line when it reported a problem but found matches.

    ripgrep reads the ignore files of the searched folder and below; those of
    the folders between the workspace root and it are applied here, as in
    :func:`~xcsh.tools.coding._walk.walk` (ripgrep's own parent lookup would
    climb past the workspace, so it is switched off).
    """
    base = start if start.is_dir() else start.parent
    inherited = inherited_rules(start, policy.root) if start.is_dir() else []
    target = "." if start.is_dir() else start.name
    args = _rg_args(rg, params, glob, target)
    proc = await asyncio.create_subprocess_exec(
        *args,
        cwd=base,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=_RG_STREAM_LIMIT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(proc.stderr.read())

    async def stop_on_cancel() -> None:
        await ctx.cancel.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)

    canceller = asyncio.ensure_future(stop_on_cancel())
    stopped = False
    drained = False
    try:
        while line := await proc.stdout.readline():
            if ctx.cancel.is_set():
                stopped = True
                break
            message = _RgMessage.model_validate_json(line)
            if message.type not in ("match", "context"):
                continue
            data = _RgLines.model_validate(message.data)
            relative = data.path.decoded().removeprefix("./")
            if glob is not None and not glob.matches(relative):
                continue
            if inherited and ignored_by(base / relative, inherited):
                continue
            text = data.lines.decoded().removesuffix("\n").removesuffix("\r")
            if data.line_number is None:
                continue
            if not collector.add(relative, data.line_number, text, message.type == "match"):
                stopped = True
                break
        else:
            drained = True
    finally:
        canceller.cancel()
        if not drained:
            # os.kill, not proc.kill: Popen.send_signal polls first and may reap the
            # child behind asyncio's back, which then reports exit status 255.
            # The pid stays ours (a zombie at worst) until asyncio reaps it.
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
        stderr = (await stderr_task).decode("utf-8", errors="replace").strip()
    if not stopped and proc.returncode == 2:
        return _rg_problem(stderr, params.pattern, collector)
    return None


def _rg_args(rg: str, params: GrepParams, glob: GlobFilter | None, target: str) -> list[str]:
    """Build the command line that runs ripgrep for one call.

    JSON output, hidden files searched, ``.*/`` and ``node_modules/`` skipped, sorted by
    path, with the call's options.
    """
    args = [
        rg, "--json", "--no-config", "--crlf", "--no-require-git", "--no-ignore-global",
        "--no-ignore-parent", "--hidden",
        "--glob", "!.*/", "--glob", "!node_modules/", "--sort", "path",
    ]  # fmt: skip
    if params.ignore_case:
        args.append("--ignore-case")
    if params.literal:
        args.append("--fixed-strings")
    if params.context:
        args += ["--context", str(params.context)]
    if glob is not None and glob.name_only:
        for alternative in glob.alternatives:
            args += ["--type-add", f"xcshglob:{alternative}"]
        args += ["--type", "xcshglob"]
    args += ["--regexp", params.pattern, "--", target]
    return args


def _rg_problem(stderr: str, pattern: str, collector: _Collector) -> str:
    """Return ripgrep's first stderr line, after it exited with status 2 having found matches.

    Raises:
        ToolError: the pattern is not a valid ripgrep regex, or nothing was found.
    """
    first = stderr.splitlines()[0] if stderr else "unknown error"
    if "regex parse error" in stderr or "error parsing" in stderr:
        raise ToolError(
            f"Invalid regular expression {pattern!r} for ripgrep:\n{stderr}\n"
            "ripgrep's syntax has no look-around or back-references; escape special "
            "characters, or set literal to true."
        )
    if collector.matches == 0:
        raise ToolError(f"ripgrep failed: {stderr or first}")
    return first


def _format(collector: _Collector, start: Path, policy: Workspace, params: GrepParams) -> str:
    base = start if start.is_dir() else start.parent
    if not collector.files:
        shown = policy.display(start)
        where = "the workspace" if shown == "." else shown
        glob = f" (files matching {params.glob!r})" if params.glob else ""
        return f"No matches for {params.pattern!r} in {where}{glob}."
    out: list[str] = []
    for relative, hits in collector.files.items():
        shown = policy.display(base / relative)
        previous: int | None = None
        for hit in hits:
            if params.context and previous is not None and hit.number > previous + 1:
                out.append("--")
            if params.context and previous is None and out:
                out.append("--")
            previous = hit.number
            text = hit.text
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + f" … [{len(text) - MAX_LINE_CHARS} more characters]"
            sep = ":" if hit.is_match else "-"
            out.append(f"{shown}{sep}{hit.number}{sep} {text}")
    summary = (
        f"[{plural(collector.matches, 'matching line')} in {plural(len(collector.files), 'file')}"
    )
    if collector.more:
        summary += (
            f"; stopped at the limit of {collector.limit}. Narrow the search with path or "
            "glob, or raise limit.]"
        )
    else:
        summary += ".]"
    return "\n".join([*out, "", summary])
