"""La Notte dei Vampiri played by mail in English, signup to the winners' mail, through the
narrator service, in both English themes: signups `Name, man|woman` (the Italian `uomo|donna`
too), approval votes with several names and `nobody`, the tie procedure (run-off, then the
verdict with `spare`/`condemn`, and the Italian `risparmia` still understood), the day with the
Lamia's `visit` and the hunter's `hunt` (`caccia` too), and the end; every mail in English, in
the theme's voice.
"""

from __future__ import annotations

import re

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
    above_roster,
    address_of,
    game_view,
    stories_by_reader,
    subject_of,
    text_of,
)

SIGNUPS = {
    "Lea": "woman",
    "Vera": "woman",
    "Carlo": "man",
    "Dina": "donna",  # the Italian word is understood in an English game
    "Ezio": "man",
    "Bruno": "male",
}
SIGNATURE = {"vampiri": "The Narrator", "teatro": "The Stage Manager"}


@pytest.mark.parametrize("theme", ["vampiri", "teatro"])
def test_a_vampiri_game_by_mail_in_english(
    factory: sessionmaker[Session],
    theme: str,
) -> None:
    table = Table(factory)
    table.open_game(
        name="Night", ruleset="vampiri", language="en", theme=theme, speed=86400, strictness=2
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}", "Night") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, maybe", "Night").startswith("error: bad-gender")
    confirmed = [text_of(m) for to, kind, m in table.mails() if kind == "signup_confirmed"]
    assert len(confirmed) == 6 and "as a woman" in confirmed[0]
    refusal = [text_of(m) for to, kind, m in table.mails() if kind == "error"][-1]
    assert "“man” or “woman”" in refusal or "'man' or 'woman'" in refusal, refusal

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
    assert "you are a Lamia" in role_mails[address_of(lamia)]
    assert "you are a Hunter" in role_mails[address_of(hunter)]
    assert "“hunt”" not in role_mails[address_of(hunter)]  # a plain hunter needs no keyword
    for text in role_mails.values():  # the public composition, in every role mail
        assert "five vampires and one hunter. The special cards in play: Lamia." in text
    steps = {to: text_of(m) for to, kind, m in table.mails() if kind == "step"}
    assert len(steps) == 6 and "everyone you suspect" in steps[address_of(hunter)]

    # A reminder before anybody voted: what to write, and the deadline.
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        reminded = service.send_reminders(work, table.mailer, game, now=table.clock())
    assert sorted(reminded) == sorted(SIGNUPS)
    reminders = [text_of(m) for _to, kind, m in table.mails() if kind == "reminder"]
    assert all("“nobody”" in text and "(UTC)" in text for text in reminders)

    # Night 1, the vote: two vampires tie at the top; a blank vote; a mail naming several.
    v1, v2, v3, v4 = vampires
    assert table.write(v1, f"{v2}", "Night") == "vote accepted"
    assert table.write(v2, f"{v1}", "Night") == "vote accepted"
    assert table.write(v3, f"I suspect {v1} and {v2}", "Night") == "vote accepted"
    assert table.write(v4, "nobody", "Night") == "vote accepted"
    assert table.write(lamia, f"{lamia}", "Night").startswith("vote rejected: target-self")
    assert table.write(hunter, "condemn", "Night") == "error: no-name"  # not a vote now
    no_name = [text_of(m) for to, kind, m in table.mails() if kind == "error"][-1]
    assert "I found no player's name in your mail" in no_name, no_name
    assert table.write(lamia, "Nobody, thanks", "Night") == "vote accepted"
    assert table.write(hunter, f"{v1}, {v2}", "Night") == "vote accepted"
    receipt = [text_of(m) for to, kind, m in table.mails() if kind == "receipt"][-1]
    assert re.search(rf"You suspect: ({v1} and {v2}|{v2} and {v1})\.", receipt), receipt
    before = len(table.mails())
    table.deadline()
    assert game_view(factory).step == "spareggio"
    stories = list(stories_by_reader(table.mails()[before:]).values())
    assert len(stories) == 6
    for story in stories:  # the open vote: who named whom, and who named nobody
        assert re.search(rf"{v1}: three votes,? \(?(from )?{v2}, {v3} and {hunter}", story), story
        assert re.search(rf"(nobody:|“Nobody”, wrote|Not a name from) [^\n]*{v4}", story), story
        assert "run-off" in story or "second ballot" in story

    # The run-off: a tie again, between the same two.
    for name in (v3, hunter):
        assert table.write(name, f"{v1} {v2}", "Night") == "vote accepted"
    assert table.write(v1, v2, "Night") == "vote accepted"
    assert table.write(v2, v1, "Night") == "vote accepted"
    assert table.write(v4, lamia, "Night").startswith("vote rejected: not-candidate")
    for name in (lamia, v4):
        assert table.write(name, "nobody", "Night") == "vote accepted"
    table.deadline()
    assert game_view(factory).step == "decisione"
    decision = {to: text_of(m) for to, kind, m in table.mails() if kind == "step"}
    assert "“condemn”" in decision[address_of(hunter)] and "“spare”" in decision[address_of(hunter)]

    # The verdict: more spare than condemn spares them both (one spares in Italian).
    assert table.write(v1, "spare", "Night") == "vote accepted"
    assert table.write(v2, "risparmia", "Night") == "vote accepted"
    assert table.write(hunter, "Condemn them", "Night") == "vote accepted"
    assert table.write(v3, "I abstain", "Night") == "vote accepted"
    assert table.write(lamia, "nobody", "Night") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    view = game_view(factory)
    assert view.step == "giorno" and all(seat.alive for seat in view.players)
    stories_to = stories_by_reader(table.mails()[before:])
    assert len(stories_to) == 6
    for story in stories_to.values():  # the verdict, told to everybody, with every ballot
        assert v1 in story and v2 in story and "“spare”" in story
        assert f"- “condemn”: {hunter}\r\n" in story
        assert re.search(rf"- “spare”: ({v1} and {v2}|{v2} and {v1})\r\n", story), story
        assert re.search(rf"- abstained: [^\r]*{v3}", story), story
        assert "day begins" in story  # the dawn: the night is over

    # Day 1: the Lamia visits the hunter; the hunter hunts a vampire (in Italian, then English).
    asked = {to for to, kind, _ in table.mails()[before:] if kind == "step"}
    assert asked == {address_of(lamia), address_of(hunter)}
    day_steps = {to: text_of(m) for to, kind, m in table.mails()[before:] if kind == "step"}
    assert "“visit”" in day_steps[address_of(lamia)] and "“host”" in day_steps[address_of(lamia)]
    assert table.write(lamia, f"{hunter}", "Night").startswith("vote rejected: keyword-required")
    assert table.write(lamia, f"visit {hunter}", "Night") == "vote accepted"
    assert table.write(hunter, f"caccia {v2}", "Night") == "vote accepted"
    assert table.write(hunter, f"hunt {v1}", "Night") == "vote accepted"
    receipt = [text_of(m) for to, kind, m in table.mails() if kind == "receipt"][-1]
    assert f"your quarry is {v1}" in receipt
    before = len(table.mails())
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    mails = table.mails()[before:]
    over = {to: text_of(m) for to, kind, m in mails if kind == "game_over"}
    assert set(over) == {address_of(n) for n in SIGNUPS}
    assert "The Vampires win" in over[address_of(v4)]
    assert (
        f"- {lamia}: Lamia" in over[address_of(v4)]
        and f"- {hunter}: Hunter (dead)" in over[address_of(v4)]
    )
    nightfall = stories_by_reader(mails)
    assert hunter in nightfall[address_of(v4)] and "Hunter" in nightfall[address_of(v4)]
    assert "the hunters struck" in nightfall[address_of(v4)]

    # The epilogue: one text for everybody, the whole game with every role and every vote.
    epilogues = [(to, text_of(m)) for to, kind, m in mails if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(address_of(n) for n in SIGNUPS)
    told = {text for _, text in epilogues}
    assert len(told) == 1, told
    epilogue = told.pop()
    english = {role: r.name for role, r in load_words("vampiri", "en").roles.items()}
    for name, role in roles.items():  # the roles dealt, each named
        assert f"- {name}: {english[role]}\r\n" in epilogue, (name, epilogue)
    assert "Night 1" in epilogue and "Day 1" in epilogue
    assert re.search(rf"- {v3} \(Vampire\) suspected ({v1} and {v2}|{v2} and {v1})\.", epilogue)
    assert f"- {v4} (Vampire) suspected nobody." in epilogue
    assert "went to the run-off" in epilogue and "The run-off:" in epilogue
    assert f"- {hunter} (Hunter) wrote “condemn”." in epilogue
    assert f"- {v1} (Vampire) wrote “spare”." in epilogue
    assert f"- {v3} (Vampire) abstained." in epilogue
    assert "one vote to “condemn”, two votes to “spare”. All spared." in epilogue
    assert f"- {lamia} (Lamia) paid {hunter} a visit" in epilogue  # the secrets of the day
    assert f"- {hunter} (Hunter) named {v1} at noon as the hunters' quarry." in epilogue
    assert f"- {hunter} (Hunter) died by an unknown hand, at nightfall." in epilogue
    assert epilogue.index("Night 1") < epilogue.index("Day 1") < epilogue.index("died")

    # Every mail is English, signed by the theme's narrator, and names no role in its subject.
    words = load_words("vampiri", "en")
    role_words = {w.casefold() for r in words.roles.values() for w in (r.name, r.plural)}
    for _to, kind, message in table.mails():
        subject = re.sub(r"^re: ", "", subject_of(message).casefold())  # a reply's "Re:"
        assert not {w for w in role_words if re.search(rf"\b{re.escape(w)}\b", subject)}, subject
        text = text_of(message)
        assert above_roster(text).rstrip().splitlines()[-1].startswith(SIGNATURE[theme]), (
            kind,
            text,
        )
        assert re.match(r"(Dear|Hello|Welcome|To all|To the whole)\b", text), (kind, text)
