"""Race a provider's network I/O against the caller's cancel event."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

T = TypeVar("T")


class Cancelled(Exception):
    """The cancel event was set while waiting; the adapter answers ``"aborted"``."""


async def race(awaitable: Awaitable[T], cancel: asyncio.Event | None) -> T:
    """Await ``awaitable`` unless ``cancel`` is set first.

    Raises:
        Cancelled: ``cancel`` was set before (or while) waiting; the awaitable
            is cancelled and awaited so no task is left behind.
    """
    if cancel is None:
        return await awaitable
    if cancel.is_set():
        if asyncio.iscoroutine(awaitable):
            awaitable.close()
        raise Cancelled
    work = asyncio.ensure_future(awaitable)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        await asyncio.wait({work, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        # The caller's task was cancelled (Ctrl-C, SIGTERM). The pending read
        # must not outlive it unobserved: its error would surface at shutdown
        # as "Task exception was never retrieved" with a traceback.
        work.cancel()
        work.add_done_callback(_observe)
        raise
    finally:
        waiter.cancel()
    if work.done():
        return work.result()
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
    raise Cancelled


def _observe(work: asyncio.Future[T]) -> None:
    """Mark ``work``'s outcome as seen (an abandoned read's error is expected)."""
    if not work.cancelled():
        work.exception()


async def until_cancelled(
    source: AsyncIterator[T], cancel: asyncio.Event | None
) -> AsyncIterator[T]:
    """Yield from ``source`` until it ends or ``cancel`` is set.

    Raises:
        Cancelled: ``cancel`` was set; the pending read is cancelled.
    """
    while True:
        try:
            item = await race(anext(source), cancel)
        except StopAsyncIteration:
            return
        yield item
