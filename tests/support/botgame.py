"""Whole games of any ruleset played by bots through the service (a bymail :class:`Table`):
signups in the pack's words, the start, then step by step every asked bot mails his
:func:`~tests.support.bymail.ballot` and the day passes, until the end."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, GameStatus
from narrator.service import games as service
from narrator.service.work import unit_of_work
from rules.core.model import ActionChoice
from stories.words import Words, load_words
from tests.support.bymail import ExtraKeywords, Table, ballot, no_extra


def power_word(action: ActionChoice) -> tuple[str, ...]:
    """Lupus: a Negromante's vote names one of the powers left (docs/rules/lupus.md)."""
    powers = action.extra.get("powers")
    return (str(powers[0]),) if isinstance(powers, list) and powers else ()


@dataclass(frozen=True)
class BotGame:
    """One game for the bots: ruleset, language, name (the subject), players (name, gender
    id), the seed of the deal and of the bots' shared order, the ruleset's extra words, the
    theme (default: the ruleset's own)."""

    ruleset: str
    language: str
    name: str
    players: tuple[tuple[str, str], ...]
    seed: int = 5
    extra: ExtraKeywords = no_extra
    theme: str = ""

    def open(self, table: Table) -> None:
        """Open the game (one step a day, Amsterdam time, lenient) and sign every bot up."""
        words = load_words(self.ruleset, self.language)
        table.open_game(
            name=self.name,
            ruleset=self.ruleset,
            language=self.language,
            theme=self.theme or self.ruleset,
            speed=86400,
            strictness=9,
            timezone="Europe/Amsterdam",
        )
        for player, gender in self.players:
            body = f"{player}, {words.genders[gender][0]}"
            assert table.write(player, body, self.name) == f"signup: {player}"

    def start(self, table: Table) -> None:
        """Deal the roles (seeded) and open the first step."""
        with unit_of_work(table.factory) as work:
            game = work.session.scalars(select(Game).where(Game.name == self.name)).one()
            service.start_game(work, table.mailer, game, now=table.clock(), seed=self.seed)

    def steps(self, table: Table, limit: int = 80) -> Iterator[int]:
        """Play step after step: each asked bot votes, then the deadline passes; yields the
        number of the step just closed, until the game is over."""
        words = load_words(self.ruleset, self.language)
        order = [name for name, _ in self.players]
        random.Random(self.seed).shuffle(order)
        for number in range(1, limit + 1):
            asked = ballots(table.factory, self, order, words)
            if asked is None:
                return
            for player, body in asked:
                table.write(player, body, self.name)
            table.deadline()
            yield number
        raise AssertionError(f"{self.name} did not end in {limit} steps")


def ballots(
    factory: sessionmaker[Session], plan: BotGame, order: list[str], words: Words
) -> list[tuple[str, str]] | None:
    """(player, body) of every asked bot of `plan`; None once the game is over."""
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == plan.name)).one()
        if game.status != GameStatus.RUNNING.value:
            return None
        rs = service.ruleset_of(game)
        state = work.state(game)
        return [
            (name, ballot(rs.choices(state, name), order, words, plan.extra).body)
            for name in rs.asked(state)
        ]
