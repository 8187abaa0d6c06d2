"""Alembic: every migration walks down to base and up again; the models and migrations agree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from narrator.db import (
    alembic_config,
    current_revision,
    downgrade,
    head_revision,
    make_engine,
    revision_ids,
    upgrade,
)
from narrator.models import Base, Game, PageChapter, Player
from tests.narrator.fixtures import BACKENDS


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _revisions_oldest_first() -> list[str]:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


def _alembic_revision(url: str) -> str | None:
    """The database's revision as Alembic reads it (`current_revision` reads it without)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def test_the_revision_history_is_one_line() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    assert _revisions_oldest_first()[-1] == head_revision()


def test_every_revision_file_gives_alembic_s_ids() -> None:
    """`head_revision` reads each file's ids from its lines: as Alembic reads them, file by
    file (the merge and reassignment cases below are not in the shipped files)."""
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    for revision in script.walk_revisions():
        assert revision.path is not None
        assert revision_ids(Path(revision.path)) == {
            "revision": revision.revision,
            "down_revision": revision.down_revision,
        }


def test_revision_ids_are_the_module_level_literal_assignments(tmp_path: Path) -> None:
    migration = tmp_path / "0010_merge.py"
    migration.write_text(
        '"""A merge.\n\nrevision = the words of a docstring, not an id\n"""\n'
        'revision = "0009"\n'
        "revision: str = '0010'  # the last assignment is the module's\n"
        'down_revision: tuple[str, str] | None = ("0008", "0009")\n'
        "def upgrade() -> None:\n"
        '    revision = "local"\n',
        encoding="utf-8",
    )
    assert revision_ids(migration) == {"revision": "0010", "down_revision": ("0008", "0009")}


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_migration_goes_down_and_up(
    backend: str, fresh_database: Callable[[str], str]
) -> None:
    url = fresh_database(backend)
    assert current_revision(url) is None
    assert _alembic_revision(url) is None
    upgrade(url)
    assert current_revision(url) == head_revision() == _alembic_revision(url)
    assert _tables(url) == set(Base.metadata.tables)

    revisions = _revisions_oldest_first()
    # Step down one revision at a time to the base, then up one at a time to the head.
    for previous in reversed([None, *revisions[:-1]]):
        downgrade(url, previous or "base")
        assert current_revision(url) == previous == _alembic_revision(url)
    assert _tables(url) == set()
    for revision in revisions:
        upgrade(url, revision)
        assert current_revision(url) == revision == _alembic_revision(url)
    assert _tables(url) == set(Base.metadata.tables)


@pytest.mark.parametrize("backend", BACKENDS)
def test_autogenerate_finds_no_drift(backend: str, fresh_database: Callable[[str], str]) -> None:
    url = fresh_database(backend)
    upgrade(url)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "compare_server_default": True}
            )
            differences = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_upgrade_is_idempotent(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("sqlite")
    upgrade(url)
    upgrade(url)
    assert current_revision(url) == head_revision()


@pytest.mark.parametrize("backend", BACKENDS)
def test_0002_moves_the_mayor_into_the_options(
    backend: str, fresh_database: Callable[[str], str]
) -> None:
    url = fresh_database(backend)
    upgrade(url, "0001")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            for key, mayor in (("with", True), ("without", False)):
                connection.execute(
                    text(
                        "INSERT INTO distributions"
                        " (ruleset, key, players, roles, mayor, created_at)"
                        " VALUES ('wakkerdam', :key, 3, :roles, :mayor, CURRENT_TIMESTAMP)"
                    ),
                    {"key": key, "roles": '["burger", "burger", "weerwolf"]', "mayor": mayor},
                )
        upgrade(url)
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT key, options FROM distributions ORDER BY key"))
            found = {key: json.loads(o) if isinstance(o, str) else o for key, o in rows}
        assert found == {"with": {"mayor": True}, "without": {"mayor": False}}
        downgrade(url, "0001")
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT key, mayor FROM distributions ORDER BY key"))
            assert {key: bool(mayor) for key, mayor in rows} == {"with": True, "without": False}
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_0007_lets_the_inbox_hold_the_web_form_s_votes(
    backend: str, fresh_database: Callable[[str], str]
) -> None:
    """The inbox's source ``web`` is refused before 0007, stored after it, and turned back
    into ``inject`` (what the form's votes were stored as) by the downgrade."""
    url = fresh_database(backend)
    insert = text(
        "INSERT INTO inbox (message_id, source, raw, state, attempts, received_at)"
        " VALUES (:id, :source, :raw, 'done', 0, CURRENT_TIMESTAMP)"
    )
    upgrade(url, "0006")
    engine = make_engine(url)
    try:
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(insert, {"id": "<a@x>", "source": "web", "raw": b"x"})
        upgrade(url)
        with engine.begin() as connection:
            connection.execute(insert, {"id": "<b@x>", "source": "web", "raw": b"x"})
            with pytest.raises(IntegrityError), connection.begin_nested():
                connection.execute(insert, {"id": "<c@x>", "source": "post", "raw": b"x"})
        downgrade(url, "0006")
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT message_id, source FROM inbox"))
            assert dict(rows.all()) == {"<b@x>": "inject"}
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrading_a_database_with_a_game_in_progress_keeps_the_game(
    backend: str, fresh_database: Callable[[str], str]
) -> None:
    """SQLite alters a table by copying it: the games table altered (0008, 0009) must not take
    the games' players with it (ON DELETE CASCADE while the old table is dropped)."""
    url = fresh_database(backend)
    upgrade(url, "0007")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO games (name, name_key, ruleset, language, theme, timezone,"
                    " speed, strictness, close_early, reveal_roles, options, status,"
                    " step_number, night, day, version, created_at, updated_at) VALUES"
                    " ('WW', 'ww', 'wakkerdam', 'nl', 'wakkerdam', 'UTC', 60, 9, false, true,"
                    " '{}', 'running', 1, 1, 0, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO players (game_id, seat, name, name_key, email, gender,"
                    " unsubscribed, page_generation, created_at, updated_at)"
                    " SELECT id, 1, 'Anna', 'anna', 'anna@example.org', 'vrouw', false, 0,"
                    " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM games"
                )
            )
        upgrade(url)
        with engine.connect() as connection:
            assert connection.execute(text("SELECT name FROM players")).scalars().all() == ["Anna"]
            flags = text("SELECT chapters_stored, news_stored FROM games")
            assert [tuple(map(bool, row)) for row in connection.execute(flags)] == [(False, False)]
        downgrade(url, "0007")
        with engine.connect() as connection:
            assert connection.execute(text("SELECT name FROM players")).scalars().all() == ["Anna"]
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_0009_stores_private_stories_and_the_epilogue_and_gives_them_back(
    backend: str, fresh_database: Callable[[str], str]
) -> None:
    """A game of before 0009 has ``news_stored`` false (the daemon builds its stories once);
    the downgrade keeps the village's stories and deletes those 0008 has no place for."""
    url = fresh_database(backend)
    upgrade(url)
    engine = make_engine(url)
    try:
        with Session(engine) as session, session.begin():
            game = Game(name="WW", name_key="ww", ruleset="wakkerdam", language="nl")
            game.theme, game.speed, game.strictness, game.status = "wakkerdam", 60, 9, "running"
            game.chapters_stored = game.news_stored = True
            session.add(game)
            session.flush()
            anna = Player(game_id=game.id, seat=1, name="Anna", name_key="anna", gender="vrouw")
            anna.email = "anna@example.org"
            session.add(anna)
            session.flush()
            told = {"moment": "Nacht 1", "tallies": [], "told_at": datetime.now(UTC)}
            session.add_all(
                [
                    PageChapter(game_id=game.id, story="village", **told),
                    PageChapter(game_id=game.id, player_id=anna.id, story="private", **told),
                    PageChapter(game_id=game.id, kind="epilogue", story="the end", **told),
                ]
            )
        downgrade(url, "0008")
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT story FROM page_chapters"))
            assert [story for (story,) in rows] == ["village"]
        upgrade(url)
        with engine.connect() as connection:
            query = text("SELECT player_id, kind, story FROM page_chapters")
            assert [tuple(row) for row in connection.execute(query)] == [(None, "story", "village")]
            flags = text("SELECT chapters_stored, news_stored FROM games")
            assert [tuple(map(bool, row)) for row in connection.execute(flags)] == [(True, False)]
    finally:
        engine.dispose()


@pytest.mark.postgres  # its database is PostgreSQL's (fresh_database("postgresql"))
def test_two_daemons_migrating_an_empty_postgresql_database_at_once_both_start(
    fresh_database: Callable[[str], str], tmp_path: Path
) -> None:
    """Issue 24: the second of two `narrator` processes started at once died in the migration
    race; migrations are serialised by an advisory lock, so both finish."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for attempt in range(3):
        url = fresh_database("postgresql")
        config = tmp_path / f"narrator-{attempt}.toml"
        config.write_text(f'[narrator]\ndatabase = "{url}"\n', encoding="utf-8")
        command = [sys.executable, "-m", "narrator", "db", "upgrade", "--config", str(config)]
        processes = [
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(3)
        ]
        outputs = [p.communicate(timeout=120) for p in processes]
        results = [(p.returncode, err) for p, (_, err) in zip(processes, outputs, strict=True)]
        assert [code for code, _ in results] == [0, 0, 0], results
        assert current_revision(url) == head_revision()
