"""A small self-scheduling process pool for scans: workers pull chunks, the caller reads in order.

Why not :class:`concurrent.futures.ProcessPoolExecutor`: every task there
travels parent → manager thread → feeder thread → pipe → worker, and only
``workers + 1`` tasks wait in the pipe; on a busy machine a worker often
waits for the parent's threads to be scheduled before it can start its next
chunk. Here the chunk list is inherited by the forked workers, which take the
next chunk index from a shared counter, so a worker never waits for the
parent to hand out work; results come back on one pipe per worker and are
read by the calling thread itself.

Memory stays flat: a worker may only run ``window`` chunks ahead of the
chunk the caller is consuming (a semaphore the caller releases per chunk).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator, Sequence
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_DONE = -1
_FAILED = -2


def plan_chunks(sizes: Sequence[int], workers: int, *, min_bytes: int, max_items: int) -> list[int]:
    """Split items into consecutive chunks of shrinking byte size (guided self-scheduling).

    Each chunk takes about ``remaining_bytes / (8 * workers)`` bytes (at least
    ``min_bytes``, at most ``max_items`` items): large chunks first, when
    there is much left to share, small ones at the end, so that the workers
    finish together.

    Args:
        sizes: the size in bytes of each item, in order.
        workers: number of worker processes.
        min_bytes: the smallest chunk worth a round trip.
        max_items: the most items in one chunk (bounds one chunk's results).

    Returns:
        The end index of each chunk (the last one is ``len(sizes)``).
    """
    remaining = sum(sizes)
    ends: list[int] = []
    index = 0
    total = len(sizes)
    while index < total:
        target = max(min_bytes, remaining // (8 * workers))
        taken = 0
        start = index
        while index < total and (index == start or taken < target) and index - start < max_items:
            taken += sizes[index]
            index += 1
        remaining -= taken
        ends.append(index)
    return ends


def _worker(
    func: Callable[[list[T]], R],
    chunks: list[list[T]],
    counter: Any,
    window: Any,
    conn: Connection,
) -> None:
    try:
        while True:
            window.acquire()
            with counter.get_lock():
                index = counter.value
                counter.value = index + 1
            if index >= len(chunks):
                break
            conn.send((index, func(chunks[index])))
        conn.send((_DONE, None))
    except BaseException as exc:  # reported to the caller, which re-raises it
        with contextlib.suppress(BaseException):
            conn.send((_FAILED, exc))
    finally:
        conn.close()


def run_chunks(
    func: Callable[[list[T]], R],
    chunks: list[list[T]],
    *,
    workers: int,
    context: BaseContext,
    window_per_worker: int = 4,
) -> Generator[R, None, None]:
    """Run ``func`` on every chunk in ``workers`` processes; yield the results in chunk order.

    Args:
        func: a module-level function (pickled under ``spawn``, inherited under ``fork``).
        chunks: the work, in order.
        workers: processes to start (at least 1).
        context: the multiprocessing context (``fork`` where available).
        window_per_worker: chunks each worker may complete ahead of the caller.

    Raises:
        BrokenProcessPool: a worker died without reporting (killed, crashed).
        BaseException: whatever ``func`` raised in a worker, re-raised here.

    Closing the generator early (or an exception in the caller) terminates
    the workers; they are always joined before the generator finishes.
    """
    if not chunks:
        return
    counter = context.Value("q", 0)
    window = context.Semaphore(max(1, workers * window_per_worker))
    readers: list[Connection] = []
    procs: list[Any] = []
    finished = False
    try:
        for _ in range(workers):
            reader, writer = context.Pipe(duplex=False)
            proc = context.Process(  # type: ignore[attr-defined]
                target=_worker, args=(func, chunks, counter, window, writer), daemon=True
            )
            proc.start()
            writer.close()  # later workers must not inherit it, or EOF never comes
            readers.append(reader)
            procs.append(proc)
        ready: dict[int, R] = {}
        live = list(readers)
        for expected in range(len(chunks)):
            while expected not in ready:
                if not live:
                    raise BrokenProcessPool("A scan worker process ended before its work was done.")
                for conn in wait(live):
                    assert isinstance(conn, Connection)
                    try:
                        index, value = conn.recv()
                    except EOFError:
                        raise BrokenProcessPool(
                            "A scan worker process died unexpectedly (killed or crashed)."
                        ) from None
                    if index == _FAILED:
                        raise value
                    if index == _DONE:
                        live.remove(conn)
                    else:
                        ready[index] = value
            value = ready.pop(expected)
            window.release()
            yield value
        finished = True
    finally:
        for proc in procs:
            if not finished and proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join()
        for conn in readers:
            conn.close()
