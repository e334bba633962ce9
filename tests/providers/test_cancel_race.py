"""The read a provider races against the cancel event never outlives its caller."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest

from xcsh.providers._cancel import race


async def test_caller_cancelled_mid_read_cancels_the_read_and_observes_its_error() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    started = asyncio.Event()
    outcome: list[str] = []

    async def read() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise RuntimeError("connection dropped") from None  # as the SDK does
        return "data"

    caller = asyncio.create_task(race(read(), asyncio.Event()))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    for _ in range(3):
        await asyncio.sleep(0)
    assert outcome == ["cancelled"]
    del caller
    gc.collect()
    await asyncio.sleep(0)
    assert reported == []  # no "Task exception was never retrieved"
