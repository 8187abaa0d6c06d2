"""The daemon's inbox worker (a pass per wake-up, gathering the mail stored meanwhile; no pass
that would find nothing) and the garbage collector of `narrator serve`."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from narrator import daemon as daemon_module
from narrator.commands.serve import YOUNG_COLLECTION, settled
from narrator.daemon import Gathering, InboxWorker, took_all
from narrator.inbound.sink import InboxNotifier
from narrator.service.inbox import PASS_LIMIT, InboxSettings, Outcome
from tests.support.aio import wait_until

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


class Inbox:
    """Mail stored as by DbSink (committed, then the worker woken) and the test's
    ``process_pending``: each pass takes every mail stored so far; the passes' sizes and the
    moments (``time.monotonic()``) each pass started and each mail was stored are kept."""

    def __init__(self, notifier: InboxNotifier) -> None:
        self.notifier = notifier
        self._lock = threading.Lock()
        self._waiting = 0
        self.sizes: list[int] = []  # the mails each pass took
        self.starts: list[float] = []  # when each pass started
        self.stored: list[float] = []  # when each mail was stored

    def store(self, count: int = 1) -> None:
        for _ in range(count):
            with self._lock:
                self._waiting += 1
                self.stored.append(time.monotonic())
            self.notifier.notify()

    def process_pending(self, *_args: Any, **_kwargs: Any) -> list[Outcome]:
        with self._lock:
            self.starts.append(time.monotonic())
            taken, self._waiting = self._waiting, 0
        self.sizes.append(taken)
        return [DONE] * taken


async def nothing_after(_outcomes: list[Outcome]) -> None:
    return None


@pytest.fixture
def inbox(monkeypatch: pytest.MonkeyPatch) -> Inbox:
    """A fake inbox whose passes the daemon's worker runs (its process_pending)."""
    fake = Inbox(InboxNotifier())
    monkeypatch.setattr(daemon_module, "process_pending", fake.process_pending)
    return fake


async def started(inbox: Inbox, gathering: Gathering) -> InboxWorker:
    """A worker on `inbox` gathering so, once its pass at start is made."""
    worker = worker_of(inbox.notifier, nothing_after, gathering=gathering)
    worker.start()
    await wait_until(lambda: inbox.sizes == [0], message="the pass at start")
    return worker


def test_gathering_starts_the_pass_after_a_quiet_spell_at_the_maximum_delay_or_with_a_batch() -> (
    None
):
    """How long the worker still gathers, from what the notifier announced since the last pass
    (the moments are given: no clock)."""
    gathering = Gathering(quiet=0.05, max_delay=0.3, enough=4)
    notifier = InboxNotifier()
    assert gathering.left(notifier, 100.0) <= 0  # nothing announced (a stop): no gathering
    notifier.count, notifier.first, notifier.latest = 1, 100.0, 100.0
    assert gathering.left(notifier, 100.0) == pytest.approx(0.05)  # a lone mail: the quiet
    assert gathering.left(notifier, 100.04) == pytest.approx(0.01)
    assert gathering.left(notifier, 100.05) <= 0
    notifier.count, notifier.latest = 3, 100.2  # more came: quiet from the latest
    assert gathering.left(notifier, 100.21) == pytest.approx(0.04)
    notifier.latest = 100.28  # mail keeps coming: the maximum since the first
    assert gathering.left(notifier, 100.29) == pytest.approx(0.01)
    assert gathering.left(notifier, 100.3) <= 0
    notifier.count = 4  # a batch is full: at once
    assert gathering.left(notifier, 100.1) <= 0
    notifier.clear()
    assert (notifier.count, notifier.first, notifier.latest) == (0, None, None)


def test_the_notifier_counts_the_wake_ups_since_the_worker_last_looked() -> None:
    async def scenario() -> list[tuple[int, bool]]:
        notifier = InboxNotifier()
        seen = []
        notifier.notify()
        first = notifier.first
        notifier.notify()
        seen.append((notifier.count, await notifier.wait(1)))
        seen.append((notifier.count, await notifier.wait(0.01)))  # kept, but no new wake-up
        notifier.notify()
        assert notifier.first == first
        assert notifier.latest is not None and first is not None and notifier.latest >= first
        notifier.clear()
        seen.append((notifier.count, await notifier.wait(0.01)))
        return seen

    assert asyncio.run(scenario()) == [(2, True), (2, False), (0, False)]


def test_mail_stored_close_together_is_taken_by_one_pass_and_no_empty_pass_follows(
    inbox: Inbox,
) -> None:
    """Woken by a stored mail, the worker gathers the mail stored while it keeps coming: the
    mails stored close together go in one pass (not a pass each), and their wake-ups call for
    no second pass that would find nothing."""

    async def run() -> None:
        worker = await started(inbox, Gathering(quiet=0.5, max_delay=60))
        inbox.store()
        await asyncio.sleep(0.05)
        inbox.store(2)
        await wait_until(lambda: sum(inbox.sizes) == 3, message="the mails' pass")
        await asyncio.sleep(0.6)  # time for a needless pass (after a quiet spell) to show
        await worker.stop()

    asyncio.run(run())
    assert inbox.sizes == [0, 3]


def test_a_lone_mail_is_taken_after_the_quiet_spell_not_the_maximum_delay(
    inbox: Inbox,
) -> None:
    """A lone mail's pass starts once no other mail came for `quiet` seconds: not sooner (the
    next mail might be on its way), and long before the maximum delay."""

    async def run() -> None:
        worker = await started(inbox, Gathering(quiet=0.3, max_delay=120))
        inbox.store()
        await wait_until(lambda: len(inbox.sizes) == 2, timeout=30, message="the mail's pass")
        await worker.stop()

    asyncio.run(run())
    assert inbox.sizes == [0, 1]
    assert inbox.starts[1] - inbox.stored[0] >= 0.3


@pytest.mark.wallclock
def test_mail_arriving_steadily_is_gathered_until_the_maximum_delay(
    inbox: Inbox,
) -> None:
    """Mail stored every 20 ms, never quiet for the quiet spell, goes in passes that each
    gather it for the maximum delay: a few passes, not a pass per mail or two (nor one pass
    when the mail has stopped)."""

    async def run() -> None:
        worker = await started(inbox, Gathering(quiet=0.5, max_delay=1.5, enough=10_000))
        end = time.monotonic() + 5
        while time.monotonic() < end:
            inbox.store()
            await asyncio.sleep(0.02)
        await wait_until(
            lambda: sum(inbox.sizes) == len(inbox.stored), timeout=30, message="every pass"
        )
        await worker.stop()

    asyncio.run(run())
    passes = inbox.sizes[1:]
    # About 4 passes of 1.5 s of mail (more if the event loop stalled past the quiet spell
    # under load); a pass per wake-up and 50 ms would make some sixty.
    assert 3 <= len(passes) <= 10, passes
    spans = []  # how long the mails of each pass were stored over
    first = 0
    for size in passes:
        spans.append(inbox.stored[first + size - 1] - inbox.stored[first])
        first += size
    assert max(spans) >= 1.4, spans  # gathered past the quiet spell, up to the maximum
    assert max(spans) < 1.5 + 1.0, spans  # and not longer (the thread's start aside)


def test_a_burst_that_fills_a_batch_is_taken_at_once(inbox: Inbox) -> None:
    """When enough mail for a batch has come, the pass starts without waiting for a quiet
    spell: gathering more would not make a pass any cheaper per mail."""

    async def run() -> None:
        worker = await started(inbox, Gathering(quiet=120, max_delay=240, enough=5))
        inbox.store(3)
        await asyncio.sleep(0.2)
        assert inbox.sizes == [0]  # gathering: three are not a batch
        inbox.store(2)
        await wait_until(lambda: len(inbox.sizes) == 2, timeout=30, message="the batch's pass")
        await worker.stop()

    asyncio.run(run())
    assert inbox.sizes == [0, 5]


def test_a_worker_stopped_while_gathering_stops_at_once(inbox: Inbox) -> None:
    """stop() ends the gathering (the mail stays stored, for the next start's pass)."""

    async def run() -> float:
        worker = await started(inbox, Gathering(quiet=120, max_delay=240))
        inbox.store()
        await asyncio.sleep(0.2)
        assert inbox.sizes == [0]  # gathering
        began = time.monotonic()
        await asyncio.wait_for(worker.stop(), timeout=30)
        return time.monotonic() - began

    assert asyncio.run(run()) < 30
    assert inbox.sizes == [0]


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
