"""The scan process pool: chunk planning, order, failures, early stop, edits restored."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from xcsh.structural import EditOp, preview_edit, search
from xcsh.structural.languages import resolve_language
from xcsh.structural.pattern import compile_pattern
from xcsh.structural.pool import plan_chunks, run_chunks
from xcsh.structural.rewrite import parse_template
from xcsh.structural.scan import LanguageQuery, Outcome, Query, restore_edit, scan_chunk

CTX = multiprocessing.get_context("fork")


def test_plan_chunks_shrink_and_cover_every_item() -> None:
    sizes = [1000] * 400
    ends = plan_chunks(sizes, 2, min_bytes=5000, max_items=64)
    assert ends[-1] == 400 and ends == sorted(set(ends))
    lengths = [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    assert lengths[0] > lengths[-1] >= 1  # large chunks first, small at the end
    assert all(n <= 64 for n in lengths)
    assert plan_chunks([], 2, min_bytes=1, max_items=4) == []
    # A huge item fills a chunk on its own; what remains is shared out again.
    assert plan_chunks([10**9, 10, 10], 2, min_bytes=1, max_items=4) == [1, 2, 3]


def _square_all(items: list[int]) -> list[int]:
    time.sleep(0.001 * (items[0] % 3))  # uneven work, so chunks finish out of order
    return [i * i for i in items]


def test_results_come_back_in_chunk_order() -> None:
    chunks = [[i, i + 100] for i in range(40)]
    out = list(run_chunks(_square_all, chunks, workers=3, context=CTX, window_per_worker=2))
    assert out == [[i * i, (i + 100) ** 2] for i in range(40)]


def _fail_on_seven(items: list[int]) -> list[int]:
    if 7 in items:
        raise ValueError("seven is not welcome")
    return items


def test_an_exception_in_a_worker_is_raised_in_the_caller() -> None:
    with pytest.raises(ValueError, match="seven"):
        list(run_chunks(_fail_on_seven, [[i] for i in range(20)], workers=2, context=CTX))


def _die_on_five(items: list[int]) -> list[int]:
    if 5 in items:
        os.kill(os.getpid(), signal.SIGKILL)
    return items


def test_a_killed_worker_breaks_the_pool_instead_of_hanging() -> None:
    with pytest.raises(BrokenProcessPool):
        list(run_chunks(_die_on_five, [[i] for i in range(20)], workers=2, context=CTX))


def _pid(items: list[int]) -> list[int]:
    return [os.getpid()]


def test_closing_early_stops_the_workers() -> None:
    results = run_chunks(_pid, [[i] for i in range(200)], workers=2, context=CTX)
    pid = next(results)[0]
    results.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # terminated and reaped


def test_pooled_edit_gets_its_bytes_back_and_a_changed_file_is_scanned_again(
    ws: Path,
) -> None:
    path = ws / "a.py"
    path.write_text("print(1)\nprint(2)\n")
    preview = preview_edit([EditOp(pat="print($A)", out="log($A)")], root=ws, workers=1)
    query_preview = preview.files[0]
    pat = compile_pattern("print($A)", resolve_language("python"))
    template = parse_template("log($A)", single=pat.single, multi=pat.multi, pattern="print($A)")
    python = LanguageQuery(name="python", display="Python", patterns=(pat,))
    query = Query(languages={"python": python}, templates=(template,), skip_parse_errors=True)
    [outcome] = scan_chunk(query, [(path, "a.py", "python")])
    assert outcome is not None and outcome.edit is not None
    assert outcome.edit.old_bytes == b"" and outcome.edit.new_bytes == b""
    restored = restore_edit(query, outcome, path, "a.py", "python")
    assert restored is not None and restored.edit is not None
    assert restored.edit.new_bytes == query_preview.new_bytes == b"log(1)\nlog(2)\n"
    # The file changes between the worker's read and the parent's: scanned again.
    [stale] = scan_chunk(query, [(path, "a.py", "python")])
    path.write_text("print(3)\n")
    again = restore_edit(query, stale or Outcome(), path, "a.py", "python")
    assert again is not None and again.edit is not None
    assert again.edit.old_bytes == b"print(3)\n" and again.edit.new_bytes == b"log(3)\n"
    assert len(again.edit.replacements) == 1


class Stop(Exception):
    pass


def test_progress_raising_in_a_pooled_scan_stops_the_workers(ws: Path) -> None:
    body = "".join(f"print({j})\n" for j in range(7000))  # ~70 KB per file
    for i in range(20):
        (ws / f"m{i:02}.py").write_text(body)

    def progress(done: int, total: int) -> None:
        raise Stop(f"{done}/{total}")

    with pytest.raises(Stop):
        search(["print($A)"], root=ws, workers=2, progress=progress)
    assert multiprocessing.active_children() == []
