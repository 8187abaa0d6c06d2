"""Helpers for running async code in plain (sync) pytest tests without sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
    """Run ``coro`` in a fresh event loop, failing if it takes longer than ``timeout`` seconds."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


async def wait_until(
    predicate: Callable[[], bool | Awaitable[bool]],
    timeout: float = 10.0,
    interval: float = 0.01,
    message: str = "condition",
) -> None:
    """Poll ``predicate`` (sync or async) until true; raise AssertionError after ``timeout``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if not isinstance(value, bool):
            value = await value
        if value:
            return
        if loop.time() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {message}")
        await asyncio.sleep(interval)
