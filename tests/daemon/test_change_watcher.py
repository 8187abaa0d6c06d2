"""The change watcher on SQLite: it sees a committed change (not a rolled-back one) and its
reads, on the driver's connection, leave no read lock between them (a checkpoint completes)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine

from narrator.changes import (
    ChangeWatcher,
    announce_change,
    counter_query,
    read_counter,
    read_counter_raw,
)
from narrator.db import make_engine, session_factory, transaction, upgrade

INTERVAL = 0.05


def _database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'narrator.db'}"
    upgrade(url)
    return url


def test_the_raw_read_reads_what_sqlalchemy_reads(tmp_path: Path) -> None:
    engine = make_engine(_database(tmp_path))
    try:
        with transaction(session_factory(engine)) as session:
            announce_change(session)
            announce_change(session)
        with engine.connect() as connection:
            cursor = connection.connection.cursor()
            assert read_counter_raw(cursor, counter_query(engine)) == read_counter(connection) == 2
    finally:
        engine.dispose()


async def _watch(url: str, seconds: float, act: Callable[[Engine], None]) -> int:
    """Run a watcher for `seconds` while `act(engine)` runs in a thread; the calls it made."""
    calls = 0

    def changed() -> None:
        nonlocal calls
        calls += 1

    watcher = ChangeWatcher(url, changed, interval=INTERVAL)
    watcher.start()
    try:
        assert await watcher.wait_ready()
        engine = make_engine(url)
        try:
            await asyncio.to_thread(act, engine)
        finally:
            engine.dispose()
        await asyncio.sleep(seconds)
    finally:
        await watcher.stop()
    return calls


@pytest.mark.wallclock
def test_a_committed_change_is_seen_and_a_rolled_back_one_is_not(tmp_path: Path) -> None:
    url = _database(tmp_path)

    def commit(engine: Engine) -> None:
        with transaction(session_factory(engine)) as session:
            announce_change(session)

    def roll_back(engine: Engine) -> None:
        with session_factory(engine)() as session:
            announce_change(session)
            session.rollback()

    assert asyncio.run(_watch(url, 10 * INTERVAL, roll_back)) == 0
    assert asyncio.run(_watch(url, 10 * INTERVAL, commit)) == 1


def test_the_watcher_holds_no_read_lock_between_its_reads(tmp_path: Path) -> None:
    """A read left open would keep a WAL checkpoint from completing (busy) while it lasts."""
    url = _database(tmp_path)
    results: list[tuple[int, int, int]] = []

    def write_and_checkpoint(engine: Engine) -> None:
        for _ in range(5):
            with transaction(session_factory(engine)) as session:
                announce_change(session)
            time.sleep(INTERVAL * 1.5)  # the watcher reads meanwhile
            connection = sqlite3.connect(tmp_path / "narrator.db", isolation_level=None)
            try:
                busy, pages, done = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                results.append((busy, pages, done))
            finally:
                connection.close()

    asyncio.run(_watch(url, 0.0, write_and_checkpoint))
    assert [busy for busy, _, _ in results] == [0] * 5, results
