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


def _step_mail(table: Table, name: str) -> str:
    """The text of the last step mail to `name`."""
    steps = [m for to, kind, m in table.mails() if to == address_of(name) and kind == "step"]
    return text_of(steps[-1]).replace("\r\n", "\n")


def _at(factory: sessionmaker[Session], step: str, night: int) -> Callable[[], bool]:
    return lambda: (game_view(factory).step, game_view(factory).night) == (step, night)


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
    # The step mail teaches it, with one example of his own moves.
    step = _step_mail(table, "Vito")
    assert "You may send them all in one mail, one move a line, for example:" in step
    assert "One mail is one move" not in step
    before = len(table.mails())
    assert table.write("Vito", "Hello,\n\nheal Lena\nkill Sal\n\nVito", "Carrow") == (
        "moves: accepted, accepted"
    )
    assert len(table.mails()) == before + 1  # one receipt
    text = _receipt(table, "Vito")
    assert "Your mail held two moves" in text
    assert '"heal Lena": noted: Lena.' in text
    assert '"kill Sal": noted: Sal.' in text
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
    assert '"heal Lena": noted: Lena.' in text
    assert '"kill Marco": not used.' in text
    assert _votes(factory, "Vito") == [(["Lena"], ["heal"])]
    # A name nobody has: the parser refuses that line, the other is kept.
    assert table.write("Vito", "kill Zorro\nheal Rosa", "Carrow") == (
        "moves: rejected: no-name, accepted"
    )
    text = _receipt(table, "Vito")
    assert '"kill Zorro": not used.' in text and '"heal Rosa": noted: Rosa.' in text
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
    assert "Их можно прислать одним письмом, по ходу на строку" in _step_mail(table, "Vito")
    assert table.write("Vito", "лечить Lena\nубить Sal", "Carrow") == "moves: accepted, accepted"
    text = _receipt(table, "Vito")
    assert "В вашем письме ходов: 2" in text
    assert '"лечить Lena": принят: Lena.' in text and '"убить Sal": принят: Sal.' in text
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


# --- Wakkerdam ------------------------------------------------------------------------------

WAKKERDAM_SIGNUPS = {
    "Anna": "vrouw",
    "Bram": "man",
    "Carla": "vrouw",
    "Dirk": "man",
    "Eva": "vrouw",
    "Frank": "man",
}


def _wakkerdam_second_night(factory: sessionmaker[Session], language: str) -> tuple[Table, str]:
    """A six-player Wakkerdam game without a Mayor (a White Werewolf, a Weerwolf and four
    Burgers) at its second night, when the White Werewolf kills alone; returns him too."""
    table = Table(factory, language=language)
    table.settings = InboxSettings(address=NARRATOR, language=language)
    table.open_game(
        name="WW6", ruleset="wakkerdam", language=language, theme="wakkerdam", speed=86400,
        strictness=9,
    )  # fmt: skip
    for name, gender in WAKKERDAM_SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}", "WW6") == f"signup: {name}"
    roles = ["witte_weerwolf", "weerwolf", "burger", "burger", "burger", "burger"]
    with transaction(factory) as session:
        session.add(
            RoleDistribution(
                ruleset="wakkerdam", key="wit-6", players=6, roles=roles,
                options={"mayor": False},
            )
        )  # fmt: skip
    _start(table, factory, 3, "wit-6")
    white = next(name for name, role in table.roles().items() if role == "witte_weerwolf")
    _until(table, factory, _at(factory, "nacht", 2))
    return table, white


def test_the_white_werewolf_votes_with_the_pack_and_alone_in_one_mail(
    factory: sessionmaker[Session],
) -> None:
    table, white = _wakkerdam_second_night(factory, "nl")
    wolf = next(name for name, role in table.roles().items() if role == "weerwolf")
    step = _step_mail(table, white)
    assert "Je mag al je stemmen in één mail sturen, één per regel, bijvoorbeeld:" in step
    assert "\nwitte " in step
    assert "in één mail" not in _step_mail(table, wolf)  # one move: as before
    prey, other = [n for n in WAKKERDAM_SIGNUPS if n not in (white, wolf)][:2]
    before = len(table.mails())
    assert table.write(white, f"{prey}\nwitte {wolf}", "WW6") == "moves: accepted, accepted"
    assert len(table.mails()) == before + 1
    text = _receipt(table, white)
    assert "Je mail bevatte twee zetten" in text
    assert f'"{prey}": genoteerd: {prey}.' in text
    assert f'"witte {wolf}": genoteerd: {wolf}.' in text
    assert _in_force(factory)[white] == (prey,)
    assert _in_force(factory)[f"{white}:witte"] == (wolf,)
    # Mixed on one line; the White Werewolf may not kill himself: that move alone is refused.
    assert table.write(white, f"{other}, witte {white}", "WW6") == (
        "moves: accepted, rejected: target-self"
    )
    text = _receipt(table, white)
    assert f'"{other}": genoteerd: {other}.' in text and f'"witte {white}": niet gebruikt.' in text
    assert _in_force(factory)[white] == (other,)
    assert _in_force(factory)[f"{white}:witte"] == (wolf,)  # his earlier solo kill stands


def test_the_white_werewolf_in_english_and_a_quoted_reply(factory: sessionmaker[Session]) -> None:
    table, white = _wakkerdam_second_night(factory, "en")
    wolf = next(name for name, role in table.roles().items() if role == "weerwolf")
    assert "\nwhite " in _step_mail(table, white)
    prey = next(n for n in WAKKERDAM_SIGNUPS if n not in (white, wolf))
    body = (
        f"{prey}\nwhite {wolf}\n\n-----Original Message-----\nFrom: The Narrator\n"
        f"Subject: WW6\n\nwitte {prey}\n{wolf}\n"
    )
    assert table.write(white, body, "Re: WW6") == "moves: accepted, accepted"
    text = _receipt(table, white)
    assert "Your mail held two moves" in text and f'"white {wolf}": noted: {wolf}.' in text
    assert _in_force(factory)[white] == (prey,)
    assert _in_force(factory)[f"{white}:witte"] == (wolf,)
    # The pack's other wolf has one move: a mail of two lines is his one vote, as before.
    assert table.write(wolf, f"{prey}\n{white}", "WW6").startswith("error: too-many-names")


# --- Lupus ----------------------------------------------------------------------------------

LUPUS_SIGNUPS = {
    "Lea": "donna",
    "Vera": "donna",
    "Carlo": "uomo",
    "Dina": "donna",
    "Ezio": "uomo",
    "Ugo": "uomo",
}


def _lupus_day(factory: sessionmaker[Session], language: str) -> tuple[Table, str]:
    """The six-player Lupus game of seed 11 (a Sindaco from the start) at its first day; the
    Sindaco's name."""
    table = Table(factory, language=language)
    table.settings = InboxSettings(address=NARRATOR, language=language)
    table.open_game(
        name="Borgo", ruleset="lupus", language=language, theme="lupus", speed=86400,
        strictness=9,
    )  # fmt: skip
    for name, gender in LUPUS_SIGNUPS.items():
        if language == "en":
            gender = {"uomo": "man", "donna": "woman"}[gender]
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=11)
    _until(table, factory, lambda: game_view(factory).step == "giorno")
    return table, str(game_view(factory).facts["mayor"])


def test_the_sindaco_votes_and_names_his_successor_in_one_mail(
    factory: sessionmaker[Session],
) -> None:
    table, mayor = _lupus_day(factory, "it")
    burn, heir = [n for n in LUPUS_SIGNUPS if n != mayor][:2]
    step = _step_mail(table, mayor)
    assert "Puoi mandare tutti i voti in una sola mail, uno per riga, per esempio:" in step
    assert "soltanto nella mail che la riguarda" not in step
    assert table.write(mayor, f"Al rogo {burn}!\nsuccessore {heir}") == "moves: accepted, accepted"
    text = _receipt(table, mayor)
    assert "La tua mail conteneva due mosse" in text
    assert f'"Al rogo {burn}!": annotata: {burn}.' in text
    assert f'"successore {heir}": annotata: {heir}.' in text
    assert _in_force(factory)[mayor] == (burn,)
    assert _in_force(factory)[f"{mayor}:successore"] == (heir,)
    # A successor nobody is called: refused, the vote kept.
    assert table.write(mayor, f"{heir}; successore Gandalf") == (
        "moves: accepted, rejected: no-name"
    )
    text = _receipt(table, mayor)
    assert f'"{heir}": annotata: {heir}.' in text and '"successore Gandalf": non usata.' in text
    assert _in_force(factory)[mayor] == (heir,)
    assert _in_force(factory)[f"{mayor}:successore"] == (heir,)


def test_the_sindaco_in_english(factory: sessionmaker[Session]) -> None:
    table, mayor = _lupus_day(factory, "en")
    burn, heir = [n for n in LUPUS_SIGNUPS if n != mayor][:2]
    step = _step_mail(table, mayor)
    assert "You may send all your votes in one mail, one a line, for example:" in step
    assert "\nmayor " in step  # his first two moves: the stake and the Mayor's ballot
    assert table.write(mayor, f"{burn}, successor {heir}") == "moves: accepted, accepted"
    text = _receipt(table, mayor)
    assert "Your mail held two moves" in text
    assert _in_force(factory)[mayor] == (burn,)
    assert _in_force(factory)[f"{mayor}:successore"] == (heir,)
