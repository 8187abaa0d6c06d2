"""The daemon's inbox worker (a pass per wake-up, gathering the mail stored meanwhile; no pass
that would find nothing) and the garbage collector of `narrator serve`."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from narrator import daemon as daemon_module
from narrator.commands.serve import YOUNG_COLLECTION, settled
from narrator.daemon import InboxWorker, took_all
from narrator.inbound.sink import InboxNotifier
from narrator.service.inbox import PASS_LIMIT, InboxSettings, Outcome

DONE = Outcome("done", "vote accepted")
RETRY = Outcome("new", "will retry: RuntimeError: boom")


def worker_of(
    notifier: InboxNotifier,
    after_pass: Callable[[list[Outcome]], Awaitable[None]],
    **options: Any,
) -> InboxWorker:
    """An inbox worker woken by `notifier`, whose passes are the test's ``process_pending``
    (no database, no mailer)."""
    return InboxWorker(
        None,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        InboxSettings(address="verteller@example.org"),
        lambda: datetime(2026, 1, 1, tzinfo=UTC),
        notifier,
        interval=60,
        after_pass=after_pass,
        **options,
    )


def test_a_pass_took_all_unless_it_hit_its_limit_or_left_a_mail_to_retry() -> None:
    assert took_all([DONE])
    assert took_all([DONE] * (PASS_LIMIT - 1))
    assert not took_all([DONE] * PASS_LIMIT)
    assert not took_all([DONE, RETRY])


def test_a_lone_mail_costs_one_pass_and_a_new_wake_up_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a pass that took every mail there was, the worker waits for the next wake-up
    (mail stored meanwhile has woken it) instead of running a pass that finds nothing."""
    passes: list[int] = []
    waiting = [1, 1]  # the mails each wake-up finds

    def process_pending(*_args: Any, **_kwargs: Any) -> list[Outcome]:
        passes.append(len(passes))
        return [DONE] * (waiting.pop(0) if waiting else 0)

    monkeypatch.setattr(daemon_module, "process_pending", process_pending)

    async def run() -> list[int]:
        notifier = InboxNotifier()
        after: list[int] = []

        async def after_pass(outcomes: list[Outcome]) -> None:
            after.append(len(outcomes))

        worker = worker_of(notifier, after_pass)
        worker.start()  # its first pass at once: mail stored while down
        for _ in range(100):
            await asyncio.sleep(0.01)
        assert passes == [0] and after == [1]
        notifier.notify()  # a mail was stored
        for _ in range(100):
            await asyncio.sleep(0.01)
        await worker.stop()
        return after

    assert asyncio.run(run()) == [1, 1]
    # One pass per wake-up (the stop's wakes it to end): none right after a pass that took all.
    assert passes == [0, 1]


def test_mail_stored_close_together_is_taken_by_one_pass_and_no_empty_pass_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Woken by a stored mail, the worker waits its linger before the pass: the mails stored
    meanwhile go in that pass (not a pass each), and their wake-ups call for no second pass
    that would find nothing."""
    lock = threading.Lock()
    stored = [0]  # mails stored and not yet taken
    sizes: list[int] = []  # the mails each pass took

    def process_pending(*_args: Any, **_kwargs: Any) -> list[Outcome]:
        with lock:
            taken, stored[0] = stored[0], 0
        sizes.append(taken)
        return [DONE] * taken

    monkeypatch.setattr(daemon_module, "process_pending", process_pending)

    async def run() -> None:
        notifier = InboxNotifier()

        async def after_pass(_outcomes: list[Outcome]) -> None:
            return None

        def store() -> None:  # as DbSink: committed, then the worker woken
            with lock:
                stored[0] += 1
            notifier.notify()

        worker = worker_of(notifier, after_pass, linger=0.3)
        worker.start()
        for _ in range(500):
            if sizes:
                break
            await asyncio.sleep(0.01)
        assert sizes == [0]  # the pass at start
        store()
        await asyncio.sleep(0.05)
        store()
        store()
        for _ in range(500):
            if sum(sizes) == 3:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.6)  # time for a needless pass (after its linger) to show
        await worker.stop()

    asyncio.run(run())
    assert sizes == [0, 3]


def test_narrator_serve_tells_the_collector_to_leave_what_the_start_built() -> None:
    """`narrator serve`, once started, freezes the objects of the start (gc.freeze)."""
    before = gc.get_freeze_count()
    thresholds = gc.get_threshold()
    try:
        settled(None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_narrator_serve_collects_the_youngest_generation_less_often() -> None:
    """Once started, `narrator serve` lets the youngest generation grow to YOUNG_COLLECTION
    allocations before a collection (the older generations' thresholds as they were)."""
    thresholds = gc.get_threshold()
    try:
        settled(None)
        assert gc.get_threshold() == (YOUNG_COLLECTION, *thresholds[1:])
        assert thresholds[0] < YOUNG_COLLECTION
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
