"""Running a compiled query over a scope: in-process, or on a fork pool of workers.

:func:`run_query` yields one outcome per file in walk order, whichever way
the files were scanned; the engine's entry points build results and
previews from those outcomes.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator

from xcsh.structural.base.errors import ScanWorkerDied
from xcsh.structural.matches.matching import Outcome, Query
from xcsh.structural.scan.per_file import restore_edit, scan_chunk, scan_file_safely
from xcsh.structural.scan.scope import Scope

ProgressCallback = Callable[[int, int], None]
"""``progress(files_done, files_total)``: called on the calling thread after
each file (in-process) or batch of files (process pool); ``files_total`` is
fixed for one call. It may raise to cancel the scan: the exception
propagates to the caller after the worker processes are stopped."""

PARALLEL_MIN_FILES = 16
"""Scans of fewer files run in-process (a pool costs more than it saves)."""
PARALLEL_MIN_BYTES = 1024 * 1024
"""Scans of fewer bytes than this run in-process too."""
_MIN_CHUNK_BYTES = 64 * 1024
_MAX_CHUNK_FILES = 64
_WINDOW_PER_WORKER = 4


def run_query(
    query: Query,
    scope: Scope,
    progress: ProgressCallback | None,
    workers: int | None,
) -> Iterator[Outcome | None]:
    """Yield one outcome per file of ``scope`` (``None``: nothing to report), in walk order.

    Scans of at least :data:`PARALLEL_MIN_FILES` files and
    :data:`PARALLEL_MIN_BYTES` bytes run on ``workers`` forked processes
    (default: up to 2); smaller ones, or ``workers=1``, in-process.

    Raises:
        ScanWorkerDied: a worker process died (naming the files of its chunk).
    """
    files = scope.files
    total = len(files)
    count = workers if workers is not None else min(2, os.cpu_count() or 1)
    small = total < PARALLEL_MIN_FILES or scope.total_bytes < PARALLEL_MIN_BYTES
    if count <= 1 or small:
        for done, (path, display, language) in enumerate(files, 1):
            outcome = scan_file_safely(query, path, display, language)
            if progress is not None:
                progress(done, total)
            yield outcome
        return
    sizes = scope.sizes if len(scope.sizes) == total else [1] * total
    # the pool (multiprocessing) loads only for scans big enough to share
    from xcsh.structural.scan.pool import WorkerDied, plan_chunks, pool_context, run_chunks

    ends = plan_chunks(sizes, count, min_bytes=_MIN_CHUNK_BYTES, max_items=_MAX_CHUNK_FILES)
    chunks = [files[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    done = 0
    results = run_chunks(
        functools.partial(scan_chunk, query),
        chunks,
        workers=count,
        context=pool_context(),
        window_per_worker=_WINDOW_PER_WORKER,
    )
    try:
        for chunk, outcomes in zip(chunks, results, strict=False):
            done += len(outcomes)
            if progress is not None:
                progress(done, total)
            for (path, display, language), outcome in zip(chunk, outcomes, strict=True):
                if outcome is not None and outcome.edit is not None:
                    outcome = restore_edit(query, outcome, path, display, language)
                yield outcome
    except WorkerDied as exc:
        names = [item[1] for item in chunks[exc.chunk]] if exc.chunk is not None else []
        raise ScanWorkerDied(exc.cause, tuple(names)) from exc
    finally:
        results.close()
