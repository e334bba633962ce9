"""The scan process pool: chunk planning, order, failures, early stop, edits restored."""

from __future__ import annotations

import asyncio
import faulthandler
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from xcsh.core import ToolError
from xcsh.structural import (
    EditOp,
    EditSpec,
    MatchSpec,
    ScopeSpec,
    preview_edit,
    search,
)
from xcsh.structural.base.languages import resolve_language
from xcsh.structural.matches.matching import LanguageQuery, Outcome, Query
from xcsh.structural.pattern.compile import compile_pattern
from xcsh.structural.pattern.rewrite import parse_template
from xcsh.structural.scan import pool, runner
from xcsh.structural.scan.per_file import restore_edit, scan_chunk
from xcsh.structural.scan.pool import WorkerDied, plan_chunks, run_chunks

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


def test_a_killed_worker_names_its_chunk_and_how_it_died() -> None:
    with pytest.raises(WorkerDied) as info:
        list(run_chunks(_die_on_five, [[i] for i in range(20)], workers=2, context=CTX))
    assert info.value.chunk == 5
    assert info.value.exitcode == -signal.SIGKILL
    assert info.value.cause == "killed by signal 9 (SIGKILL)"
    assert multiprocessing.active_children() == []


def _signal_state(items: list[int]) -> list[object]:
    previous_fd = signal.set_wakeup_fd(-1)
    return [previous_fd, signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)]


def test_workers_drop_the_parents_signal_handlers_and_wakeup_fd() -> None:
    read_end, write_end = socket.socketpair()
    write_end.setblocking(False)
    calls: list[int] = []
    old_fd = signal.set_wakeup_fd(write_end.fileno())
    old_term = signal.signal(signal.SIGTERM, lambda sig, frame: calls.append(sig))
    try:
        out = list(run_chunks(_signal_state, [[i] for i in range(6)], workers=2, context=CTX))
    finally:
        signal.signal(signal.SIGTERM, old_term)
        signal.set_wakeup_fd(old_fd)
        read_end.close()
        write_end.close()
    assert out == [[-1, signal.SIG_DFL, signal.SIG_IGN]] * 6
    assert calls == []


def _watch_sigterm(items: list[int]) -> list[int]:
    # Runs after the worker's reset: records any SIGTERM the pool would send it.
    marker = os.environ["POOL_SIGNAL_LOG"]

    def record(sig: int, frame: object) -> None:
        with open(marker, "a") as log:
            log.write(f"{os.getpid()} got signal {sig}\n")

    signal.signal(signal.SIGTERM, record)
    return items


def test_a_consumer_stopping_at_the_last_result_never_signals_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "signals.log"
    log.write_text("")
    monkeypatch.setenv("POOL_SIGNAL_LOG", str(log))
    chunks = [[i] for i in range(30)]
    for _ in range(5):
        results = run_chunks(_watch_sigterm, chunks, workers=2, context=CTX)
        # zip() stops after the last chunk without asking for more: the generator
        # is closed at its last yield, the way the engine consumes it.
        got = [out for _, out in zip(chunks, results, strict=False)]
        results.close()
        assert got == chunks
    assert log.read_text() == ""
    assert multiprocessing.active_children() == []


def test_a_scan_under_asyncio_signal_handlers_never_cancels_the_caller(ws: Path) -> None:
    # ~70 KB per file, so the pool is used; one match per file keeps it quick.
    body = "print(0)\n" + "".join(f"x{j} = {j}\n" for j in range(6000))
    for i in range(20):
        (ws / f"m{i:02}.py").write_text(body)

    async def main() -> list[str]:
        got: list[str] = []
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, got.append, "SIGTERM")
        loop.add_signal_handler(signal.SIGINT, got.append, "SIGINT")
        try:
            for _ in range(5):
                where = ScopeSpec(root=ws)
                what = MatchSpec(patterns=("print($A)",))
                result = await asyncio.to_thread(search, what, where, limit=3)
                assert result.total == 20
                edit = EditSpec(ops=(EditOp(pat="print($A)", out="log($A)"),), limit=3)
                preview = await asyncio.to_thread(preview_edit, edit, where)
                assert preview.total == 3
            await asyncio.sleep(0.2)  # a signal written to the wake-up fd would run by now
        finally:
            loop.remove_signal_handler(signal.SIGTERM)
            loop.remove_signal_handler(signal.SIGINT)
        return got

    assert asyncio.run(main()) == []
    assert multiprocessing.active_children() == []


def _die_on_m07(items: list[tuple[Path, str, str]]) -> None:
    if any(item[1] == "m07.py" for item in items):
        faulthandler.disable()  # pytest's handler would print the crash of this worker
        os.kill(os.getpid(), signal.SIGSEGV)


def test_a_worker_that_dies_is_a_tool_error_naming_its_files(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "".join(f"print({j})\n" for j in range(7000))
    for i in range(20):
        (ws / f"m{i:02}.py").write_text(body)
    real_scan_chunk = runner.scan_chunk

    def dying(query: Query, items: list[tuple[Path, str, str]]) -> list[Outcome | None]:
        _die_on_m07(items)
        return real_scan_chunk(query, items)

    monkeypatch.setattr(runner, "scan_chunk", dying)
    with pytest.raises(ToolError) as info:
        search(MatchSpec(patterns=("print($A)",)), ScopeSpec(root=ws), workers=2)
    message = str(info.value)
    assert "A scan worker process died (killed by signal 11 (SIGSEGV)) while scanning" in message
    assert "m07.py" in message and "m19.py" not in message
    assert multiprocessing.active_children() == []


ORPHAN_SCRIPT = """
import multiprocessing, os, sys, time
from xcsh.structural.scan.pool import run_chunks

def pid(items):
    return os.getpid()

if __name__ == "__main__":
    results = run_chunks(pid, [[i] for i in range(100)], workers=2,
                         context=multiprocessing.get_context("fork"), window_per_worker=1)
    next(results)
    print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
    time.sleep(60)
"""


def _workers_left_by_a_killed_parent(
    tmp_path: Path, script_text: str, sig: int, *, settle: float = 0.0
) -> tuple[list[int], subprocess.Popen[str]]:
    """Run ``script_text`` (it prints its two workers' pids), kill it with ``sig``; the pids
    of the workers still running 10 s later (killed then), and the finished parent."""
    script = tmp_path / "parent.py"
    script.write_text(script_text)
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert parent.stdout is not None
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 2
    time.sleep(settle)
    parent.send_signal(sig)
    parent.wait()
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        alive = [p for p in pids if _running(p)]
        time.sleep(0.1)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return alive, parent


def test_workers_of_a_killed_parent_exit_on_their_own(tmp_path: Path) -> None:
    alive, _ = _workers_left_by_a_killed_parent(tmp_path, ORPHAN_SCRIPT, signal.SIGKILL)
    assert alive == []


BLOCKED_SCRIPT = """
import multiprocessing, os, sys, time
from xcsh.structural.scan.pool import run_chunks

def big(items):
    return "x" * 4_000_000  # far more than a pipe holds: the send blocks until read

if __name__ == "__main__":
    results = run_chunks(big, [[i] for i in range(20)], workers=2,
                         context=multiprocessing.get_context("fork"))
    next(results)
    print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_blocked_sending_to_a_killed_parent_exit(tmp_path: Path, sig: int) -> None:
    # Each worker used to hold read ends of the result pipes: a worker blocked on a full
    # pipe waited forever once its parent was killed (and kept the parent's output open).
    # After 0.5 s both workers are blocked sending a result.
    alive, parent = _workers_left_by_a_killed_parent(tmp_path, BLOCKED_SCRIPT, sig, settle=0.5)
    assert alive == []
    assert parent.stdout is not None
    assert parent.stdout.read() == ""  # EOF: no worker holds the parent's output open


def test_a_worker_first_scheduled_after_its_parent_died_exits() -> None:
    # Under load a forked worker may first run after the caller was killed; it must not
    # take init for its parent and wait for work forever (seen as a leaked process).
    window = CTX.Semaphore(0)  # no work will ever be released
    reader, writer = CTX.Pipe(duplex=False)
    gone = 1  # the caller's pid as recorded before the fork; the worker's parent differs
    worker = CTX.Process(  # type: ignore[attr-defined]
        target=pool._worker,
        args=(
            _pid,
            [[1]],
            CTX.Value("q", 0),
            window,
            CTX.Value("b", 0),
            CTX.Array("q", [-1]),
            0,
            writer,
            gone,
        ),
    )
    worker.start()
    writer.close()
    worker.join(timeout=10)
    alive = worker.is_alive()
    if alive:
        worker.kill()
        worker.join()
    reader.close()
    assert not alive


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat_file:
            return stat_file.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


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
    preview = preview_edit(
        EditSpec(ops=(EditOp(pat="print($A)", out="log($A)"),)), ScopeSpec(root=ws), workers=1
    )
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
        search(MatchSpec(patterns=("print($A)",)), ScopeSpec(root=ws), workers=2, progress=progress)
    assert multiprocessing.active_children() == []
