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

Signals: a forked worker starts with the parent's signal handlers and, under
asyncio, the parent's signal wake-up fd, so a signal sent to the worker would
run the parent's handler (cancelling the parent's run). Workers are forked
with SIGINT/SIGTERM blocked, then drop every Python handler and the wake-up
fd (SIGTERM and the others back to their default action; SIGINT ignored, so a
Ctrl-C sent to the terminal's process group reaches only the parent, which
decides). Workers end by protocol: the caller sets a stop flag and opens the
window; each worker sends ``done`` and exits, and the caller reads every pipe
to its end and joins. Only when the caller stops early (a limit, an error, a
cancellation) and a worker is still busy after a grace period is it
terminated. A worker whose parent died notices it within a second while it
waits for work, and as soon as it sends a result: it holds no read end of any
result pipe, so the send fails instead of blocking on a pipe nobody reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_DONE = -1
_FAILED = -2
_IDLE = -1
_PARENT_POLL_SECONDS = 1.0
_STOP_GRACE_SECONDS = 2.0
_BLOCKED = frozenset({signal.SIGINT, signal.SIGTERM})


class WorkerDied(BrokenProcessPool):
    """A scan worker process ended without reporting (killed, crashed).

    Attributes:
        chunk: index of the chunk it was working on, or ``None`` when it died between chunks.
        exitcode: the process exit code (negative: killed by that signal), ``None`` if unknown.
    """

    def __init__(self, chunk: int | None, exitcode: int | None) -> None:
        self.chunk = chunk
        self.exitcode = exitcode
        super().__init__(f"A scan worker process died unexpectedly ({self.cause}).")

    @property
    def cause(self) -> str:
        """``killed by signal 11 (SIGSEGV)``, ``exit code 1`` or ``killed or crashed``."""
        code = self.exitcode
        if code is None:
            return "killed or crashed"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "unknown signal"
            return f"killed by signal {-code} ({name})"
        return f"exit code {code}"


def pool_context() -> BaseContext:
    """The ``fork`` multiprocessing context where there is one, else ``spawn``.

    Forked workers start in milliseconds with ast-grep-py already loaded and,
    unlike spawn/forkserver, never re-run the caller's ``__main__`` module.
    They only run :func:`~xcsh.structural.scan.per_file.scan_chunk`, which imports
    nothing new, so a thread of the caller holding the import lock at the fork
    cannot deadlock them. Under ``spawn`` the work is pickled.
    """
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


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


def reset_signals_after_fork() -> None:
    """In a forked child: no inherited wake-up fd, no inherited Python handler.

    Every signal with a Python-level handler gets its default action back,
    except SIGINT, which is ignored (the parent owns Ctrl-C). Then SIGINT and
    SIGTERM, blocked by the parent around the fork, are unblocked.
    """
    with contextlib.suppress(ValueError):  # not the main thread: nothing was inherited
        signal.set_wakeup_fd(-1)
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            handler = signal.getsignal(sig)
        except (ValueError, OSError):
            continue
        if sig == signal.SIGINT:
            signal.signal(sig, signal.SIG_IGN)
        elif callable(handler):
            signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _BLOCKED)


def _worker(
    func: Callable[[list[T]], R],
    chunks: list[list[T]],
    counter: Any,
    window: Any,
    stop: Any,
    current: Any,
    slot: int,
    conn: Connection,
    parent: int,
    inherited: tuple[int, ...] = (),
) -> None:
    # `parent` is the caller's pid, taken before the fork: a worker first scheduled after
    # its parent died would otherwise take init (or a subreaper) for its parent and wait
    # for the window forever.
    reset_signals_after_fork()
    for fd in inherited:  # read ends of result pipes: only the caller may hold them open,
        with contextlib.suppress(OSError):  # so that a send to a dead caller fails
            os.close(fd)  # (EPIPE) instead of blocking forever on a full pipe
    if os.getppid() != parent:
        return
    try:
        while True:
            while not window.acquire(timeout=_PARENT_POLL_SECONDS):
                if os.getppid() != parent:  # orphaned: nobody will read the results
                    return
            if stop.value:
                break
            with counter.get_lock():
                index = counter.value
                counter.value = index + 1
            if index >= len(chunks):
                break
            current[slot] = index
            result = func(chunks[index])
            current[slot] = _IDLE
            conn.send((index, result))
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
        WorkerDied: a worker died without reporting (killed, crashed); it
            names the chunk it was working on.
        BaseException: whatever ``func`` raised in a worker, re-raised here.

    The workers are always ended and joined before the generator finishes,
    also when it is closed early; once every result has been received they
    end by protocol, without a signal.
    """
    if not chunks:
        return
    counter = context.Value("q", 0)
    stop = context.Value("b", 0, lock=False)
    current = context.Array("q", [_IDLE] * workers, lock=False)
    window = context.Semaphore(max(1, workers * window_per_worker))
    readers: list[Connection] = []
    procs: list[Any] = []
    received_all = False
    try:
        for slot in range(workers):
            reader, writer = context.Pipe(duplex=False)
            inherited = tuple(conn.fileno() for conn in (*readers, reader))
            proc = context.Process(  # type: ignore[attr-defined]
                target=_worker,
                args=(func, chunks, counter, window, stop, current, slot, writer, os.getpid()),
                kwargs={"inherited": inherited if context.get_start_method() == "fork" else ()},
                daemon=True,
            )
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCKED)
            try:
                proc.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            writer.close()  # later workers must not inherit it, or EOF never comes
            readers.append(reader)
            procs.append(proc)
        ready: dict[int, R] = {}
        live = list(readers)
        for expected in range(len(chunks)):
            while expected not in ready:
                _receive(live, ready, readers, procs, current)
            if expected == len(chunks) - 1:
                received_all = True
            value = ready.pop(expected)
            window.release()
            yield value
    finally:
        _stop(procs, readers, window, stop, graceful=received_all)


def _receive(
    live: list[Connection],
    ready: dict[int, R],
    readers: list[Connection],
    procs: list[Any],
    current: Any,
) -> None:
    """Read what the ``live`` workers sent.

    Read what the ``live`` workers sent: a result goes to ``ready`` by chunk index, a
    worker that is done leaves ``live`` (``readers``, ``procs`` and ``current``, the
    chunk each works on, are by worker slot).

    Raises:
        BrokenProcessPool: every worker ended with work left.
        WorkerDied: a worker died without reporting.
        BaseException: what ``func`` raised in a worker.
    """
    if not live:
        raise BrokenProcessPool("A scan worker process ended before its work was done.")
    for conn in wait(live):
        assert isinstance(conn, Connection)
        try:
            index, value = conn.recv()
        except (EOFError, OSError):  # died, maybe in the middle of a message
            slot = readers.index(conn)
            procs[slot].join(_STOP_GRACE_SECONDS)
            chunk = current[slot]
            raise WorkerDied(chunk if chunk != _IDLE else None, procs[slot].exitcode) from None
        if index == _FAILED:
            raise value
        if index == _DONE:
            live.remove(conn)
        else:
            ready[index] = value


def _stop(
    procs: list[Any], readers: list[Connection], window: Any, stop: Any, *, graceful: bool
) -> None:
    """End the workers by protocol, reading their pipes to the end, then join them.

    ``graceful``: every result was received, so the workers are idle and end
    at once; nothing is ever signalled. Otherwise a worker still busy after
    a grace period is terminated.
    """
    stop.value = 1
    for _ in procs:
        window.release()  # a worker waiting for a slot wakes up and sees the flag
    deadline = None if graceful else time.monotonic() + _STOP_GRACE_SECONDS
    live = [conn for conn in readers if not conn.closed]
    while live:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready = wait(live, timeout)
        if not ready:
            break
        for conn in ready:
            assert isinstance(conn, Connection)
            try:
                conn.recv()  # a late result (or done): read so the worker never blocks on send
            except (EOFError, OSError):
                live.remove(conn)
            except Exception:  # an unpicklable late result: the worker still ends
                live.remove(conn)
    for proc, conn in zip(procs, readers, strict=True):
        if conn in live and proc.is_alive():  # still busy after the grace period
            proc.terminate()
    for proc in procs:
        proc.join()
    for conn in readers:
        conn.close()
