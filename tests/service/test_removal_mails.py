"""The removal's story mail read as every player reads it, in every pack and language: an
announcement of the game master in the middle of the step (no dawn, no dusk), naming the step
that goes on and its deadline (issue #23); the removal told once, by the notice, and the
ruleset's own record after it adding only the role (issue #22)."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
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
from rules.mafia.roles import INHERITED
from rules.mafia.state import GameState as MafiaState
from stories.context import Event
from stories.words import load_words
from tests.support.botgame import BotGame, power_word
from tests.support.bymail import Table, above_roster, address_of, subject_of, text_of

pytestmark = pytest.mark.slow  # whole games in every pack and language

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
#: Per language: the words that tell a player dead, exiled or disqualified (out of the game),
#: lowercased.  The removal says it once: in the notice (the ``removed`` story).
OUT = {
    "nl": ("dood", "doden", "gestorven", "sterft", "overleden", "uit het spel", "niet meer"),
    "en": ("dead", "died", "dies", "death", "disqualified", "exile", "no more", "out of the game"),
    "it": ("mort", "squalific", "esili", "non gioca più", "fuori dal gioco", "dalla partita"),
    "ru": ("смерт", "погиб", "умер", "мёртв", "мертв", "из игры", "выбыл"),
}
#: Per language: the names of the posts a removal may end (Mafia's Mayor and Secretary),
#: lowercased; the ruleset's ``mayor_lost``/``secretary_lost`` (reason ``removed``) tells it.
POSTS = {"en": ("mayor", "secretary"), "ru": ("мэр", "секретар")}
#: Per theme: the main theme's places, which its notice never names (lowercased).
ELSEWHERE = {
    "haven": ("raadhuis", "town hall"),
    "teatro": ("piazza", "square"),
    "express": ("причал", "pier"),
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
#: Per language: the words of a notice that agree with a man only (a removed woman never reads
#: them), lowercased: "chi l'aveva votato", "come un esiliato", "è squalificato", "morto".
MASCULINE = {"it": ("l'aveva votato", "un esiliato", "è squalificato", "fosse morto", " lo conta")}
#: Per language: how a private notice (the heir of a role the removed player frees) opens.
ALONE = {
    "nl": "alleen voor jou",
    "en": "for you alone",
    "it": "solo per te",
    "ru": "только для вас",
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


@dataclass(frozen=True)
class Removal:
    """A removal as the test reads it: the player's `name`, the step's `phase`, its deadline
    as the game's clock reads it (`hour`, HH:MM), the role the ruleset's record reveals
    (`role`, None when it reveals none), the (recipient, subject + text) of every story
    mail it queued (`mails`), and the event telling the end of the post he held (`post`:
    ``mayor_lost`` or ``secretary_lost``; None when he held none)."""

    name: str
    phase: str
    hour: str
    role: str | None
    mails: list[tuple[str, str]]
    post: str | None = None


def _remove_one(table: Table, plan: BotGame, name: str | None = None) -> Removal:
    """Remove `name` (by default a living player of the largest living team: the game goes
    on) mid-step.  Every variant of the removal's public events is rendered too (the mail drew
    one): none tells a dawn or a dusk, and each tells the removal once."""
    before = len(table.mails())
    with unit_of_work(table.factory) as work:
        game = work.session.scalars(select(Game).where(Game.name == plan.name)).one()
        view = table_of(work, game).view
        living = [seat for seat in view.players if seat.alive]
        team = Counter(seat.team for seat in living).most_common(1)[0][0]
        name = name or next(seat.name for seat in living if seat.team == team)
        player = work.session.scalars(
            select(Player).where(Player.game_id == game.id, Player.name == name)
        ).one()
        assert game.deadline is not None
        deadline = game.deadline
        if deadline.tzinfo is None:
            deadline = deadline.replace(tzinfo=UTC)
        hour = deadline.astimezone(ZoneInfo(game.timezone)).strftime("%H:%M")
        phase = str(view.phase)
        before_state = table_of(work, game).state
        events = remove_player(work, table.mailer, game, player, now=table.clock(), by="test")
        after = table_of(work, game)
        # the events as their stories tell them (the role a death shows, where it shows one)
        told = after.rules.tell(before_state, after.state, events, reveal_roles=game.reveal_roles)
        _every_variant_reads_right(plan, phase, table, after, told)
    mails = [
        (to, subject_of(message) + "\n" + above_roster(text_of(message)))
        for to, kind, message in table.mails()[before:]
        if kind == "story"
    ]
    post = next(
        (e["type"] for e in told if e["type"].endswith("_lost") and e["player"] == name), None
    )
    return Removal(name, phase, hour, _revealed(told, name), mails, post)


def _revealed(events: list[dict[str, Any]], name: str) -> str | None:
    """The role the ruleset's record of `name`'s removal (his ``death`` or ``exile``) shows."""
    record = next(e for e in events if e["type"] in ("death", "exile") and e["player"] == name)
    role = record.get("role") or (record.get("revealed") or {}).get("role")
    return str(role) if role else None


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
    told_of = next(e["player"] for e in events if e["type"] == "removed")
    for logged in events:
        if logged.get("audience") != "public":
            continue
        event = Event.from_dict(logged, game.ruleset)
        for source in renderer.variants(key.with_event(event.type)):
            told = renderer.render_source_event(source, story, event, random.Random(1))
            text = told.lower()
            said = [word for word in _banned(plan, phase) if word in text]
            assert not said, (source.key, source.variant, said, text)
            out = [word for word in OUT[plan.language] if word in text]
            if event.type == "removed":  # the notice tells it, in the game's own place
                assert out, (source.key, source.variant, told)
                if dict(plan.players)[told_of] == "vrouw":  # and agrees with a woman
                    his = [w for w in MASCULINE.get(plan.language, ()) if w in text]
                    assert not his, (source.key, source.variant, his, told)
                foreign = [w for w in ELSEWHERE.get(game.theme, ()) if w in text]
                assert not foreign, (source.key, source.variant, foreign)
            elif logged.get("player") == told_of:  # his record adds the role, and only that
                assert not out and told.count(told_of) <= 1, (source.key, source.variant, told)
                if event.type not in ("death", "exile"):  # the end of his post, told once
                    assert logged["reason"] == "removed", logged
                    assert any(word in text for word in POSTS[plan.language]), told
                    continue
                role = _revealed([logged], told_of)
                if role:
                    assert any(f in text for f in _role_forms(plan, role)), (source.key, told)


def _reads_right(plan: BotGame, removal: Removal) -> None:
    """Every player got the announcement; none of them reads a dawn or a dusk; each tells the
    removal once."""
    phase, name, hour, mails = removal.phase, removal.name, removal.hour, removal.mails
    everybody = {address_of(player) for player, _ in plan.players}
    alone = ALONE[plan.language]
    public = [(to, text) for to, text in mails if name in text and alone not in text.lower()]
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
        _told_once(plan, removal, to, text)
    assert address_of(name) in {to for to, _ in public}  # his own mail, read as the others


def _told_once(plan: BotGame, removal: Removal, to: str, text: str) -> None:
    """The removal is told once: one paragraph that names him tells him out of the game (the
    game master's notice); the ruleset's record follows with his role where it reveals it, in
    the next paragraph, telling no death or exile again; a post he held ends in one paragraph
    after them, telling no death either; no other paragraph names him."""
    name = removal.name
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    naming = [i for i, p in enumerate(paragraphs) if re.search(rf"\b{re.escape(name)}\b", p)]
    out = [i for i in naming if _tells_out(plan, paragraphs[i])]
    assert len(out) == 1, (to, "told out more than once", paragraphs)
    notice = out[0]
    if removal.role is None:
        assert naming == [notice], (to, "named outside the notice", paragraphs)
        return
    assert notice + 1 < len(paragraphs), (to, "no role after the notice", paragraphs)
    role_line = paragraphs[notice + 1].lower()
    assert not _tells_out(plan, role_line), (to, "told out again", paragraphs)
    forms = _role_forms(plan, removal.role)
    assert any(form in role_line for form in forms), (to, forms, "not after the notice", text)
    told = {notice, notice + 1}
    if removal.post is not None:
        post = [i for i in naming if i not in told]
        assert len(post) == 1 and post[0] > notice + 1, (to, "the post's end", paragraphs)
        ended = paragraphs[post[0]].lower()
        assert not _tells_out(plan, ended), (to, "told out again", ended)
        assert any(word in ended for word in POSTS[plan.language]), (to, ended)
        told.add(post[0])
    assert set(naming) <= told, (to, "named outside the notice", paragraphs)


def _role_forms(plan: BotGame, role: str) -> tuple[str, ...]:
    """The names of `role` in the game's language, lowercased (a woman's form too)."""
    words = load_words(plan.ruleset, plan.language).roles[role]
    return tuple(form.lower() for form in (words.name, words.feminine) if form)


def _tells_out(plan: BotGame, text: str) -> bool:
    """Whether `text` tells a player dead, exiled or disqualified."""
    return any(word in text.lower() for word in OUT[plan.language])


@pytest.mark.parametrize(("ruleset", "language", "theme"), PACKS)
def test_a_removal_is_announced_mid_step_to_every_player(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str
) -> None:
    extra = {"extra": power_word} if ruleset == "lupus" else {}
    plan = BotGame(ruleset, language, "Rimosso", PLAYERS, seed=2, **extra)
    table = Table(factory, language=language)
    _open(table, plan, theme)
    plan.start(table)
    removal = _remove_one(table, plan)
    _reads_right(plan, removal)
    # Once more in the other phase: the day's vote (or the night, had the game begun by day).
    other = "night" if removal.phase == "day" else "day"
    steps = plan.steps(table)
    for _ in range(8):
        next(steps)
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            now = str(table_of(work, game).view.phase)
        if now == other:
            break
    else:
        raise AssertionError(f"{plan.ruleset}: no {other} step came after {removal.phase}")
    removal = _remove_one(table, plan)
    assert removal.phase == other
    _reads_right(plan, removal)


@pytest.mark.parametrize("post", ["mayor", "secretary"])
@pytest.mark.parametrize(
    ("ruleset", "language", "theme"), [pack for pack in PACKS if pack[0] == "mafia"]
)
def test_a_removed_mafia_title_holder_loses_the_post_without_a_second_death(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str, post: str
) -> None:
    """Mafia's Mayor (or Secretary) removed after the election: the notice tells the removal,
    the role line follows, then the post's end (reason ``removed``: no second death); nothing
    else names him."""
    plan = BotGame(ruleset, language, "Rimosso", PLAYERS, seed=2)
    table = Table(factory, language=language)
    _open(table, plan, theme)
    plan.start(table)
    steps = plan.steps(table)
    for _ in range(6):
        state = _mafia_state(factory)
        mayor, secretary = state.mayor_in_office(), state.secretary_in_office()
        if mayor and secretary:
            break
        next(steps)
    else:
        raise AssertionError("no Mayor and Secretary in office after the election")
    removal = _remove_one(table, plan, mayor if post == "mayor" else secretary)
    assert removal.post == f"{post}_lost"
    _reads_right(plan, removal)
    state = _mafia_state(factory)
    assert state.secretary_in_office() is None
    assert (state.mayor_in_office() is None) == (post == "mayor")


def _mafia_state(factory: sessionmaker[Session]) -> MafiaState:
    """The rules' state of the one (Mafia) game."""
    with unit_of_work(factory) as work:
        state = table_of(work, work.session.scalars(select(Game)).one()).state
    assert isinstance(state, MafiaState)
    return state


@pytest.mark.parametrize(
    ("ruleset", "language", "theme"), [pack for pack in PACKS if pack[1] == "it"]
)
def test_an_italian_notice_agrees_with_a_removed_woman(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str
) -> None:
    """A woman removed from an Italian game reads "chi l'aveva votata", "è squalificata",
    "un'esiliata", "morta" (every variant of the notice is rendered for her too)."""
    extra = {"extra": power_word} if ruleset == "lupus" else {}
    plan = BotGame(ruleset, language, "Rimosso", PLAYERS, seed=2, **extra)
    table = Table(factory, language=language)
    _open(table, plan, theme)
    plan.start(table)
    woman = next(name for name, gender in PLAYERS if gender == "vrouw")
    removal = _remove_one(table, plan, woman)
    _reads_right(plan, removal)
    for to, text in removal.mails:
        his = [word for word in MASCULINE[language] if word in text.lower()]
        assert not his, (to, his, text)


#: Per language: what the heir of a role freed by a removal reads of its holder (taken out of
#: the game: ruling 94), and the words of a death that his mail never says of him, lowercased.
HEIR_READS = {
    "ru": ("выведенного из игры", ("погибш", "смерт", "умер", "мёртв")),
    "en": ("has been taken out of the game", ("is gone", "dead", "died", "death")),
}


@pytest.mark.parametrize(
    ("ruleset", "language", "theme"), [pack for pack in PACKS if pack[0] == "mafia"]
)
def test_the_heir_of_a_removed_mafia_player_reads_a_removal_not_a_death(
    factory: sessionmaker[Session], ruleset: str, language: str, theme: str
) -> None:
    """A Mafia player holding a role an Active citizen inherits is removed by the admin: the
    heir's private mail says the holder was taken out of the game, not that he died (the
    ``role_change`` carries reason ``removed``)."""
    plan = BotGame(ruleset, language, "Rimosso", PLAYERS, seed=2)
    table = Table(factory, language=language)
    _open(table, plan, theme)
    plan.start(table)
    state = _mafia_state(factory)
    heir = next(
        name
        for name in state.heirs
        if state.get(name).alive and state.get(name).peaceful == "active_citizen"
    )
    holder = next(
        p
        for p in state.players
        if p.alive and p.peaceful in INHERITED and not p.crippled and not p.negative
    )  # a red (his death shows one role)
    removal = _remove_one(table, plan, holder.name)
    assert _mafia_state(factory).get(heir).peaceful == holder.peaceful
    alone = ALONE[language]
    [text] = [t for to, t in removal.mails if to == address_of(heir) and alone in t.lower()]
    said, never = HEIR_READS[language]
    lowered = text.lower()
    assert holder.name in text and said in lowered, text
    assert not [word for word in never if word in lowered], text
