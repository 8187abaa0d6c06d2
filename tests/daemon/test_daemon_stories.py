"""The daemon's look at the stories table now and then: a story stored behind its back (no
admin command told it) is rendered after the next look; an unchanged table costs no reload."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from narrator.config import load_config
from narrator.daemon import Daemon, DaemonOptions
from narrator.db import make_engine, session_factory, transaction, upgrade
from narrator.service.mailer import Mailer
from narrator.storystore import DatabaseStore
from stories import FileStore
from tests.support.aio import run_async, wait_until

NARRATOR = "verteller@wakkerdam.example.org"
LOOK = 0.05  # seconds between two looks at the stories table
OPTIONS = DaemonOptions(
    inbox_interval=600.0, scheduler_poll=600.0, outbox_poll=600.0, stories_max_age=LOOK
)


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = make_engine(f"sqlite:///{tmp_path / 'narrator.db'}")
    yield made
    made.dispose()


@pytest.mark.wallclock
def test_the_stories_are_reloaded_when_the_table_changed_and_only_then(
    tmp_path: Path, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "narrator.toml"
    path.write_text(
        f'[narrator]\ndatabase = "sqlite:///{tmp_path / "narrator.db"}"\naddress = "{NARRATOR}"\n'
        f'[inbound.smtp]\nenabled = false\n[outbound]\nmaildir = "{tmp_path / "outbox"}"\n',
        encoding="utf-8",
    )
    config = load_config(path, environ={})
    upgrade(config.database_url)
    factory = session_factory(engine)
    shipped = FileStore().all()[0]
    added = replace(shipped, variant=shipped.variant + 90, source="Een verhaal uit de tabel.\n")
    reloads: list[int] = []
    reload = Mailer.reload

    def counted(mailer: Mailer, session: Session) -> None:
        reloads.append(1)
        reload(mailer, session)

    monkeypatch.setattr(Mailer, "reload", counted)

    async def scenario() -> None:
        async with Daemon(config, options=OPTIONS) as daemon:
            assert daemon.mailer is not None
            mailer = daemon.mailer
            looked = len(reloads)  # the start's (make_mailer)
            await asyncio.sleep(20 * LOOK)
            assert len(reloads) == looked  # twenty looks at an unchanged table: no reload
            with transaction(factory) as session:  # behind the daemon's back
                assert DatabaseStore(session).put(added, replace=False) == "added"
            await wait_until(
                lambda: added.source in [s.source for s in mailer.store.variants(added.key)],
                message="the story stored behind the daemon's back",
            )
            assert len(reloads) == looked + 1

    run_async(scenario())
