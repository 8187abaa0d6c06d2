"""The third pass over the mails of Wakkerdam and Lupus (issue #22), each slip read as the player
reads it: games played by mail on the real database, a fixed set of roles dealt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, RoleDistribution
from narrator.service import games as service
from narrator.service.work import unit_of_work
from tests.support.bymail import Table, address_of, subject_of, text_of

NAMES = ("Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Greta")
WOMEN = frozenset({"Anna", "Carla", "Eva", "Greta"})


def _game(
    factory: sessionmaker[Session],
    ruleset: str,
    language: str,
    roles: Sequence[str],
    *,
    options: dict[str, Any] | None = None,
    theme: str | None = None,
    seed: int = 1,
) -> Table:
    """A game named Borgo of ``len(roles)`` players (Anna, Bram, …) dealt exactly ``roles``."""
    table = Table(factory, language=language)
    table.open_game(
        name="Borgo",
        ruleset=ruleset,
        language=language,
        theme=theme or ruleset,
        speed=86400,
        strictness=3,
    )
    woman, man = ("donna", "uomo") if language == "it" else ("vrouw", "man")
    if ruleset == "lupus" and language == "en":
        woman, man = "woman", "man"
    for name in NAMES[: len(roles)]:
        assert table.write(name, f"{name}, {woman if name in WOMEN else man}") == (
            f"signup: {name}"
        )
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        work.session.add(
            RoleDistribution(
                ruleset=ruleset, key="test", players=len(roles), roles=list(roles), options=options
            )
        )
        work.session.flush()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=seed, distribution_id="test"
        )
    return table


def _who(table: Table) -> dict[str, list[str]]:
    """Role -> its players, in seat order."""
    found: dict[str, list[str]] = {}
    for name, role in table.roles().items():
        found.setdefault(role, []).append(name)
    return found


def _since(table: Table, before: int, kind: str, name: str) -> list[str]:
    """The texts of the mails of ``kind`` to ``name`` queued after the first ``before``."""
    return [
        text_of(m) for to, k, m in table.mails()[before:] if k == kind and to == address_of(name)
    ]


def _subjects(table: Table, before: int, kind: str, name: str) -> list[str]:
    return [
        subject_of(m) for to, k, m in table.mails()[before:] if k == kind and to == address_of(name)
    ]


# --- 2. the White Werewolf's solo kill has words of its own -----------------------------------


def _white_wolf_at_night_two(factory: sessionmaker[Session], language: str) -> Table:
    table = _game(
        factory,
        "wakkerdam",
        language,
        ["witte_weerwolf", "weerwolf", "burger", "burger", "burger", "burger", "burger"],
        options={"mayor": False},
    )
    who = _who(table)
    white, wolf = who["witte_weerwolf"][0], who["weerwolf"][0]
    first, second = who["burger"][:2]
    assert table.write(white, first) == "vote accepted"
    assert table.write(wolf, first) == "vote accepted"
    table.deadline()  # night 1: the pack eats the first villager
    for name in table.roles():
        if name != first:
            table.write(name, second)
    table.deadline()  # day 1: the village burns the second
    return table


def test_the_white_werewolf_is_told_his_own_hunt_in_dutch(
    factory: sessionmaker[Session],
) -> None:
    table = _white_wolf_at_night_two(factory, "nl")
    white = _who(table)["witte_weerwolf"][0]
    [step] = _since(table, 0, "step", white)[-1:]
    assert "Witte Weerwolf, vannacht word je nog een keer wakker" in step, step
    assert "Iets wordt" not in step and "(witte)" not in step, step
    assert "naast je stem met de roedel" in step, step
    prey = _who(table)["burger"][2]
    before = len(table.mails())
    assert table.write(white, f"witte {prey}") == "vote accepted"
    [receipt] = _since(table, before, "receipt", white)
    assert "je eigen jacht als Witte Weerwolf" in receipt, receipt
    before = len(table.mails())
    assert table.write(white, prey) == "vote accepted"
    [receipt] = _since(table, before, "receipt", white)
    assert "je stem met de roedel" in receipt and "eigen jacht" not in receipt, receipt


def test_the_white_werewolf_is_told_his_own_hunt_in_english(
    factory: sessionmaker[Session],
) -> None:
    table = _white_wolf_at_night_two(factory, "en")
    white = _who(table)["witte_weerwolf"][0]
    [step] = _since(table, 0, "step", white)[-1:]
    assert "White Werewolf, tonight you wake once more" in step, step
    assert "Something is asked" not in step, step
    assert 'the word "white"' in step and '"witte"' not in step, step
    before = len(table.mails())
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.send_reminders(work, table.mailer, game, now=table.clock())
    [reminder] = _since(table, before, "reminder", white)
    assert "your own hunt as the White Werewolf" in reminder, reminder
