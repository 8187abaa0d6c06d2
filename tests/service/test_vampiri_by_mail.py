"""La Notte dei Vampiri played by mail in Italian, signup to the winners' mail, through the
narrator service: signups `Nome, uomo|donna`, approval votes with several names and `nessuno`,
the tie procedure (spareggio, decisione with `risparmia`), the day with the Lamia's `visita` and
the hunter's vote, and the end.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.work import unit_of_work
from stories import load_words
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
    "Bruno": "uomo",
}


def test_a_vampiri_game_by_mail_in_italian(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    table.open_game(
        name="Notte", ruleset="vampiri", language="it", theme="vampiri", speed=86400, strictness=2
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}", "Notte") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, forse", "Notte").startswith("error: bad-gender")

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=7)
    roles = table.roles()
    lamia = next(n for n, r in roles.items() if r == "lamia")
    hunter = next(n for n, r in roles.items() if r == "cacciatore")
    vampires = [n for n, r in roles.items() if r == "vampiro"]
    assert len(vampires) == 4
    role_mails = {to: text_of(m) for to, kind, m in table.mails() if kind == "role"}
    assert len(role_mails) == 6
    assert (
        "Lamia" in role_mails[address_of(lamia)] and "Cacciatore" in role_mails[address_of(hunter)]
    )
    for text in role_mails.values():  # the public composition, in every role mail
        assert (
            "siete in 6: cinque vampiri e un cacciatore. Le carte speciali in gioco: Lamia." in text
        )
    steps = {to: text_of(m) for to, kind, m in table.mails() if kind == "step"}
    assert len(steps) == 6 and "tutti quelli che sospetti" in steps[address_of(hunter)]

    # A reminder before anybody voted: what to write, and the deadline.
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        reminded = service.send_reminders(work, table.mailer, game, now=table.clock())
    assert sorted(reminded) == sorted(SIGNUPS)
    reminders = [text_of(m) for _to, kind, m in table.mails() if kind == "reminder"]
    assert all("«nessuno»" in text and "(UTC)" in text for text in reminders)

    # Night 1, the vote: two vampires tie at the top; a blank vote; a mail naming several.
    v1, v2, v3, v4 = vampires
    assert table.write(v1, f"{v2}", "Notte") == "vote accepted"
    assert table.write(v2, f"{v1}", "Notte") == "vote accepted"
    assert table.write(v3, f"Sospetto {v1} e {v2}", "Notte") == "vote accepted"
    assert table.write(v4, "nessuno", "Notte") == "vote accepted"
    assert table.write(lamia, f"{lamia}", "Notte").startswith("vote rejected: target-self")
    assert table.write(hunter, "condanna", "Notte") == "error: no-name"  # not a vote now
    assert table.write(lamia, "Nessuno, grazie", "Notte") == "vote accepted"
    assert table.write(hunter, f"{v1}, {v2}", "Notte") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    view = game_view(factory)
    assert view.step == "spareggio"
    stories = list(stories_by_reader(table.mails()[before:]).values())
    assert len(stories) == 6
    for story in stories:  # the open vote: who named whom, and who named nobody
        assert re.search(rf"{v1}: tre voti,? \(?da {v2}, {v3} e {hunter}", story), story
        assert re.search(rf"(ha scritto|hanno scritto|nessuno:) [^\n]*{v4}", story), story

    # The spareggio: a tie again, between the same two.
    for name in (v3, hunter):
        assert table.write(name, f"{v1} {v2}", "Notte") == "vote accepted"
    assert table.write(v1, v2, "Notte") == "vote accepted"
    assert table.write(v2, v1, "Notte") == "vote accepted"
    assert table.write(v4, lamia, "Notte").startswith("vote rejected: not-candidate")
    for name in (lamia, v4):
        assert table.write(name, "nessuno", "Notte") == "vote accepted"
    table.deadline()
    view = game_view(factory)
    assert view.step == "decisione"
    decision = {to: text_of(m) for to, kind, m in table.mails() if kind == "step"}
    assert (
        "«condanna»" in decision[address_of(hunter)]
        and "«risparmia»" in decision[address_of(hunter)]
    )

    # The decisione: more risparmia than condanna spares them both.
    assert table.write(v1, "risparmia", "Notte") == "vote accepted"
    assert table.write(v2, "risparmia", "Notte") == "vote accepted"
    assert table.write(hunter, "condanna", "Notte") == "vote accepted"
    assert table.write(v3, "astengo", "Notte") == "vote accepted"
    assert table.write(lamia, "nessuno", "Notte") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    view = game_view(factory)
    assert view.step == "giorno" and all(seat.alive for seat in view.players)
    stories = stories_by_reader(table.mails()[before:])
    assert len(stories) == 6
    for story in stories.values():  # the verdict, told to everybody, with every ballot
        assert v1 in story and v2 in story and "«risparmia»" in story
        assert f"- «condanna»: {hunter}\r\n" in story
        assert re.search(rf"- «risparmia»: ({v1} e {v2}|{v2} e {v1})\r\n", story), story
        assert re.search(rf"- astenuti: [^\r]*{v3}", story), story

    # Day 1: the Lamia visits the hunter; the hunter hunts a vampire.
    asked = {to for to, kind, _ in table.mails()[before:] if kind == "step"}
    assert asked == {address_of(lamia), address_of(hunter)}
    assert table.write(lamia, f"{hunter}", "Notte").startswith("vote rejected: keyword-required")
    assert table.write(lamia, f"visita {hunter}", "Notte") == "vote accepted"
    assert table.write(hunter, f"caccia {v1}", "Notte") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    mails = table.mails()[before:]
    over = {to: text_of(m) for to, kind, m in mails if kind == "game_over"}
    assert set(over) == {address_of(n) for n in SIGNUPS}
    assert "Vincono i Vampiri" in over[address_of(v4)]
    nightfall = stories_by_reader(mails)
    assert hunter in nightfall[address_of(v4)] and "Cacciatore" in nightfall[address_of(v4)]

    # The epilogue: one text for everybody, the whole game with every role and every vote.
    epilogues = [(to, text_of(m)) for to, kind, m in mails if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(address_of(n) for n in SIGNUPS)
    told = {text for _, text in epilogues}
    assert len(told) == 1, told
    epilogue = told.pop().replace("\r\n", "\n")
    italian = {role: r.name for role, r in load_words("vampiri", "it").roles.items()}
    for name, role in roles.items():  # the roles dealt, each named
        assert f"- {name}: {italian[role]}\n" in epilogue, (name, epilogue)
    assert epilogue.startswith("A tutta Malacorte,")
    assert epilogue.index("Notte 1\nLa votazione:") < epilogue.index("Giorno 1")
    assert re.search(rf"- {v3} \(Vampiro\) ha sospettato di ({v1} e {v2}|{v2} e {v1})\.", epilogue)
    assert f"- {v4} (Vampiro) non ha sospettato di nessuno." in epilogue
    assert "Lo spareggio:" in epilogue and "La decisione:" in epilogue
    assert f"- {hunter} (Cacciatore) ha scritto «condanna»." in epilogue
    assert f"- {v1} (Vampiro) ha scritto «risparmia»." in epilogue
    assert re.search(rf"- {v3} \(Vampiro\) si è astenut[oa]\.", epilogue)
    assert "un voto per «condanna», due voti per «risparmia». Salvi tutti." in epilogue
    assert re.search(rf"- {lamia} \(Lamia\) è andat[oa] a trovare {hunter}", epilogue)
    assert (
        f"- {hunter} (Cacciatore) a mezzogiorno ha indicato ai cacciatori la preda: {v1}."
        in epilogue
    )
    assert re.search(rf"- {hunter} \(Cacciatore\) è mort[oa] per mano ignota", epilogue)

    # Every mail greets, is signed, and names no role in its subject.
    words = load_words("vampiri", "it")
    role_words = {w.casefold() for r in words.roles.values() for w in (r.name, r.plural)}
    for _to, kind, message in table.mails():
        subject = re.sub(r"^re: ", "", subject_of(message).casefold())  # a reply's "Re:"
        assert not {w for w in role_words if re.search(rf"\b{re.escape(w)}\b", subject)}, subject
        story = text_of(message).replace("\r\n", "\n").partition("\n-- \n")[0]
        assert story.rstrip().endswith("Il Narratore"), kind  # (above the roster)


def test_the_night_story_tells_the_ballots_unless_the_vote_is_secret() -> None:
    from narrator.service.story_context import audience_dicts, with_story_facts
    from rules import Seat, Settings, Vote, get_ruleset
    from rules.core.model import Accepted

    rules = get_ruleset("vampiri")
    seats = [
        Seat("Lea", "lamia", "vrouw"),
        Seat("Vera", "vampiro", "vrouw"),
        Seat("Carlo", "vampiro", "man"),
        Seat("Dina", "vampiro", "vrouw"),
        Seat("Ezio", "vampiro", "man"),
        Seat("Bruno", "cacciatore", "man"),
    ]
    for secret in (False, True):
        options = {**rules.options, "secret_vote": secret}
        state = rules.new_game(seats, Settings(seed=1, strictness=9, options=options))
        for voter, names in (("Lea", ("Bruno",)), ("Vera", ("Bruno", "Dina")), ("Carlo", ())):
            result = rules.apply(state, Vote(player=voter, targets=names, blanco=not names))
            assert isinstance(result, Accepted), result
            state = result.state
        resolution = rules.resolve(state)
        events = audience_dicts(resolution.state, resolution.events, rules, told=True)
        told = with_story_facts(events, rules, state, resolution.state, reveal_roles=True)
        execution = next(e for e in told if e["type"] == "execution")
        assert execution["player"] == "Bruno"
        if secret:
            assert "votes" not in execution
        else:
            assert execution["votes"] == {"Lea": ["Bruno"], "Vera": ["Bruno", "Dina"], "Carlo": []}


@pytest.mark.parametrize("lone", [False, True], ids=["group", "lone_hunter"])
def test_a_hunters_vote_is_copied_to_the_other_hunters(
    factory: sessionmaker[Session],
    lone: bool,
) -> None:
    """Ruling 27: the hunters converge by the copies of their votes; not the lone hunters."""
    table = Table(factory)
    table.open_game(
        name="Notte",
        ruleset="vampiri",
        language="it",
        theme="vampiri",
        speed=86400,
        strictness=3,
        options={"lone_hunter": lone},
    )
    genders = {**SIGNUPS, "Gino": "uomo", "Ada": "donna"}
    names = list(genders)
    for name, gender in genders.items():
        assert table.write(name, f"{name}, {gender}", "Notte") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=3, distribution_id="classica-8"
        )
    roles = table.roles()
    hunters = [n for n, r in roles.items() if r == "cacciatore"]
    vampires = [n for n, r in roles.items() if r == "vampiro"]
    assert len(hunters) == 2
    for name in names:  # nobody is named: no execution, the day begins
        assert table.write(name, "nessuno", "Notte") == "vote accepted"
    table.deadline()
    assert game_view(factory).step == "giorno"
    before = len(table.mails())
    assert table.write(hunters[0], f"caccia {vampires[0]}", "Notte") == "vote accepted"
    mails = [(to, kind, text_of(m)) for to, kind, m in table.mails()[before:]]
    if lone:
        assert [(to, kind) for to, kind, _ in mails] == [(address_of(hunters[0]), "receipt")]
        return
    assert [(to, kind) for to, kind, _ in mails] == [
        (address_of(hunters[0]), "receipt"),
        (address_of(hunters[1]), "receipt"),
    ]
    copy = mails[1][2]
    greeting = "Caro" if genders[hunters[1]] == "uomo" else "Cara"
    assert copy.startswith(f"{greeting} {hunters[1]},")
    assert f"{hunters[0]} punta su {vampires[0]}" in copy


def test_a_help_mail_in_an_italian_vampiri_game_is_acknowledged_in_italian(
    factory: sessionmaker[Session],
) -> None:
    """The admins get the question; the player is told, in Italian, that it went on and that
    a Help mail is no vote."""
    table = Table(factory)
    # The admins read the narrator's own language (the default pack: wakkerdam, English).
    table.settings = replace(table.settings, admins=("admin@example.org",), language="en")
    table.open_game(
        name="Notte", ruleset="vampiri", language="it", theme="vampiri", speed=86400, strictness=2
    )
    assert table.write("Vera", "Vera, donna", "Notte") == "signup: Vera"
    asked = "Aiuto Notte: come funziona la caccia?"
    message = table.ask_help("Vera", "Non ho capito chi caccia.", asked)
    text = text_of(message)
    assert subject_of(message) == f"Re: {asked}"
    assert text.startswith("Ciao Vera,") and "Il Narratore" in text
    assert f'("{asked}")' in text and "agli organizzatori di Notte" in text
    assert "non conta mai come voto" in text and "con Notte come oggetto" in text
