"""Mafia played by mail in English, signup to the winners' mail, through the narrator service.

Seven players in Port Carrow (theme `mafia`): signups `Name, man|woman`, a fixed deal, the start's
story (the roles in play), the Mayor's election and his Secretary, every standard role's move sent
by mail with its English keyword (the Family's `kill`, the Doctor's `heal`, the Blocker's
`arrest`/`protect`, the Commissar's `check` and `verify`, the Detective's `track` and `role`, the
Investigator's `verify`), refusals (`no-shot`, `not-now`, too many names), the Mayor's vertical,
two lynchings told voter by voter, and the end: the epilogue (one text for all, every role dealt,
the moves night by night), every mail English, signed by the Narrator, no role in a subject, and a
colour check told to the Commissar and the Investigator alone.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameStatus, RoleDistribution
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.work import unit_of_work
from rules import get_ruleset
from stories.words import load_words
from tests.support.bymail import (
    NARRATOR,
    Table,
    above_roster,
    address_of,
    game_view,
    stories_by_reader,
    subject_of,
    text_of,
)

SIGNUPS = {
    "Vito": "man",
    "Rosa": "woman",
    "Sal": "man",
    "Gina": "woman",
    "Tony": "man",
    "Lena": "woman",
    "Marco": "man",
}
#: The deal of seed 26 for these seven (mafia-7-standard).
DEAL = {
    "Vito": "blocker",
    "Rosa": "active_citizen+mafia",
    "Sal": "detective",
    "Gina": "investigator",
    "Tony": "commissar",
    "Lena": "citizen+maniac",
    "Marco": "doctor",
}
SIGNATURE = "The Narrator\nPort Carrow"


def _carrow_seven() -> RoleDistribution:
    """The built-in seven-player distribution (mafia-7-standard) as an admin would add it.

    Without its `faceless` and `elite` keys, so this game deals exactly the standard roles
    whatever the built-in table's options become; the test below starts one with the built-in.
    """
    builtin = next(d for d in get_ruleset("mafia").distributions if d.players == 7)
    options = {k: v for k, v in builtin.options.items() if k not in ("faceless", "elite")}
    return RoleDistribution(
        ruleset="mafia", key="carrow-7", players=7, roles=list(builtin.roles), options=options
    )


def test_a_mafia_game_starts_with_a_built_in_distribution(
    factory: sessionmaker[Session],
) -> None:
    table = Table(factory)
    table.open_game(
        name="Carrow", ruleset="mafia", language="en", theme="mafia", speed=86400, strictness=3
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}", "Carrow") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=26)
    assert table.roles() == DEAL


def _stories(table: Table, before: int) -> dict[str, str]:
    """The story mails since mail number `before`, by recipient's address."""
    return stories_by_reader(table.mails()[before:])


def test_a_mafia_game_by_mail_in_english(factory: sessionmaker[Session]) -> None:
    table = Table(factory)
    table.settings = InboxSettings(address=NARRATOR, language="en")
    table.open_game(
        name="Carrow", ruleset="mafia", language="en", theme="mafia", speed=86400, strictness=3
    )
    for name, gender in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}", "Carrow") == f"signup: {name}"
    assert table.write("Zeno", "Zeno, maybe", "Carrow").startswith("error: bad-gender")
    signed = [text_of(m) for _, kind, m in table.mails() if kind == "signup_confirmed"]
    assert signed and "Welcome to Port Carrow, Vito." in signed[0]

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.add(_carrow_seven())
        work.session.flush()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=26, distribution_id="carrow-7"
        )
    assert table.roles() == DEAL
    mails = table.mails()
    role_mails = {to: text_of(m) for to, kind, m in mails if kind == "role"}
    assert len(role_mails) == 7
    assert "You are an Active Citizen. And underneath" in role_mails[address_of("Rosa")]
    assert "a Mafioso" in role_mails[address_of("Rosa")]
    assert "You are a Doctor." in role_mails[address_of("Marco")]
    assert "Mafioso" not in role_mails[address_of("Marco")]
    # The start's story: the roles in play, told to everybody.
    start = _stories(table, 0)
    assert len(start) == 7 and all("two Mafiosi" not in t and "Maniac" in t for t in start.values())

    def write(name: str, body: str) -> str:
        return table.write(name, body, "Carrow")

    # Day 1: the election.  Everybody but Gina and Lena votes for Gina; Gina votes for Tony,
    # Lena abstains; a mail with two names is refused.
    assert write("Tony", "Gina Vito").startswith("error: too-many-names")
    for name in ("Vito", "Rosa", "Sal", "Tony", "Marco"):
        assert write(name, "I vote for Gina") == "vote accepted"
    assert write("Gina", "Tony") == "vote accepted"
    assert write("Lena", "blank") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    noon = _stories(table, before)
    assert len(noon) == 7 and all("Mayor" in t and "Gina" in t for t in noon.values())
    for text in noon.values():  # the election, voter by voter
        assert "- Vito → Gina" in text and "- Gina → Tony" in text and "- Lena → blank" in text
    assert game_view(factory).facts["mayor"] == "Gina"
    # The Secretary: the Mayor names one of her voters.
    assert game_view(factory).step == "secretary"
    assert write("Gina", "Marco") == "vote accepted"
    table.deadline()
    view = game_view(factory)
    assert (view.step, view.night) == ("night", 1) and view.facts["secretary"] == "Marco"

    # Night 1 (the Family's): Rosa shoots Vito, the Doctor heals him, the Blocker arrests the
    # Maniac, the Commissar checks Rosa, the Detective tails her.  The Maniac has no shot
    # tonight; nobody may aim at the Secretary.  (The Investigator's `request Doctor`: see
    # test_mafia_choices_by_mail.py.)
    assert write("Lena", "kill Tony") == "vote rejected: no-shot"
    assert write("Rosa", "kill Marco") == "vote rejected: untouchable"
    assert write("Rosa", "kill Vito") == "vote accepted"
    assert write("Marco", "heal Vito") == "vote accepted"
    assert write("Vito", "arrest Lena") == "vote accepted"
    assert write("Tony", "check Rosa") == "vote accepted"
    assert write("Sal", "track Rosa") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    dawn = _stories(table, before)
    assert len(dawn) == 7  # a mail at every dawn, to everybody
    assert all(t.startswith("Good morning") and "Doctor" in t for t in dawn.values())
    assert "Rosa is black" in dawn[address_of("Tony")]
    assert "check on Rosa — black" in dawn[address_of("Gina")]
    for name in ("Vito", "Rosa", "Sal", "Lena", "Marco"):
        assert "black" not in dawn[address_of(name)].replace("blacks", ""), name
    assert "Someone came for you last night" in dawn[address_of("Vito")]
    assert "went to Vito" in dawn[address_of("Sal")]
    assert all(p.alive for p in game_view(factory).players)

    # Day 2: the Mayor's vertical, then the lynching of Rosa, told voter by voter.
    assert game_view(factory).step == "pre_vote"
    assert write("Gina", "Marco") == "vote accepted"
    table.deadline()
    assert game_view(factory).step == "lynch"
    for name in ("Vito", "Sal", "Gina", "Tony", "Lena", "Marco"):
        assert write(name, "Rosa") == "vote accepted"
    assert write("Rosa", "Vito") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    dusk = _stories(table, before)
    assert len(dusk) == 7
    for text in dusk.values():
        assert "- Vito → Rosa" in text and "- Rosa → Vito" in text
        assert "Totals: Rosa 6, Vito 1." in text
        assert "an Active Citizen by day, and by night a Mafioso: one of the blacks" in text
    assert not game_view(factory).find("Rosa").alive  # type: ignore[union-attr]

    # Night 2: the Maniac stabs Sal; the Doctor guards Tony; the Blocker protects Tony; the
    # Commissar verifies Rosa; the Investigator may not shoot while the Commissar lives.
    assert game_view(factory).step == "night"
    assert write("Gina", "kill Lena") == "vote rejected: not-now"
    assert write("Gina", "verify Rosa") == "vote accepted"
    assert write("Lena", "kill Sal") == "vote accepted"
    assert write("Marco", "Tony") == "vote accepted"
    assert write("Vito", "protect Tony") == "vote accepted"
    assert write("Tony", "verify Rosa") == "vote accepted"
    assert write("Sal", "role Lena") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    dawn = _stories(table, before)
    assert len(dawn) == 7  # the dead read the story too
    assert all("Sal" in text and "a Detective" in text for text in dawn.values())
    assert "Rosa is truly black" in dawn[address_of("Tony")]
    assert not game_view(factory).find("Sal").alive  # type: ignore[union-attr]

    # Day 3: no vertical this morning; the town lynches the Maniac and wins.
    table.deadline()
    assert game_view(factory).step == "lynch"
    for name in ("Vito", "Gina", "Tony", "Marco"):
        assert write(name, "lynch Lena") == "vote accepted"
    assert write("Lena", "abstain") == "vote rejected: blank-not-allowed"
    before = len(table.mails())
    table.deadline()
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = {to: text_of(m) for to, kind, m in table.mails()[before:] if kind == "game_over"}
    assert sorted(over) == sorted(address_of(n) for n in SIGNUPS)
    for text in over.values():
        assert "The game goes to the reds: Vito, Sal, Gina, Tony and Marco" in text
        assert "- Lena: a Citizen by day and a Maniac by night (dead)" in text

    # The epilogue: one text for everybody, the whole game night by night, every role told.
    epilogues = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(address_of(n) for n in SIGNUPS)
    texts = {text for _, text in epilogues}
    assert len(texts) == 1
    told = texts.pop().replace("\r\n", "\n")
    for line in (
        "- Vito: a Blocker",
        "- Rosa: an Active Citizen by day and a Mafioso by night",
        "- Sal: a Detective",
        "- Gina: an Investigator",
        "- Tony: a Commissar",
        "- Lena: a Citizen by day and a Maniac by night",
        "- Marco: a Doctor",
    ):
        assert line in told, line
    chapters = ["Day 1", "Night 1", "Day 2", "Night 2", "Day 3"]
    assert [told.index(f"\n{c}\n") for c in chapters] == sorted(
        told.index(f"\n{c}\n") for c in chapters
    )
    night_1 = told.split("\nNight 1\n")[1].split("\n\n")[0]
    for line in (
        "- Rosa (Active Citizen and Mafioso) fired the Family's shot at Vito.",
        "- Marco (Doctor) healed Vito.",
        "- Vito (Blocker) arrested Lena.",
        "- Marco's heal saved Vito.",
        "- Tony's check of Rosa: black.",
        "- Sal tailed Rosa: she went to Vito.",
    ):
        assert line in night_1, (line, night_1)
    assert "Gina was elected Mayor (ballots: Vito → Gina," in told
    assert "- The Mayor named Marco Secretary." in told
    assert "- Gina (Investigator) put Marco under the power vertical." in told
    assert "- Lena (Citizen and Maniac) went for Sal with the knife." in told
    assert "- Sal died by the Maniac's knife: a Detective." in told
    assert "- Rosa died at the lynching: an Active Citizen by day and a Mafioso by night." in told
    assert "Totals: Lena 5." in told and "The game went to the reds" in told

    # Every mail is English, greets and is signed; no subject names a role.
    words = load_words("mafia", "en")
    role_words = {
        w.casefold() for r in words.roles.values() for f in (r.name, r.plural) for w in f.split()
    } - {"of", "the"}
    kinds = set()
    for to, kind, message in table.mails():
        kinds.add(kind)
        text = text_of(message).replace("\r\n", "\n")
        if kind == "help_forward":
            continue
        assert above_roster(text).rstrip().endswith(SIGNATURE), (to, kind, text)
        subject = {w.casefold() for w in re.findall(r"\w+", subject_of(message))}
        assert not subject & role_words, subject_of(message)
    assert {"signup_confirmed", "role", "step", "receipt", "error", "story", "game_over"} <= kinds
