"""The removal's story mail read as every player reads it, in every pack and language: an
announcement of the game master in the middle of the step (no dawn, no dusk), naming the step
that goes on and its deadline (issue #23)."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, Player
from narrator.service.removal import remove_player
from narrator.service.table import GameTable, table_of
from narrator.service.work import unit_of_work
from stories.context import Event
from stories.words import load_words
from tests.support.botgame import BotGame, power_word
from tests.support.bymail import Table, above_roster, address_of, subject_of, text_of

PLAYERS = (
    ("Anna", "vrouw"),
    ("Bram", "man"),
    ("Carla", "vrouw"),
    ("Dirk", "man"),
    ("Eva", "vrouw"),
    ("Frank", "man"),
    ("Greet", "vrouw"),
    ("Hans", "man"),
    ("Ilse", "vrouw"),
    ("Joost", "man"),
)

#: Per language: the words of a dawn or a dusk (and of a step's end) that an announcement in
#: the middle of a step never says, lowercased; and the game master's signature.
DAWN_DUSK = {
    "nl": ("ochtend", "haan kraait", "zon komt op", "eerste licht", "het is nacht", "avond"),
    "en": ("dawn", "dusk", "morning", "evening", "sunrise", "sunset", "night is over", "rooster"),
    "it": ("alba", "tramonto", "gallo", "vespro", "buongiorno", "buonasera", "primo sole"),
    "ru": ("утро", "рассвет", "вечер", "сумерк", "просыпается", "доброе"),
}
#: ... and, in a day step, the words of a night.
AT_NIGHT = {
    "nl": ("midden in de nacht", "vannacht"),
    "en": ("middle of the night", "in the night", "tonight"),
    "it": ("nel cuore della notte", "nella notte", "stanotte"),
    "ru": ("посреди ночи", "этой ночью"),
}
#: The game master's notice, as each language words it (the theme's narrator signs it).
SIGNED = {
    ("wakkerdam", "nl"): "mededeling van de spelleiding",
    ("wakkerdam", "en"): "notice from the game's admins",
    ("lupus", "it"): "avviso del game master",
    ("lupus", "en"): "notice from the game master",
    ("vampiri", "it"): "avviso dei giudici di gioco",
    ("vampiri", "en"): "notice from the game's judges",
    ("mafia", "ru"): "объявление ведущего",
    ("mafia", "en"): "notice from the narrator",
}
PACKS = [
    ("wakkerdam", "nl", "wakkerdam"),
    ("wakkerdam", "nl", "haven"),
    ("wakkerdam", "en", "wakkerdam"),
    ("wakkerdam", "en", "haven"),
    ("lupus", "it", "lupus"),
    ("lupus", "it", "laguna"),
    ("lupus", "en", "lupus"),
    ("lupus", "en", "laguna"),
    ("vampiri", "it", "vampiri"),
    ("vampiri", "it", "teatro"),
    ("vampiri", "en", "vampiri"),
    ("vampiri", "en", "teatro"),
    ("mafia", "ru", "mafia"),
    ("mafia", "ru", "express"),
    ("mafia", "en", "mafia"),
    ("mafia", "en", "express"),
]


def _open(table: Table, plan: BotGame, theme: str) -> None:
    """BotGame.open in `theme`."""
    words = load_words(plan.ruleset, plan.language)
    table.open_game(
        name=plan.name,
        ruleset=plan.ruleset,
        language=plan.language,
        theme=theme,
        speed=86400,
        strictness=9,
        timezone="Europe/Amsterdam",
    )
    for player, gender in plan.players:
        body = f"{player}, {words.genders[gender][0]}"
        assert table.write(player, body, plan.name) == f"signup: {player}"


def _remove_one(table: Table, plan: BotGame) -> tuple[str, str, str, list[tuple[str, str]]]:
    """Remove a living player of the largest living team (the game goes on) mid-step; return
    his name, the step's phase, its deadline as the game's clock reads it (HH:MM), and the
    (recipient, subject + text) of every story mail the removal queued.  Every variant of the
    removal's public events is rendered too (the mail drew one): none tells a dawn or a dusk."""
    before = len(table.mails())
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == plan.name)).one()
        view = table_of(work, game).view
        living = [seat for seat in view.players if seat.alive]
        team = Counter(seat.team for seat in living).most_common(1)[0][0]
        name = next(seat.name for seat in living if seat.team == team)
        player = work.session.scalars(
            select(Player).where(Player.game_id == game.id, Player.name == name)
        ).one()
        assert game.deadline is not None
        deadline = game.deadline
        if deadline.tzinfo is None:
            deadline = deadline.replace(tzinfo=UTC)
        hour = deadline.astimezone(ZoneInfo(game.timezone)).strftime("%H:%M")
        phase = str(view.phase)
        events = remove_player(work, table.mailer, game, player, now=table.clock(), by="test")
        _every_variant_reads_right(plan, phase, table, table_of(work, game), events)
    mails = [
        (to, subject_of(message) + "\n" + above_roster(text_of(message)))
        for to, kind, message in table.mails()[before:]
        if kind == "story"
    ]
    return name, phase, hour, mails


def _banned(plan: BotGame, phase: str) -> tuple[str, ...]:
    """The words a removal's announcement in `phase` never says."""
    night = AT_NIGHT[plan.language] if phase == "day" else ()
    return DAWN_DUSK[plan.language] + night


def _every_variant_reads_right(
    plan: BotGame, phase: str, table: Table, game_table: GameTable, events: list[dict[str, Any]]
) -> None:
    """Each variant of each public event of the removal, in the game's pack, read for a dawn
    or a dusk."""
    game = game_table.game
    story = game_table.context(None, game_table.public())
    renderer = table.mailer.renderer
    key = table.mailer.key(game, "removed", game.language)
    for told in events:
        if told.get("audience") != "public":
            continue
        event = Event.from_dict(told, game.ruleset)
        for source in renderer.variants(key.with_event(event.type)):
            text = renderer.render_source_event(source, story, event, random.Random(1)).lower()
            said = [word for word in _banned(plan, phase) if word in text]
            assert not said, (source.key, source.variant, said, text)


def _reads_right(
    plan: BotGame, phase: str, name: str, hour: str, mails: list[tuple[str, str]]
) -> None:
    """Every player got the announcement; none of them reads a dawn or a dusk."""
    everybody = {address_of(player) for player, _ in plan.players}
    public = [(to, text) for to, text in mails if name in text]
    assert {to for to, _ in public} == everybody
    signed = SIGNED[plan.ruleset, plan.language]
    for to, text in mails:
        lowered = text.lower()
        said = [word for word in _banned(plan, phase) if word in lowered]
        assert not said, (
            to,
            said,
            [line for line in text.splitlines() if any(w in line.lower() for w in said)],
        )
        assert signed in lowered, (to, text)
    for to, text in public:
        assert hour in text, (to, hour, text)  # the step goes on until its deadline


@pytest.mark.parametrize(("ruleset", "language", "theme"), PACKS)
def test_a_removal_is_announced_mid_step_to_every_player(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str
) -> None:
    extra = {"extra": power_word} if ruleset == "lupus" else {}
    plan = BotGame(ruleset, language, "Rimosso", PLAYERS, seed=2, **extra)
    table = Table(factory, language=language)
    _open(table, plan, theme)
    plan.start(table)
    name, phase, hour, mails = _remove_one(table, plan)
    _reads_right(plan, phase, name, hour, mails)
    # Once more in the other phase: the day's vote (or the night, had the game begun by day).
    other = "night" if phase == "day" else "day"
    steps = plan.steps(table)
    for _ in range(8):
        next(steps)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            now = str(table_of(work, game).view.phase)
        if now == other:
            break
    else:
        raise AssertionError(f"{plan.ruleset}: no {other} step came after {phase}")
    name, phase, hour, mails = _remove_one(table, plan)
    assert phase == other
    _reads_right(plan, phase, name, hour, mails)
