"""Who may change what a mailer renders: its own renderer follows its reloads; a renderer it was
given (shared by several mailers, as the tests' renderer of the shipped packs) never changes."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game
from narrator.service.mailer import Mailer
from narrator.storystore import DatabaseStore, LayeredStore
from stories import FileStore, MemoryStore, Renderer, StoryKey, StorySource
from tests.support.layouts import count_layout_compiles

NARRATOR = "verteller@example.org"
GAME = Game(name="WW5", ruleset="wakkerdam", language="en", theme="wakkerdam")
KEY = StoryKey("wakkerdam", "en", "wakkerdam", "help_received")
CONTEXT: dict[str, Any] = {"game": None, "players": (), "recipient": None, "player": None}
TABLE_STORY = (
    "{% block subject %}From the table{% endblock %}"
    "{% block body %}Told by the table.{% endblock %}"
)


def _add_to_the_table(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as session:
        DatabaseStore(session).put(StorySource(KEY, 1, TABLE_STORY), replace=True)


def _subject(mailer: Mailer) -> str:
    return mailer.render(mailer.key(GAME, "help_received"), CONTEXT, "s").subject


def test_a_renderers_store_is_fixed() -> None:
    renderer = Renderer(FileStore())
    with pytest.raises(AttributeError):
        renderer.store = MemoryStore()  # type: ignore[misc]


def test_a_reload_leaves_a_shared_renderer_as_it_is(factory: sessionmaker[Session]) -> None:
    shared = Renderer(FileStore())
    store = shared.store
    mailer = Mailer(store, NARRATOR, shared=shared)
    other = Mailer(store, NARRATOR, shared=shared)
    assert mailer.renderer is shared and other.renderer is shared
    shipped = _subject(mailer)
    _add_to_the_table(factory)
    with transaction(factory) as session:
        mailer.reload(session)
    # The reloaded mailer renders the table's story with a renderer of its own...
    assert mailer.renderer is not shared
    assert _subject(mailer) == "From the table"
    # ...and the shared one still renders the shipped pack, for every other mailer.
    assert shared.store is store
    assert _subject(other) == shipped != "From the table"


def test_a_mailers_own_renderer_follows_its_reloads(factory: sessionmaker[Session]) -> None:
    """The daemon's web pages render with its mailer's renderer: a reload changes what that
    same renderer renders, and keeps the templates it compiled."""
    mailer = Mailer(FileStore(), NARRATOR)
    renderer = mailer.renderer
    shipped = _subject(mailer)
    compiled = renderer.compile(renderer.variants(KEY.with_event("death"))[0])
    _add_to_the_table(factory)
    with transaction(factory) as session:
        mailer.reload(session)
    assert mailer.renderer is renderer
    assert _subject(mailer) == "From the table" != shipped
    assert renderer.compile(renderer.variants(KEY.with_event("death"))[0]) is compiled


def test_a_reload_reads_no_shipped_pack_again(factory: sessionmaker[Session]) -> None:
    """The shipped packs are files of the installed package: a reload layers the table over
    the ones the mailer was built on (the daemon's reloads read 1,271 files each, before)."""
    shipped = FileStore()
    mailer = Mailer(shipped, NARRATOR)
    for _ in range(2):
        _add_to_the_table(factory)
        with transaction(factory) as session:
            mailer.reload(session)
        assert isinstance(mailer.store, LayeredStore)
        assert mailer.store.fallback is shipped
        assert _subject(mailer) == "From the table"
    assert mailer.shipped.store is shipped


def test_a_mailer_on_other_stores_reads_the_shipped_packs_once(
    factory: sessionmaker[Session],
) -> None:
    mailer = Mailer(MemoryStore(), NARRATOR)
    shipped = mailer.shipped_packs
    assert shipped.all() == FileStore().all()
    with transaction(factory) as session:
        mailer.reload(session)
    assert isinstance(mailer.store, LayeredStore) and mailer.store.fallback is shipped


def test_a_story_edited_while_the_daemon_runs_leaves_no_old_compilation_behind(
    factory: sessionmaker[Session],
) -> None:
    """The renderer keeps one compilation of each template variant: a writer who edits a story
    a hundred times while the daemon runs does not leave a hundred compiled templates in it (the
    edited text is compiled, the old compilation goes)."""
    mailer = Mailer(FileStore(), NARRATOR)
    renderer = mailer.renderer
    earlier: list[weakref.ref[object]] = []
    for edit in range(5):
        with transaction(factory) as session:
            story = TABLE_STORY.replace("From the table", f"Edit {edit}")
            DatabaseStore(session).put(StorySource(KEY, 1, story), replace=True)
        with transaction(factory) as session:
            mailer.reload(session)
        assert _subject(mailer) == f"Edit {edit}"
        earlier.append(weakref.ref(renderer.compile(renderer.variants(KEY)[0])))
    gc.collect()
    assert [ref() is not None for ref in earlier] == [False] * 4 + [True]


def test_a_shared_renderer_renders_the_mailers_store() -> None:
    with pytest.raises(ValueError, match="shared renderer"):
        Mailer(FileStore(), NARRATOR, shared=Renderer(FileStore()))


def test_a_prepared_mailer_renders_with_the_layout_it_compiled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled = count_layout_compiles(monkeypatch)
    mailer = Mailer(FileStore(), NARRATOR)
    assert compiled == []  # a mailer compiles nothing when it is built
    mailer.prepare()
    mailer.prepare()
    assert len(compiled) == 1 and mailer.renderer.layout is compiled[0]
    assert "<html" in mailer.render(mailer.key(GAME, "help_received"), CONTEXT, "s").html
    assert len(compiled) == 1  # the first HTML mail compiled no layout of its own
