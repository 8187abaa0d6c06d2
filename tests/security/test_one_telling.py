"""Everybody reads the same telling of a public event: the variant is drawn per step, not per
reader (a forwarded story matches the recipient's own)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from sqlalchemy import select

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from narrator.storystore import LayeredStore
from stories import FileStore, MemoryStore, StoryKey, StorySource
from tests.security.security_support import NARRATOR, PLAYER_NAMES, Narrator

_STORY = (
    "{% block subject %}{{ game.name }}{% endblock %}{% block body %}"
    "{% for s in stories %}{{ s }}\n{% endfor %}{% endblock %}"
)
_VARIANT = re.compile(r"<<death variant (\d)>> (\w+)")


def store() -> LayeredStore:
    key = StoryKey("wakkerdam", "nl", "wakkerdam", "death")
    sources = [
        StorySource(key, n, f"<<death variant {n}>> {{{{ event.player }}}}") for n in (1, 2, 3)
    ]
    sources += [
        StorySource(key.with_event(mail), 1, _STORY) for mail in ("night_result", "day_result")
    ]
    return LayeredStore(MemoryStore(sources), FileStore())


def test_every_reader_gets_the_same_variant_of_a_public_death(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator(Mailer(store(), NARRATOR))
    narrator.add_game("WW5")
    narrator.sign_up("WW5", [(n, f"{n.lower()}@ww5.example") for n in PLAYER_NAMES[:8]])
    narrator.start("WW5", seed=3)
    told: list[Counter[str]] = []
    for _ in range(40):  # nobody votes: players die of inactivity, publicly
        before = narrator.last_outbox_id()
        with unit_of_work(narrator.factory) as work:
            game = work.session.scalars(select(Game)).one()
            if game.status == GameStatus.ENDED.value:
                break
            service.close_step(work, narrator.mailer, game, now=narrator.clock())
        stories = [m for m in narrator.outbox(after=before) if m.kind == "story"]
        tellings: dict[str, Counter[str]] = {}  # the dead -> the variants his readers got
        for sent in stories:
            for variant, dead in _VARIANT.findall(sent.text):
                tellings.setdefault(dead, Counter())[variant] += 1
        told.extend(tellings.values())
    assert told, "somebody died"
    for variants in told:
        assert len(variants) == 1 and sum(variants.values()) > 1, variants
    with transaction(narrator.factory) as session:
        assert session.scalars(select(Game)).one().status == GameStatus.ENDED.value


def test_every_dawn_and_dusk_is_told_to_the_village_even_a_quiet_one(
    make_narrator: Callable[..., Narrator],
) -> None:
    narrator = make_narrator()
    narrator.add_game("WW6")
    players = [(n, f"{n.lower()}@ww6.example") for n in PLAYER_NAMES[:8]]
    narrator.sign_up("WW6", players)
    narrator.start("WW6", seed=5)
    turns = 0
    for _ in range(12):  # nobody votes: nights kill nobody, days burn nobody
        before = narrator.last_outbox_id()
        with unit_of_work(narrator.factory) as work:
            game = work.session.scalars(select(Game)).one()
            if game.status != GameStatus.RUNNING.value:
                break
            rs = service.ruleset_of(game)
            phase = rs.view(work.state(game)).phase
            service.close_step(work, narrator.mailer, game, now=narrator.clock())
            turned = rs.view(work.state(game)).phase != phase
        told = {m.recipient for m in narrator.outbox(after=before) if m.kind == "story"}
        if turned:
            turns += 1
            assert told == {address for _, address in players}, (phase, sorted(told))
    assert turns >= 2  # a dawn and a dusk at least
