"""A warm session in one process, for bench/warm.py: one ``WarmIndex`` kept for the
process's life; each line on stdin is a call, answered by one JSON line on stdout.

Usage::

    python bench/_warm_child.py ROOT
    {"op": "search", "pattern": "print($$$A)"}
    {"op": "preview", "pattern": "print($$$A)", "rewrite": "log.info($$$A)"}
    {"op": "peak"}

A call's time is the engine's (``search``/``preview_edit`` with the index), the
imports done, as for an agent whose session is open.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from xcsh.structural import EditOp, EditSpec, MatchSpec, ScopeSpec, preview_edit, search
from xcsh.structural.scan.warm import WarmIndex


def _call(index: WarmIndex, root: str, request: dict[str, Any]) -> dict[str, Any]:
    where = ScopeSpec(root=root, lang="python")
    if request["op"] == "peak":
        with open("/proc/self/status", encoding="ascii") as status:
            hwm = [int(line.split()[1]) for line in status if line.startswith("VmHWM:")]
        return {"peak_kib": hwm[0] if hwm else 0, "index_bytes": index.used}
    start = time.perf_counter()
    if request["op"] == "search":
        result = search(MatchSpec(patterns=(request["pattern"],)), where, index=index)
        seconds = time.perf_counter() - start
        keys = [[m.file, m.span.start_byte, m.span.end_byte, m.text] for m in result.matches]
        return {"seconds": seconds, "keys": keys, "skipped": []}
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat=request["pattern"], out=request["rewrite"]),)),
        where,
        index=index,
    )
    seconds = time.perf_counter() - start
    keys = [
        [edit.file, rep.match_start, rep.match_end, rep.new_text]
        for edit in preview.files
        for rep in edit.replacements
    ]
    skipped = [[s.file, s.reason] for s in preview.skipped]
    return {
        "seconds": seconds,
        "keys": keys,
        "skipped": skipped,
        "nested_skipped": preview.nested_skipped,
    }


def main(argv: list[str]) -> int:
    root = argv[0]
    index = WarmIndex()
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_call(index, root, json.loads(line))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
