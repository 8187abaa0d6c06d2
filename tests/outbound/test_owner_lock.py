"""The outbox owner lock of a daemon on PostgreSQL (narrator.outbound.leases.OwnerLock)."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from narrator.db import make_engine
from narrator.outbound.leases import LOCK_SPACE, OwnerLock


def _free(url: str, owner: int) -> bool:
    """Whether another connection can take `owner`'s lock now (it gives it back at once)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            params = {"space": LOCK_SPACE, "owner": owner}
            taken = connection.scalar(text("SELECT pg_try_advisory_lock(:space, :owner)"), params)
            if taken:
                connection.execute(text("SELECT pg_advisory_unlock(:space, :owner)"), params)
            return bool(taken)
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_a_check_after_the_release_does_not_take_the_lock_again(postgres_db_url: str) -> None:
    """A stopping daemon releases its lock while its keeper's last check may still be running
    in a thread: that check must not take the lock again on a new connection (which nothing
    would close: the stopped daemon would hold its owner id, and leak the connection)."""
    lock = OwnerLock(postgres_db_url)
    owner = lock.acquire()
    assert not _free(postgres_db_url, owner)  # held while the daemon runs
    assert lock.check()
    lock.release()
    assert lock.check() is False
    assert _free(postgres_db_url, owner)
