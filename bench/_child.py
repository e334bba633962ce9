"""One xcsh measurement in a fresh process; prints one JSON object on stdout.

Usage::

    python bench/_child.py search  ROOT PATTERN [PATH]
    python bench/_child.py preview ROOT PATTERN REWRITE
    python bench/_child.py apply   ROOT PATTERN REWRITE    # preview, then apply through resolve
    python bench/_child.py rule    ROOT RULE_FILE          # search with a YAML rule
    python bench/_child.py apply-unjournaled ROOT PATTERN REWRITE   # the same, no undo journal

``apply`` records into an undo journal (in a temporary ``XCSH_HOME``), as every
xcsh front end does; ``apply-unjournaled`` measures what the journal costs.

The timed part starts after the imports (an agent process has them loaded),
so it compares the engine with the ``ast-grep`` process. Peak memory is the
resident-set high-water mark of this process and of its worker processes
(``VmHWM`` and ``getrusage``; workers are reaped when the pool shuts down).
"""

from __future__ import annotations

import asyncio
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from xcsh.journal import Journal
from xcsh.pending import PendingActionStore, create_resolve_tool
from xcsh.structural import (
    EditOp,
    EditSpec,
    MatchSpec,
    ScopeSpec,
    create_ast_edit_tool,
    load_rule_file,
    preview_edit,
    search,
)


def _peak() -> dict[str, int]:
    """This process's high-water RSS (``VmHWM``: per address space, reset by exec) and the
    largest worker's (``ru_maxrss`` of reaped children; forked, so shared pages count)."""
    own = 0
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                own = int(line.split()[1])
    return {
        "self_kib": own or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "workers_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }


def _search(root: str, pattern: str, path: str | None) -> dict[str, Any]:
    start = time.perf_counter()
    result = search(MatchSpec(patterns=(pattern,)), ScopeSpec(root=root, path=path, lang="python"))
    seconds = time.perf_counter() - start
    keys = [[m.file, m.span.start_byte, m.span.end_byte, m.text] for m in result.matches]
    return {
        "seconds": seconds,
        "keys": keys,
        "files_scanned": result.files_scanned,
        "skipped": [[s.file, s.reason] for s in result.skipped],
    }


def _rule(root: str, rule_file: str) -> dict[str, Any]:
    start = time.perf_counter()
    result = search(MatchSpec(rules=tuple(load_rule_file(Path(rule_file)))), ScopeSpec(root=root))
    seconds = time.perf_counter() - start
    keys = [[m.file, m.span.start_byte, m.span.end_byte, m.text] for m in result.matches]
    return {"seconds": seconds, "keys": keys, "files_scanned": result.files_scanned}


def _preview(root: str, pattern: str, rewrite: str) -> dict[str, Any]:
    start = time.perf_counter()
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat=pattern, out=rewrite),)), ScopeSpec(root=root, lang="python")
    )
    seconds = time.perf_counter() - start
    keys = [
        [edit.file, rep.match_start, rep.match_end, rep.new_text]
        for edit in preview.files
        for rep in edit.replacements
    ]
    return {
        "seconds": seconds,
        "keys": keys,
        "files_scanned": preview.files_scanned,
        "skipped": [[s.file, s.reason] for s in preview.skipped],
        "nested_skipped": preview.nested_skipped,
        "identical": preview.identical,
    }


async def _apply(root: str, pattern: str, rewrite: str, *, journaled: bool) -> dict[str, Any]:
    store = PendingActionStore()
    home = Path(tempfile.mkdtemp(prefix="xcsh-bench-home-"))
    journal = Journal.for_root(home, Path(root)) if journaled else None
    tool = create_ast_edit_tool(root, store, journal=journal)
    start = time.perf_counter()
    result = await tool.execute(
        "bench", {"ops": [{"pat": pattern, "out": rewrite}], "lang": "python"}
    )
    previewed = time.perf_counter()
    resolved = await create_resolve_tool(store).execute(
        "bench-apply", {"action": "apply", "reason": "benchmark"}
    )
    end = time.perf_counter()
    shutil.rmtree(home, ignore_errors=True)
    if resolved.is_error:
        raise SystemExit(f"apply failed: {resolved.text}")
    return {
        "seconds": end - start,
        "preview_seconds": previewed - start,
        "apply_seconds": end - previewed,
        "skipped": result.details.get("skipped", []),
        "total": result.details.get("total", 0),
    }


def main(argv: list[str]) -> int:
    mode, root, pattern, *rest = argv
    if mode == "search":
        out = _search(root, pattern, rest[0] if rest else None)
    elif mode == "preview":
        out = _preview(root, pattern, rest[0])
    elif mode in ("apply", "apply-unjournaled"):
        out = asyncio.run(_apply(root, pattern, rest[0], journaled=mode == "apply"))
    elif mode == "rule":
        out = _rule(root, pattern)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    out["peak"] = _peak()
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
