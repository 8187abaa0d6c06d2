"""Mafia moves whose choice is no player's name, sent by mail (issue #15), in English and Russian.

Eight players (seven and an Agent): the Agent chooses his side by the team's name in the
election, the Investigator requests a role by its name on the first night (a mistaken role word
gets the `no-name` error listing the roles he may request, by their names), the Drug dealer
buys votes with a number in the pre-vote.  Each gets his receipt, and the move is in the state.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, RoleDistribution
from narrator.service import games as service
from narrator.service.inbox import InboxSettings
from narrator.service.work import unit_of_work
from tests.support.bymail import NARRATOR, Table, text_of

NAMES = ("Vito", "Rosa", "Sal", "Gina", "Tony", "Lena", "Marco", "Nino")

#: What each language writes: the side by the team's name, a request by the role's name (and a
#: mistaken one), a buy with a number; and what the error and the receipts say.
WRITTEN = {
    "en": {
        "side": "side red",
        "request": "request Doctor",
        "wrong": "request Dentist",
        "buy": "buy one",
        "listed": "Doctor",
        "team": "the reds",
        "shot": "kill ",
        "receipt": "received",
    },
    "ru": {
        "side": "сторона красные",
        "request": "запрос доктор",
        "wrong": "запрос стоматолог",
        "buy": "купить 1",
        "listed": "Доктор",
        "team": "красные",
        "shot": "убить ",
        "receipt": "",
    },
}


def _distribution() -> RoleDistribution:
    return RoleDistribution(
        ruleset="mafia",
        key="choices-7",
        players=7,
        roles=[
            "doctor",
            "blocker",
            "commissar",
            "investigator",
            "drug_dealer",
            "citizen",
            "citizen",
        ],
        options={
            "negative": {"mafia": 1, "maniac": 1},
            "faceless": False,
            "elite": {"agent": 1},
            "mayor": True,
            "format": "standard",
        },
    )


def _state(factory: sessionmaker[Session]) -> object:
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        return work.state(game)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_choices_that_are_no_names_by_mail(factory: sessionmaker[Session], language: str) -> None:
    words = WRITTEN[language]
    drug = "drug" if language == "en" else "накачать"
    table = Table(factory, language=language)
    table.settings = InboxSettings(address=NARRATOR, language=language)
    table.open_game(
        name="Carrow", ruleset="mafia", language=language, theme="mafia", speed=86400, strictness=3
    )
    gender = "man" if language == "en" else "мужчина"
    for name in NAMES:
        assert table.write(name, f"{name}, {gender}", "Carrow") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.add(_distribution())
        work.session.flush()
        # An explicit distribution_id must fit the main players alone (the service counts the
        # Agent too): the seed draws this one among those for eight.
        rs = service.ruleset_of(game)
        extra = service.distributions_for(work.session, game)
        seed = next(s for s in range(100) if rs.pick_distribution(8, s, extra).id == "choices-7")
        service.start_game(work, table.mailer, game, now=table.clock(), seed=seed)
    roles = table.roles()
    holder = {role.split("+")[0]: name for name, role in roles.items()}
    agent, investigator, dealer = holder["agent"], holder["investigator"], holder["drug_dealer"]

    def write(name: str, body: str) -> str:
        return table.write(name, body, "Carrow")

    def last_to(name: str) -> tuple[str, str]:
        to, kind, message = table.mails()[-1]
        assert to == f"{name.lower()}@example.org"
        return kind, text_of(message)

    # The election: the Agent chooses his side by the team's name.
    assert write(agent, words["side"]) == "vote accepted"
    kind, text = last_to(agent)
    assert kind == "receipt" and words["team"] in text and ": red" not in text, text
    votes = _state(factory).votes  # type: ignore[attr-defined]
    assert any(v.player == agent and v.action == "side" and v.targets == ("red",) for v in votes)
    mayor = next(n for n in NAMES if n not in (agent, investigator, dealer))
    voters = [n for n in NAMES if n != agent]
    for name in voters:
        assert write(name, mayor if name != mayor else voters[-1]) == "vote accepted"
    table.deadline()
    assert _state(factory).sides == {agent: "red"}  # type: ignore[attr-defined]
    secretary = next(n for n in voters if n != mayor)
    assert write(mayor, secretary) == "vote accepted"
    table.deadline()
    assert _state(factory).step == "night"  # type: ignore[attr-defined]

    # Night 1: the Investigator requests the Doctor by the role's name; a word that names no
    # role of the game is refused, politely, listing the roles by their names.
    assert write(investigator, words["wrong"]) == "error: no-name"
    kind, text = last_to(investigator)
    assert kind == "error" and words["listed"] in text and "doctor" not in text
    # His step mail lists the roles by their names, and offers no shot while the Commissar
    # lives (one sent now is refused).
    [step] = [
        text_of(message)
        for to, kind, message in table.mails()
        if to == f"{investigator.lower()}@example.org" and kind == "step"
    ][-1:]
    assert words["listed"] in step and "drug_dealer" not in step, step
    assert words["shot"] not in step.split("-- ")[0], step
    assert write(investigator, words["request"]) == "vote accepted"
    kind, text = last_to(investigator)
    assert kind == "receipt" and words["listed"] in text and "doctor" not in text, text
    votes = _state(factory).votes  # type: ignore[attr-defined]
    assert any(v.player == investigator and v.targets == ("doctor",) for v in votes)
    # The Drug dealer drugs a player, which fills his bank with a vote to buy tomorrow.
    drugged = next(n for n in voters if n not in (mayor, secretary, dealer))
    assert write(dealer, f"{drug} {drugged}") == "vote accepted"
    table.deadline()

    # Day 2, the pre-vote: the Drug dealer buys a vote with a number (in words in English).
    assert _state(factory).step == "pre_vote"  # type: ignore[attr-defined]
    assert write(dealer, words["buy"]) == "vote accepted"
    assert last_to(dealer)[0] == "receipt"
    votes = _state(factory).votes  # type: ignore[attr-defined]
    assert any(v.player == dealer and v.targets == ("1",) for v in votes)
