"""Mafia's mails read as the players read them (issue 22), in Russian and English: games by mail
whose mails are checked for what a game master would not sign — an insurance confirmed as
cancelled, an election whose tie and runoff go untold, a roster that hides the roles the story
told, advice for the living sent to the dead, slips of agreement.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, RoleDistribution
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.work import unit_of_work
from stories.words import load_words
from tests.support.botgame import BotGame
from tests.support.bymail import NARRATOR, Table, address_of, game_view, text_of
from tests.support.shipped import SHIPPED_RENDERER

pytestmark = pytest.mark.slow  # whole games by mail

NAMES = ("Vito", "Rosa", "Sal", "Gina", "Tony", "Lena", "Marco")
GENDERS = {"Vito": "man", "Rosa": "vrouw", "Sal": "man", "Gina": "vrouw", "Tony": "man",
           "Lena": "vrouw", "Marco": "man"}  # fmt: skip
GENDER_WORDS = {
    "en": {"man": "man", "vrouw": "woman"},
    "ru": {"man": "мужчина", "vrouw": "женщина"},
}
GAME = "Carrow"


def _open(
    factory: sessionmaker[Session],
    language: str,
    *,
    mayor: bool,
    seed: int = 1,
    strictness: int = 9,
    theme: str = "mafia",
) -> Table:
    """A seven-player game (two mafiosi) in `language`, started."""
    table = Table(factory, language=language)
    table.settings = InboxSettings(address=NARRATOR, language=language)
    table.open_game(
        name=GAME,
        ruleset="mafia",
        language=language,
        theme=theme,
        speed=86400,
        strictness=strictness,
    )
    for name in NAMES:
        body = f"{name}, {GENDER_WORDS[language][GENDERS[name]]}"
        assert table.write(name, body, GAME) == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.add(
            RoleDistribution(
                ruleset="mafia",
                key="read-7",
                players=7,
                roles=[
                    "doctor",
                    "commissar",
                    "citizen",
                    "citizen",
                    "citizen",
                    "citizen",
                    "citizen",
                ],
                options={
                    "negative": {"mafia": 2},
                    "faceless": False,
                    "mayor": mayor,
                    "format": "standard",
                },
            )
        )
        work.session.flush()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=seed, distribution_id="read-7"
        )
    return table


def _lynch_the_blacks(
    table: Table, factory: sessionmaker[Session], silent: str | None = None
) -> None:
    """The town lynches the blacks, one a day, the nights pass quietly, until the game is
    over; `silent` never votes."""
    roles = table.roles()
    blacks = [n for n in NAMES if "+" in roles[n]]
    for _ in range(12):
        view = game_view(factory)
        if view.over:
            break
        if view.step in ("lynch", "revote", "extra_vote"):
            living = [seat.name for seat in view.players if seat.alive]
            target = next(n for n in blacks if n in living)
            red = next(n for n in living if n not in blacks and n != silent)
            for name in living:
                if name != silent:
                    table.write(name, red if name == target else target, GAME)
        table.deadline()
    assert game_view(factory).over


def _plan(language: str) -> BotGame:
    return BotGame("mafia", language, GAME, tuple((n, GENDERS[n]) for n in NAMES), seed=2)


def _to(table: Table, name: str, kind: str, since: int = 0) -> list[str]:
    return [
        text_of(m) for to, k, m in table.mails()[since:] if to == address_of(name) and k == kind
    ]


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_plain_insurance_is_confirmed_as_an_insurance(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.4 and 22.10: «страховка» alone insures the shooter's own target (§7.4.4); its
    receipt said «пропуск — ход отменён» and the epilogue «страховка: пропуск»."""
    table = _open(factory, language, mayor=False)
    assert game_view(factory).step == "night"
    roles = table.roles()
    shooter, partner = (n for n in NAMES if roles[n].endswith("+mafia"))
    victim = next(n for n in NAMES if "+" not in roles[n])
    kill, insure = ("убить", "страховка") if language == "ru" else ("kill", "insure")
    assert table.write(shooter, f"{kill} {victim}", GAME) == "vote accepted"
    assert table.write(partner, insure, GAME) == "vote accepted"
    [receipt] = _to(table, partner, "receipt")
    if language == "ru":
        assert "(«страховка»): без имени — страхуете выстрел напарника, по его цели." in receipt
        assert "пропуск" not in receipt and "отменён" not in receipt, receipt
    else:
        assert "«insure» with no name: you insure your partner's shot" in receipt, receipt
        assert "blank" not in receipt, receipt
    table.deadline()
    for _ in _plan(language).steps(table):
        pass
    [epilogue] = _to(table, partner, "epilogue")
    if language == "ru":
        assert "страховка: пропуск" not in epilogue
        assert "страховка выстрела напарника, по его цели" in epilogue, epilogue


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_tied_election_and_its_runoff_are_told_ballot_by_ballot(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.3: the tied first round sent no public mail, the tied candidates (who do not
    vote in the runoff) were told nothing, and the Mayor's mail had no tally (Russian)."""
    table = _open(factory, language, mayor=True)
    assert game_view(factory).step == "election"
    first, second, *others = NAMES
    blank = "пропуск" if language == "ru" else "nobody"
    ballots = {first: second, second: first, others[0]: first, others[1]: second}
    for name in NAMES:
        assert table.write(name, ballots.get(name, blank), GAME) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    assert game_view(factory).step == "runoff"
    told = {to: text_of(m) for to, kind, m in table.mails()[before:] if kind == "story"}
    assert set(told) == {address_of(n) for n in NAMES}  # the candidates too
    arrow = {"ru": "воздержал", "en": "blank"}[language]
    for text in told.values():
        assert f"{first} и {second}" in text or f"{first} and {second}" in text, text
        assert f"- {others[0]} → {first}" in text and f"- {others[1]} → {second}" in text, text
        assert f"- {others[2]} → " in text and arrow in text, text
    runoff = {others[0]: first, others[1]: first, others[2]: second}
    for name, choice in runoff.items():
        assert table.write(name, choice, GAME) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    told = {to: text_of(m) for to, kind, m in table.mails()[before:] if kind == "story"}
    assert told and game_view(factory).facts["mayor"] == first
    for text in told.values():  # the runoff's tally
        assert f"- {others[0]} → {first}" in text and f"- {others[2]} → {second}" in text, text


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_roster_shows_a_black_players_two_roles_once_told(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.8: a lynched black's day death shows both his roles (§8.1), and the story said
    them, but the roster under every mail showed his name alone, to the end of the game."""
    table = _open(factory, language, mayor=False)
    _lynch_the_blacks(table, factory)
    words = load_words("mafia", language)
    joined = {"ru": " и ", "en": " and "}[language]
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        rs, state = service.ruleset_of(game), work.state(game)
        shown = {n: rs.shown_role(state, n) for n in NAMES}
    two = {n: r for n, r in shown.items() if r and "+" in r}
    assert two, shown  # a black was lynched: the village saw both his roles
    stories = [text_of(m) for _to, kind, m in table.mails() if kind == "story"]
    roster = stories[-1].replace("\r\n", "\n").partition("\n-- \n")[2]
    for name, role in two.items():
        told = joined.join(words.roles[part].name for part in role.split("+"))
        assert f"{name} ({told})" in roster, roster


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_player_out_of_the_game_gets_no_advice_for_staying_in(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.7: a player out by inactivity was told the rule for staying in, and his next
    mail "Try again before…"; he is told he is out, and how to stop the game's mails."""
    table = _open(factory, language, mayor=False, strictness=1)
    table.deadline()  # a quiet first night
    assert game_view(factory).step == "lynch"
    roles = table.roles()
    reds = [n for n in NAMES if "+" not in roles[n]]
    silent, lynched = reds[0], reds[1]
    for name in NAMES:
        if name != silent:
            choice = lynched if name != lynched else reds[2]
            assert table.write(name, choice, GAME) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    view = game_view(factory)
    assert not any(s.alive for s in view.players if s.name in (silent, lynched))
    told = [text_of(m) for to, k, m in table.mails()[before:] if to == address_of(silent)]
    help_word = {"ru": "Помощь", "en": "Help"}[language]
    assert any(f"«{help_word} {GAME}»" in t for t in told), told
    for text in told:
        assert "После 1" not in text and "At one you are out" not in text, text
    night = "убить" if language == "ru" else "kill"
    table.write(silent, f"{night} {reds[2]}", GAME)
    kind, error = table.mails()[-1][1], text_of(table.mails()[-1][2])
    assert kind == "error", (kind, error)
    for advice in ("Попробуйте ещё раз", "остаётся в силе", "Try again", "still stands"):
        assert advice not in error, error
    assert f"«{help_word} {GAME}»" in error, error


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_receipt_says_which_move_it_recorded(
    factory: sessionmaker[Session], language: str
) -> None:
    """Issue 22.10: "Ваш ход принят: Борис." / "Noted: Rosa." for an election vote, a heal, a
    check: the receipt names the move it recorded."""
    table = _open(factory, language, mayor=True)
    roles = table.roles()
    doctor = next(n for n in NAMES if roles[n] == "doctor")  # a red doctor: his plain move heals
    voter, chosen = NAMES[:2]
    assert table.write(voter, chosen, GAME) == "vote accepted"
    [receipt] = _to(table, voter, "receipt")
    said = {"ru": f"Ваш ход принят — голос на выборах Мэра: {chosen}.",
            "en": f"Noted: your vote in the Mayor's election: {chosen}."}[language]  # fmt: skip
    assert said in receipt, receipt
    for name in NAMES:
        table.write(name, chosen if name != chosen else voter, GAME)
    table.deadline()
    while game_view(factory).step != "night":
        table.deadline()
    before = len(table.mails())
    patient = next(n for n in NAMES if n not in (doctor, chosen))
    assert table.write(doctor, patient, GAME) == "vote accepted"
    [receipt] = _to(table, doctor, "receipt", before)
    said = {"ru": f"Ваш ход принят («лечить»): {patient}.", "en": f"Noted: heal {patient}."}
    assert said[language] in receipt, receipt


@pytest.mark.parametrize("theme", ["mafia", "express"])
@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_revote_at_dusk_is_not_greeted_as_the_morning(
    factory: sessionmaker[Session], language: str, theme: str
) -> None:
    """Issue 22.9: the step mails of the votes that follow the day's lynch vote (a revote, the
    moves at the vote) greeted the players with "Good morning" / "Утро" at dusk."""
    table = _open(factory, language, mayor=False, theme=theme)
    table.deadline()  # a quiet first night
    roles = table.roles()
    reds = [n for n in NAMES if "+" not in roles[n]]
    blacks = [n for n in NAMES if "+" in roles[n]]
    x, y = reds[0], reds[1]
    ballots = {x: y, y: x, reds[2]: x, reds[3]: y, blacks[0]: x, blacks[1]: y}
    for name, choice in ballots.items():  # the reds split: no grey tie-break settles it
        assert table.write(name, choice, GAME) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    assert game_view(factory).step == "revote"
    steps = [text_of(m) for _to, kind, m in table.mails()[before:] if kind == "step"]
    assert steps
    for text in steps:
        for morning in ("Good morning", "Morning", "Утро", "просыпается"):
            assert morning not in text, text


@pytest.mark.parametrize("language", ["ru", "en"])
def test_numbers_and_partners_agree(factory: sessionmaker[Session], language: str) -> None:
    """Issue 22.9: "Ваши напарники: Кирилл" to a mafioso with one partner; "(2 раз подряд)" in
    the epilogue (Russian plural forms: 2 раза, 5 раз)."""
    table = _open(factory, language, mayor=False)
    roles = table.roles()
    mafioso, partner = (n for n in NAMES if "+" in roles[n])
    [role_mail] = _to(table, mafioso, "role")
    one = {"ru": f"Ваш напарник: {partner}.", "en": f"Your partner: {partner}."}[language]
    assert one in role_mail, role_mail
    silent = next(n for n in NAMES if "+" not in roles[n])
    _lynch_the_blacks(table, factory, silent=silent)
    [epilogue] = _to(table, silent, "epilogue")
    if language == "ru":
        assert "2 раз " not in epilogue, epilogue
        assert "(2 раза подряд)" in epilogue, epilogue


def test_a_mail_naming_no_game_says_each_thing_once(factory: sessionmaker[Session]) -> None:
    """Issue 22.9 (the same line twice): the Russian reply to a mail naming no game told twice
    to write «помощь» in the subject for a question."""
    table = Table(factory, language="ru")
    table.settings = InboxSettings(address=NARRATOR, language="ru", ruleset="mafia")
    table.mailer = replace(
        table.mailer, default_ruleset="mafia", default_language="ru", shared=SHIPPED_RENDERER
    )
    assert table.write("Vito", "Голосую за Розу", "Привет") == "error: no-game"
    to, kind, message = table.mails()[-1]
    text = text_of(message)
    assert (to, kind) == (address_of("Vito"), "error") and message["In-Reply-To"], text
    assert text.count("«помощь»") == 1, text
