"""Lupus played by mail in English, theme laguna, signup to the winners' mail, through the
narrator service.

Signups `Name, man|woman`, English keywords (`nobody`, `successor`, `mayor`, the power word
`vision`) and, in the same game, the Italian words of the spec (`donna`, `nessuno`, `sindaco`,
`visione`); errors in English; every mail English, signed by the theme's Chronicler, no role in
a subject, and the Seer's vision told to the Seer alone.
"""

from __future__ import annotations

import re
from dataclasses import replace

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.work import unit_of_work
from stories.words import load_words
from tests.support.bymail import (
    Table,
    above_roster,
    address_of,
    game_view,
    stories_by_reader,
    subject_of,
    text_of,
)

SIGNUPS = {
    "Lea": "woman",
    "Vera": "donna",  # the Italian word works in an English game too
    "Carlo": "man",
    "Dina": "woman",
    "Ezio": "uomo",
    "Ugo": "man",
}
SIGNED = "The Chronicler of Malombra"


def test_a_lupus_game_by_mail_in_english(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    table.open_game(
        name="Laguna", ruleset="lupus", language="en", theme="laguna", speed=86400, strictness=3
    )
    write = table.write
    for name, gender in SIGNUPS.items():
        assert write(name, f"{name}, {gender}", "Laguna") == f"signup: {name}"
    assert write("Zeno", "Zeno, perhaps", "Laguna").startswith("error: bad-gender")
    refusal = text_of(table.mails()[-1][2])
    assert "man" in refusal and "woman" in refusal and SIGNED in refusal

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=11)
    roles = table.roles()
    by_role = {role: name for name, role in roles.items()}
    wolf, necro, seer = by_role["lupo"], by_role["negromante"], by_role["veggente"]
    guard, farmer, sleuth = by_role["guardia"], by_role["contadino"], by_role["investigatore"]
    mails = table.mails()
    role_mails = {to: text_of(m) for to, kind, m in mails if kind == "role"}
    assert len(role_mails) == 6
    assert "hides a Seer" in role_mails[address_of(seer)]
    assert "Malombra" in role_mails[address_of(seer)]
    mayor = str(game_view(factory).facts["mayor"])
    start = [text_of(m) for _, kind, m in mails if kind == "story"]
    assert {subject_of(m) for _, kind, m in mails if kind == "story"} == {"Laguna — The beginning"}
    assert len(start) == 6 and all(mayor in text for text in start)
    steps = {to: text_of(m) for to, kind, m in mails if kind == "step"}
    assert "“nobody”" in steps[address_of(seer)]

    # Night 1, in English: the Seer looks at the wolf, the Bodyguard stays home, the Mayor
    # names a successor; the farmer has nothing to do tonight.
    assert write(seer, f"Tonight I look at {wolf}", "Laguna") == "vote accepted"
    assert write(guard, "nobody", "Laguna") == "vote accepted"
    heir = next(n for n in SIGNUPS if n not in (mayor, wolf, necro))
    assert write(mayor, f"successor {heir}", "Laguna") == "vote accepted"
    if farmer != mayor:
        assert write(farmer, wolf, "Laguna") == "vote rejected: not-asked"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    assert "black" in stories[address_of(seer)] and wolf in stories[address_of(seer)]
    assert all(text.startswith("Good morning") for text in stories.values())
    for name in SIGNUPS:
        if name != seer:
            assert not re.search(r"\baura\b", stories.get(address_of(name), "")), name

    # Day 1: the island burns the farmer; a ballot for Mayor in Italian (sindaco), an Italian
    # blank (nessuno), errors in English.
    voters = [n for n in SIGNUPS if n != farmer]
    for name in voters[:-1]:
        assert write(name, f"To the stake with {farmer}!", "Laguna") == "vote accepted"
    assert write(voters[-1], "nessuno", "Laguna") == "vote accepted"
    assert write(farmer, f"sindaco {farmer}", "Laguna") == "vote accepted"
    assert write(farmer, f"mayor {farmer}", "Laguna") == "vote accepted"
    assert write(farmer, f"{wolf} {seer}", "Laguna").startswith("error: too-many-names")
    error = text_of(table.mails()[-1][2])
    assert "too many players" in error and above_roster(error).rstrip().endswith(SIGNED)
    assert write(farmer, "Gandalf", "Laguna").startswith("error: no-name")
    before = len(table.mails())
    table.deadline()
    day = [text_of(m) for _, kind, m in table.mails()[before:] if kind == "story"]
    assert len(day) == 6 and all(farmer in text for text in day)
    assert all("ballot" in text for text in day)  # the count of the stake, voter by voter
    # The Mayor's ballots too, voter by voter: the farmer's own ballot for himself.
    assert all(f"- {farmer}: one ballot ({farmer})" in text for text in day), day[0]
    assert all(text.startswith("Good evening") for text in day)

    # Night 2: the Necromancer raises the farmer with the English power word; the wolf hunts
    # the Investigator, who looks at the farmer's aura first; the Bodyguard watches the Seer.
    assert write(necro, f"{farmer} vision", "Laguna") == "vote accepted"
    assert write(necro, farmer, "Laguna").startswith("vote rejected: power-missing")
    assert write(wolf, sleuth, "Laguna") == "vote accepted"
    assert write(sleuth, farmer, "Laguna") == "vote accepted"
    assert write(guard, seer, "Laguna") == "vote accepted"
    assert write(seer, necro, "Laguna") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    stories = stories_by_reader(table.mails()[before:])
    view = game_view(factory)
    dead = view.find(sleuth)
    assert dead is not None and not dead.alive
    assert "Spectre" in stories[address_of(farmer)] and "Vision" in stories[address_of(farmer)]
    assert "white" in stories[address_of(sleuth)]  # the dead farmer's aura, told at dawn
    for name in SIGNUPS:
        if name != farmer:
            assert "Spectre" not in stories.get(address_of(name), ""), name
        assert sleuth in stories[address_of(name)]  # the death is public

    # Day 2: the island burns the Necromancer: the negromanti, the new Spectre included, are
    # defeated and exiled.
    for seat in view.players:
        if seat.alive and seat.name != necro:
            assert write(seat.name, f"I vote {necro}", "Laguna") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    day = [text_of(m) for _, kind, m in table.mails()[before:] if kind == "story"]
    assert day and all(necro in text and farmer in text for text in day)

    # Night 3: the wolf spares everybody (in Italian); day 3: the island burns the wolf.
    assert write(wolf, "nessuno", "Laguna") == "vote accepted"
    table.deadline()
    view = game_view(factory)
    for seat in view.players:
        if seat.alive and seat.name != wolf:
            assert write(seat.name, wolf, "Laguna") == "vote accepted"
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "game_over"]
    assert sorted(to for to, _ in over) == sorted(address_of(n) for n in SIGNUPS)
    assert all("Commoners" in text and "Wolf" in text for _, text in over)

    # The epilogue, in the Chronicler's English: one text for everybody, every role dealt and
    # what the nights truly were (the vision, the death, the awakening, the votes).
    epilogues = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(address_of(n) for n in SIGNUPS)
    texts = {text for _, text in epilogues}
    assert len(texts) == 1
    told = " ".join(texts.pop().split())  # a long line may be wrapped
    en = load_words("lupus", "en")
    for name, role in roles.items():
        assert f"- {name}: {en.roles[role].name}" in told, (name, told)
    assert "Night 1" in told and "Day 3" in told and "Malombra" in told
    assert f"{seer} (Seer) saw that {wolf}'s aura was black" in told
    assert f"{sleuth} (Investigator) died in the jaws of the Wolves" in told
    assert f"{necro} (Necromancer) called {farmer} out of the grave" in told
    assert f"The Necromancers raised {farmer} (Peasant) as a Spectre" in told
    assert f"{wolf} (Wolf) did not use" in told  # night 3: nessuno
    assert f"The square sent {wolf} (Wolf) to the stake" in told

    # Every mail is English and signed by the theme; no subject names a role.
    words = load_words("lupus", "en")
    role_words = {w.casefold() for r in words.roles.values() for w in (r.name, r.plural)}
    for to, kind, message in table.mails():
        text = text_of(message)
        assert above_roster(text).rstrip().endswith(SIGNED), (to, kind, text)
        assert not re.search(r"\b(il|della|sei|nessuno|Narratore)\b", text), (to, kind, text)
        subject = {w.casefold() for w in re.findall(r"\w+", subject_of(message))}
        assert not subject & role_words, subject_of(message)


def test_a_help_mail_in_an_english_lupus_game_is_acknowledged_in_english(
    factory: sessionmaker[Session],
) -> None:
    """The admins get the question; the player is told, in the game's English and in the
    theme's voice, that it went on and that it was no vote."""
    table = Table(factory)
    # The admins read the narrator's own language (the default pack: wakkerdam, English).
    table.settings = replace(table.settings, admins=("admin@example.org",), language="en")
    table.open_game(
        name="Laguna", ruleset="lupus", language="en", theme="laguna", speed=86400, strictness=3
    )
    assert table.write("Lea", "Lea, woman", "Laguna") == "signup: Lea"
    asked = "Help Laguna: when does Carnival begin?"
    message = table.ask_help("Lea", "Can I still change my name?", asked)
    text = above_roster(text_of(message)).rstrip()
    assert subject_of(message) == f"Re: {asked}"
    assert text.startswith("Dear Lea,") and text.endswith(SIGNED)
    assert f'("{asked}")' in text and "organisers of Laguna" in text
    assert "never counts as a vote" in text and "with Laguna as its subject" in text
