"""The example ruleset played by mail in Italian, signup to the end, through the narrator service.

It is the proof that a ruleset is a folder of its own: nothing outside `rules/example/`,
`stories/example/` (and its registry line) knows it, yet signups (`uomo`/`donna`), votes, the
blank word `nessuno`, the wolves' keyword-only `risparmia`, errors and the end all work.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.work import unit_of_work
from tests.support.bymail import Table, stories_by_reader

SIGNUPS = {"Lea": "donna", "Vera": "donna", "Carlo": "uomo", "Dina": "donna", "Ezio": "uomo"}


def test_an_example_game_by_mail_in_italian(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    table.open_game(
        name="Borgo", ruleset="example", language="it", theme="example", speed=86400, strictness=3
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, forse").startswith("error: bad-gender")

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=4)
    roles = table.roles()
    wolf = next(n for n, r in roles.items() if r == "lupo")
    seer = next(n for n, r in roles.items() if r == "veggente")
    villagers = [n for n, r in roles.items() if r == "contadino"]
    assert sorted(kind for _, kind, _ in table.mails() if kind == "role") == ["role"] * 5

    # Day 1: a blank vote in Italian, a clear vote, and a word that is nobody.
    assert table.write(villagers[0], "nessuno") == "vote accepted"
    assert table.write(seer, f"Voto per {villagers[1]}") == "vote accepted"
    assert table.write(wolf, "Gandalf").startswith("error: no-name")
    for name in (wolf, villagers[1], villagers[2]):
        assert table.write(name, villagers[1] if name != villagers[1] else seer) == (
            "vote accepted"
        )
    table.deadline()
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        view = service.ruleset_of(game).view(work.state(game))
        assert (view.step, view.night, view.day) == ("notte", 1, 1)
        burnt = [seat.name for seat in view.players if not seat.alive]
    assert burnt == [villagers[1]]

    # Night 1: the wolf spares everybody with the keyword alone; the seer looks at the wolf.
    assert table.write(wolf, "risparmia") == "vote accepted"
    assert table.write(seer, wolf) == "vote accepted"
    assert table.write(villagers[0], wolf) == "vote rejected: not-asked"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    seer_story = stories[f"{seer.lower()}@example.org"]
    other_story = stories[f"{villagers[0].lower()}@example.org"]
    assert wolf in seer_story and seer_story != other_story  # the vision is the seer's alone

    # Day 2: the village burns the wolf and wins.
    for name in (seer, villagers[0], villagers[2]):
        assert table.write(name, wolf) == "vote accepted"
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = [to for to, kind, _ in table.mails() if kind == "game_over"]
    assert sorted(over) == sorted(f"{n.lower()}@example.org" for n in SIGNUPS)
    # Every mail is Italian and signed; none names a role in its subject.
    for _to, _kind, message in table.mails():
        subject = str(message["Subject"])
        assert "lupo" not in subject.lower() and "veggente" not in subject.lower()
