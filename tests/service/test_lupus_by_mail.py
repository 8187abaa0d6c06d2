"""Lupus played by mail in Italian, signup to the winners' mail, through the narrator service.

Signups `Nome, uomo|donna`, a fixed deal, the start's story (the first Sindaco), night powers
by name, `nessuno`, the Sindaco's `successore` keyword and the day's `sindaco` ballot, errors,
deadlines, a defeat and the end: every mail Italian, signed, no role in a subject, and the
Veggente's vision told to the Veggente alone.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.work import unit_of_work
from stories.words import load_words
from tests.support.bymail import (
    Table,
    address_of,
    game_view,
    stories_by_reader,
    subject_of,
    text_of,
)

SIGNUPS = {
    "Lea": "donna",
    "Vera": "donna",
    "Carlo": "uomo",
    "Dina": "donna",
    "Ezio": "uomo",
    "Ugo": "uomo",
}


def test_a_lupus_game_by_mail_in_italian(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    table.open_game(
        name="Borgo", ruleset="lupus", language="it", theme="lupus", speed=86400, strictness=3
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, forse").startswith("error: bad-gender")

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=11)
    roles = table.roles()
    assert sorted(roles.values()) == sorted(
        ["lupo", "negromante", "contadino", "veggente", "guardia", "investigatore"]
    )
    by_role = {role: name for name, role in roles.items()}
    wolf, necro, seer = by_role["lupo"], by_role["negromante"], by_role["veggente"]
    guard, farmer, sleuth = by_role["guardia"], by_role["contadino"], by_role["investigatore"]
    mails = table.mails()
    assert [kind for _, kind, _ in mails].count("role") == 6
    # The start's story: the first Sindaco, told to everybody.
    mayor = str(game_view(factory).facts["mayor"])
    assert mayor in SIGNUPS
    start = list(stories_by_reader(mails).values())
    subjects = {subject_of(m) for _, kind, m in mails if kind == "story"}
    assert subjects == {"Borgo — L'inizio"}, subjects
    assert len(start) == 6 and all(mayor in text for text in start)

    # Night 1: the Veggente looks at the wolf, the Guardia stays home, the Sindaco names
    # a successor; the farmer has nothing to do tonight.
    assert table.write(seer, f"Stanotte guardo {wolf}") == "vote accepted"
    assert table.write(guard, "nessuno") == "vote accepted"
    heir = next(n for n in SIGNUPS if n not in (mayor, wolf, necro))
    assert table.write(mayor, f"successore {heir}") == "vote accepted"
    if farmer != mayor:
        assert table.write(farmer, wolf) == "vote rejected: not-asked"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    assert "nera" in stories[address_of(seer)] and wolf in stories[address_of(seer)]
    for name in SIGNUPS:
        if name != seer:
            assert not re.search(r"\baura\b", stories.get(address_of(name), "")), name
    view = game_view(factory)
    assert (view.step, view.day) == ("giorno", 1)

    # Day 1: the village burns the farmer; one ballot for the Sindaco, one blank, errors.
    voters = [n for n in SIGNUPS if n != farmer]
    for name in voters[:-1]:
        assert table.write(name, f"Al rogo {farmer}!") == "vote accepted"
    assert table.write(voters[-1], "nessuno") == "vote accepted"
    assert table.write(farmer, f"sindaco {farmer}") == "vote accepted"
    assert table.write(farmer, f"{wolf} {seer}").startswith("error: too-many-names")
    assert table.write(farmer, "Gandalf").startswith("error: no-name")
    before = len(table.mails())
    table.deadline()
    day = list(stories_by_reader(table.mails()[before:]).values())
    assert len(day) == 6 and all(farmer in text for text in day)
    assert all("schede" in text for text in day)  # the count of the rogo

    # Night 2: the Negromanti raise the farmer with a power word; the wolf hunts the
    # Investigatore, who looks at the farmer's aura first; the Guardia watches the Veggente.
    assert table.write(necro, f"{farmer} visione") == "vote accepted"
    assert table.write(necro, farmer).startswith("vote rejected: power-missing")
    assert table.write(wolf, sleuth) == "vote accepted"
    assert table.write(sleuth, farmer) == "vote accepted"
    assert table.write(guard, seer) == "vote accepted"
    assert table.write(seer, necro) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    view = game_view(factory)
    dead = view.find(sleuth)
    assert dead is not None and not dead.alive
    assert "Spettro" in stories[address_of(farmer)] and "Visione" in stories[address_of(farmer)]
    assert "bianca" in stories[address_of(sleuth)]  # the dead farmer's aura, told at dawn
    for name in SIGNUPS:
        if name != farmer:
            assert "Spettro" not in stories.get(address_of(name), ""), name
        assert sleuth in stories[address_of(name)]  # the death is public

    # Day 2: the village burns the Negromante: the negromanti, the new Spettro included,
    # are defeated and exiled.
    for seat in view.players:
        if seat.alive and seat.name != necro:
            assert table.write(seat.name, f"Voto {necro}") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    day = list(stories_by_reader(table.mails()[before:]).values())
    assert day and all(necro in text and farmer in text for text in day)

    # Night 3: the wolf spares everybody; day 3: the village burns the wolf and wins.
    assert table.write(wolf, "nessuno") == "vote accepted"
    table.deadline()
    view = game_view(factory)
    for seat in view.players:
        if seat.alive and seat.name != wolf:
            assert table.write(seat.name, wolf) == "vote accepted"
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "game_over"]
    assert sorted(to for to, _ in over) == sorted(address_of(n) for n in SIGNUPS)
    assert all("Popolani" in text for _, text in over)

    # The epilogue: one text for everybody, with the role dealt to each player and what the
    # nights truly were (the vision, the death, the awakening), though no role was ever told.
    epilogues = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(address_of(n) for n in SIGNUPS)
    texts = {text for _, text in epilogues}
    assert len(texts) == 1
    told = " ".join(texts.pop().split())  # a long line may be wrapped
    it = load_words("lupus", "it")
    for name, role in roles.items():
        assert f"- {name}: {it.roles[role].name}" in told, (name, told)
    assert "Notte 1" in told and "Giorno 3" in told
    assert f"{seer} (Veggente) cercò l'aura di {wolf}" in told
    assert f"{seer} (Veggente) vide che l'aura di {wolf} era nera" in told
    assert f"{sleuth} (Investigatore) morì tra le fauci dei Lupi" in told
    assert f"I Negromanti risvegliarono {farmer} (Contadino) come Spettro" in told
    assert f"La piazza mandò al rogo {wolf} (Lupo)" in told
    assert told.count("Il Narratore") == 2  # the introduction and the signature, once

    # Every mail is signed; no subject names a role.
    words = load_words("lupus", "it")
    role_words = {w.casefold() for r in words.roles.values() for w in (r.name, r.plural)}
    for to, kind, message in table.mails():
        text = text_of(message)
        story = text.replace("\r\n", "\n").partition("\n-- \n")[0]  # above the roster
        assert story.rstrip().endswith("Il Narratore"), (to, kind, text)
        subject = {w.casefold() for w in re.findall(r"\w+", subject_of(message))}
        assert not subject & role_words, subject_of(message)


def test_the_start_tells_the_class_mates_to_each_other_only(
    factory: sessionmaker[Session],
) -> None:
    """A 13-player start: two Lupi learn each other's role in the start's story; nobody
    else reads a role there, and everybody reads the first Sindaco."""
    table = Table(factory)
    table.open_game(
        name="Borgo", ruleset="lupus", language="it", theme="lupus", speed=86400, strictness=3
    )
    names = [
        "Lea", "Vera", "Carlo", "Dina", "Ezio", "Ugo", "Rita",
        "Piero", "Gina", "Tullio", "Nella", "Osvaldo", "Bice",
    ]  # fmt: skip
    for number, name in enumerate(names):
        gender = "donna" if number % 2 else "uomo"
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=5)
    roles = table.roles()
    wolves = sorted(n for n, r in roles.items() if r == "lupo")
    assert len(wolves) == 2
    mayor = str(game_view(factory).facts["mayor"])
    start = stories_by_reader(table.mails())
    assert sorted(start) == sorted(address_of(n) for n in names)
    words = load_words("lupus", "it")
    role_names = {r.name for r in words.roles.values()} - {"Sindaco"}
    for name in names:
        text = start[address_of(name)]
        assert mayor in text
        if name in wolves:
            other = next(w for w in wolves if w != name)
            assert f"{other} è un Lupo" in text, text
        else:
            assert not any(f"è un {role}" in text for role in role_names), (name, text)
