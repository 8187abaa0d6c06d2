"""Several moves in one mail, by mail (real database): one per line, or mixed on one line.

A player with more than one move in a step writes them in one mail, as a forum player writes
his host: each move is checked on its own, stored as a mail of it alone would be, and one
receipt lists them all, with what was recorded or why it was refused.  Per ruleset: Mafia (a
Mafioso who is also the Doctor), Wakkerdam (the White Werewolf's pack vote and solo kill), Lupus
(the Sindaco's ballot and his successor).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import transaction
from narrator.models import Game, GameLogEntry, InboxMessage, Player, RoleDistribution, Vote
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.work import unit_of_work
from rules import get_ruleset
from tests.support.bymail import NARRATOR, Table, address_of, compose, game_view, text_of

# --- helpers --------------------------------------------------------------------------------


def _receipt(table: Table, name: str) -> str:
    """The text of the last mail to `name`, which must be a receipt."""
    to, kind, message = table.mails()[-1]
    assert (to, kind) == (address_of(name), "receipt"), (to, kind, text_of(message))
    return text_of(message)


def _votes(factory: sessionmaker[Session], name: str) -> list[tuple[list[str], list[str]]]:
    """The vote rows of `name` in the current step: (targets, keywords), in order."""
    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        rows = session.scalars(
            select(Vote).where(Vote.game_id == game.id, Vote.step_number == game.step_number)
        ).all()
        players = {p.id: p.name for p in session.scalars(select(Player))}
        return [(list(v.targets), list(v.keywords)) for v in rows if players[v.player_id] == name]


def _in_force(factory: sessionmaker[Session]) -> dict[str, tuple[str, ...]]:
    """The votes in force in the current step, from the rules' state: ``Name`` or
    ``Name:keyword`` (Wakkerdam, Lupus), ``Name:action`` (Mafia)."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        votes = work.state(game).votes
    if isinstance(votes, tuple) and votes and hasattr(votes[0], "group"):
        return {f"{v.player}:{v.action}": tuple(v.targets) for v in votes}
    return {key: tuple(names) for key, names in dict(votes).items()}


def _start(table: Table, factory: sessionmaker[Session], seed: int, distribution: str) -> None:
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=seed, distribution_id=distribution
        )


def _until(table: Table, factory: sessionmaker[Session], done: Callable[[], bool]) -> None:
    for _ in range(12):
        if done():
            return
        table.deadline()
    raise AssertionError(f"never reached: {game_view(factory).step}")


# --- Mafia ----------------------------------------------------------------------------------

MAFIA_SIGNUPS = {
    "Vito": "man",
    "Rosa": "woman",
    "Sal": "man",
    "Gina": "woman",
    "Tony": "man",
    "Lena": "woman",
    "Marco": "man",
}


def _mafia_night(factory: sessionmaker[Session], language: str) -> Table:
    """A seven-player Mafia game (seed 1: Vito is the Doctor and a Mafioso) at its first
    night, Marco the Secretary (untouchable)."""
    table = Table(factory, language=language)
    table.settings = InboxSettings(address=NARRATOR, language=language)
    table.open_game(
        name="Carrow", ruleset="mafia", language=language, theme="mafia", speed=86400,
        strictness=3,
    )  # fmt: skip
    for name, gender in MAFIA_SIGNUPS.items():
        if language == "ru":
            gender = {"man": "мужчина", "woman": "женщина"}[gender]
        assert table.write(name, f"{name}, {gender}", "Carrow") == f"signup: {name}"
    builtin = next(d for d in get_ruleset("mafia").distributions if d.players == 7)
    options = {k: v for k, v in builtin.options.items() if k not in ("faceless", "elite")}
    with transaction(factory) as session:
        session.add(
            RoleDistribution(
                ruleset="mafia", key="carrow-7", players=7, roles=list(builtin.roles),
                options=options,
            )
        )  # fmt: skip
    _start(table, factory, 1, "carrow-7")
    assert table.roles()["Vito"] == "doctor+mafia"
    for name in MAFIA_SIGNUPS:
        assert table.write(name, "Tony" if name == "Gina" else "Gina", "Carrow") == "vote accepted"
    table.deadline()
    assert table.write("Gina", "Marco", "Carrow") == "vote accepted"
    table.deadline()
    assert (game_view(factory).step, game_view(factory).night) == ("night", 1)
    return table


def test_a_mafia_doctor_heals_and_kills_in_one_mail(factory: sessionmaker[Session]) -> None:
    table = _mafia_night(factory, "en")
    before = len(table.mails())
    assert table.write("Vito", "Hello,\n\nheal Lena\nkill Sal\n\nVito", "Carrow") == (
        "moves: accepted, accepted"
    )
    assert len(table.mails()) == before + 1  # one receipt
    text = _receipt(table, "Vito")
    assert "Your mail held two moves" in text
    assert "“heal Lena”: noted: Lena." in text
    assert "“kill Sal”: noted: Sal." in text
    assert _votes(factory, "Vito") == [(["Lena"], ["heal"]), (["Sal"], ["kill"])]
    assert _in_force(factory)["Vito:heal"] == ("Lena",)
    assert _in_force(factory)["Vito:kill"] == ("Sal",)


def test_a_refused_move_costs_the_others_nothing(factory: sessionmaker[Session]) -> None:
    table = _mafia_night(factory, "en")
    # The Secretary is untouchable: the kill is refused, the heal recorded.
    assert table.write("Vito", "heal Lena, kill Marco", "Carrow") == (
        "moves: accepted, rejected: untouchable"
    )
    text = _receipt(table, "Vito")
    assert "“heal Lena”: noted: Lena." in text
    assert "“kill Marco”: not used." in text
    assert _votes(factory, "Vito") == [(["Lena"], ["heal"])]
    # A name nobody has: the parser refuses that line, the other is kept.
    assert table.write("Vito", "kill Zorro\nheal Rosa", "Carrow") == (
        "moves: rejected: no-name, accepted"
    )
    text = _receipt(table, "Vito")
    assert "“kill Zorro”: not used." in text and "“heal Rosa”: noted: Rosa." in text
    assert table.write("Vito", "kill Sal", "Carrow") == "vote accepted"
    assert _in_force(factory)["Vito:kill"] == ("Sal",)
    assert _in_force(factory)["Vito:heal"] == ("Rosa",)


def test_a_quoted_step_mail_below_the_moves_is_no_move(factory: sessionmaker[Session]) -> None:
    table = _mafia_night(factory, "en")
    body = (
        "heal Lena\nkill Sal\n\nOn Wed, 18 Nov 2026 at 09:00, The Narrator <verteller@example.org>"
        " wrote:\n> Vito,\n> You have things to decide.\n> heal Rosa\n> kill Tony\n> check Gina\n"
    )
    assert table.write("Vito", body, "Re: Carrow") == "moves: accepted, accepted"
    assert _votes(factory, "Vito") == [(["Lena"], ["heal"]), (["Sal"], ["kill"])]


def test_one_move_mails_read_as_before(factory: sessionmaker[Session]) -> None:
    table = _mafia_night(factory, "en")
    # One move over two lines: its keyword, then the name.
    assert table.write("Vito", "heal\nLena", "Carrow") == "vote accepted"
    assert _in_force(factory)["Vito:heal"] == ("Lena",)
    assert table.write("Vito", "kill\nSal", "Carrow") == "vote accepted"
    assert _in_force(factory)["Vito:kill"] == ("Sal",)
    # Two votes of one move (the Family's kill and its insurance) are read as one, as before.
    assert table.write("Vito", "kill Sal\ninsure Tony", "Carrow").startswith(
        "error: too-many-names"
    )
    # A greeting is no move; a line naming nobody is no move either.
    assert table.write("Vito", "Hi there,\nkill Tony\nThanks!", "Carrow") == "vote accepted"
    assert _in_force(factory)["Vito:kill"] == ("Tony",)


def test_a_mafia_mail_of_several_moves_in_russian(factory: sessionmaker[Session]) -> None:
    table = _mafia_night(factory, "ru")
    assert table.write("Vito", "лечить Lena\nубить Sal", "Carrow") == "moves: accepted, accepted"
    text = _receipt(table, "Vito")
    assert "В вашем письме ходов: 2" in text
    assert "«лечить Lena»: принят: Lena." in text and "«убить Sal»: принят: Sal." in text
    assert _in_force(factory)["Vito:kill"] == ("Sal",)


def test_the_moves_of_a_mail_are_stored_once_with_it(factory: sessionmaker[Session]) -> None:
    """A redelivered mail (the same Message-ID) is not applied again: nothing doubled."""
    table = _mafia_night(factory, "en")
    logged_before = _logged(factory, "Vito")
    raw = compose(
        f"Vito <{address_of('Vito')}>", "Carrow", "heal Lena\nkill Sal", "twice@example.org"
    )
    table.sink.store_sync(raw, source="inject")
    outcomes = process_pending(table.factory, table.mailer, table.settings, table.clock)
    assert [o.what for o in outcomes] == ["moves: accepted, accepted"]
    table.sink.store_sync(raw, source="inject")
    assert process_pending(table.factory, table.mailer, table.settings, table.clock) == []
    assert len(_votes(factory, "Vito")) == 2
    assert _logged(factory, "Vito") == logged_before + 2
    with transaction(factory) as session:
        inbox = session.scalars(select(InboxMessage).where(InboxMessage.state == "done")).all()
        assert len([r for r in inbox if "twice@example.org" in (r.message_id or "")]) == 1


def _logged(factory: sessionmaker[Session], name: str) -> int:
    """How many votes of `name` the game log holds."""
    with transaction(factory) as session:
        logged = session.scalars(select(GameLogEntry).where(GameLogEntry.kind == "vote")).all()
        return sum(1 for entry in logged if entry.payload["player"] == name)
