"""Whole games of every ruleset, language and theme the project ships, played by mail (the bots
of tests/support/botgame.py) with a player's usual slips sent among the votes, and every mail
read as the player reads it (issue #22, item 9):

- no mail greets or sets the scene at a time of day the moment contradicts: nothing of the
  evening at dawn (a night just ended), nothing of the morning once night falls, and never
  morning and evening in the mails of one moment (a "Good morning" at dusk);
- no line of a mail's text is said twice in it (a list's label, and an item of two lists such
  as each move's choices or each night of the epilogue, are the layout's, not repetitions);
- every error or refusal (and every receipt) answers the player's own mail: ``Re:`` his
  subject, ``In-Reply-To`` and ``References`` his Message-ID, to his name and the address he
  wrote from, its ``+detail`` kept (docs/operations.md, "Mail threads"; the interfaces' mail
  contract, section 5).
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from email.message import Message
from email.utils import parseaddr
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import make_engine, session_factory
from narrator.service.inbox import process_pending
from rules.core.registry import ruleset_ids
from stories import default_pack_root
from stories.words import languages_of, load_words
from tests.support.botgame import BotGame, ballots, power_word
from tests.support.bymail import Table, compose, game_view, header, subject_of, text_of
from tests.support.shipped import SHIPPED_RENDERER

pytestmark = pytest.mark.slow  # seventeen whole games

NAMES = ("Alice", "Boris", "Clara", "Derek", "Edith", "Fred", "Gwen", "Hugo", "Iris", "Jack")
#: Players of each ruleset's games (Mafia's smallest table with a Mafia family of two).
SEATS = {"mafia": 10}
GAME = "G1"

#: Words that say it is morning (the day begins), at the start of a clause of a mail's opening
#: (its first two paragraphs: greeting and scene), per language of the packs: the greetings and
#: scene openings the templates write (stories/<ruleset>/<lang>/*/night_result.j2, step.j2…).
MORNING = {
    "en": ("good morning", "morning", "dawn", "the sun rises", "the first sun", "the sun is up"),
    "it": ("buongiorno", "sorge l'alba", "la notte è finita"),
    "nl": ("goedemorgen", "de zon komt op", "de dag breekt aan", "het wordt ochtend"),
    "ru": ("доброе утро", "утро", "рассвет", "город просыпается"),
}
#: Words that say it is evening or night (the day is done).
EVENING = {
    "en": ("good evening", "evening", "good night", "dusk", "the sun goes down",
           "as the sun goes down", "the sun sinks", "as the sun sinks", "the night is not over"),
    "it": ("buonasera", "buonanotte", "all'ora del tramonto", "è notte",
           "la notte non è finita", "la notte non è ancora finita"),
    "nl": ("goedenavond", "goedenacht", "de avond valt", "als de zon laag staat",
           "de nacht is nog niet voorbij"),
    "ru": ("добрый вечер", "доброй ночи", "вечер", "вечереет", "сумерки", "смеркается",
           "город засыпает"),
}  # fmt: skip
#: The mails that answer a mail the narrator could not use, or refused.
REFUSALS = frozenset({"error", "notice"})


def _themes(ruleset: str, language: str) -> list[str]:
    root = default_pack_root() / ruleset / language
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))


SHIPPED = [
    (ruleset, language, theme)
    for ruleset in ruleset_ids()
    for language in languages_of(ruleset)
    for theme in _themes(ruleset, language)
]


def said(text: str, phrases: tuple[str, ...]) -> list[str]:
    """The `phrases` that open a clause of the mail's opening (greeting and scene)."""
    paragraphs = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    opening = "\n\n".join(paragraphs[:2]).casefold()
    return sorted(
        p for p in phrases if re.search(rf"(?:^|[.,:;!?]\s+|\n){re.escape(p)}(?!\w)", opening)
    )


def repeated(text: str) -> list[str]:
    """The lines of a mail's text said twice: any line but a list's label (ending in ":") or
    the roster's separator, and an item ("- …") twice in one list."""
    seen: dict[str, int] = {}
    twice: list[str] = []
    for number, paragraph in enumerate(text.replace("\r\n", "\n").split("\n\n")):
        for line in (line.strip() for line in paragraph.split("\n")):
            if not line or line == "--" or line.endswith(":"):
                continue
            if line in seen and (not line.startswith("- ") or seen[line] == number):
                twice.append(line)
            seen.setdefault(line, number)
    return twice


@dataclass
class Moment:
    """The mails of one moment of the game: the phase before (its step closed) and after."""

    before: str | None
    after: str | None
    mails: list[tuple[str, str, Message]] = field(default_factory=list)


@dataclass
class Answer:
    """A player's mail (its From as he wrote it, its subject and Message-ID) and the mails
    answering it."""

    sender: str
    subject: str
    message_id: str
    what: str
    mails: list[tuple[str, str, Message]]


@dataclass
class Played:
    """A whole game: its language, its moments in order, and the answers to the slips."""

    language: str
    moments: list[Moment]
    answers: list[Answer]


def _send(table: Table, sender: str, body: str, subject: str = GAME) -> Answer:
    """`sender` (a From header) mails `body`; the mails the narrator queued in answer."""
    table.count += 1
    message_id = f"slip{table.count}.{random.Random(table.count).randrange(10**6)}@example.org"
    before = len(table.mails())
    table.sink.store_sync(compose(sender, subject, body, message_id), source="inject")
    [outcome] = process_pending(table.factory, table.mailer, table.settings, table.clock)
    return Answer(sender, subject, f"<{message_id}>", outcome.what, table.mails()[before:])


def _phase(table: Table) -> str | None:
    return game_view(table.factory).phase


def _play(table: Table, plan: BotGame) -> Played:
    """Sign up, start, play every step to the end with the slips among the votes."""
    words = load_words(plan.ruleset, plan.language)
    played = Played(plan.language, [], [])
    # The installation's own game kind (a mail naming no game is answered in its words).
    table.settings = replace(table.settings, ruleset=plan.ruleset)
    table.mailer = replace(
        table.mailer,
        default_ruleset=plan.ruleset,
        default_language=plan.language,
        shared=SHIPPED_RENDERER,
    )
    plan.open(table)
    played.answers.append(_send(table, "Zed <zed@example.org>", "zzz"))  # a signup without gender
    played.answers.append(_send(table, "Zed <Zed@Example.org>", "Zed, man", "Hallo"))  # no game
    start = len(table.mails())
    plan.start(table)
    moment = Moment(None, _phase(table), table.mails()[start:])
    order = [name for name, _ in plan.players]
    random.Random(plan.seed).shuffle(order)
    for number in range(1, 80):
        asked = ballots(table.factory, plan, order, words)
        if asked is None:
            break
        view = game_view(table.factory)
        living = [s.name for s in view.players if s.alive]
        dead = [s.name for s in view.players if not s.alive]
        if number == 2:  # a mail the narrator cannot read
            played.answers.append(_send(table, f"{living[0]} <{living[0].lower()}@example.org>",
                                        "zzzqqq"))  # fmt: skip
        idle = [name for name in living if name not in dict(asked)]
        if idle and number <= 3:  # a vote from a living player not asked now
            played.answers.append(_send(table, f"{idle[0]} <{idle[0].lower()}@example.org>",
                                        living[-1]))  # fmt: skip
        if dead and asked:  # a vote for a dead player, and a vote from one
            voter = asked[0][0]
            played.answers.append(_send(table, f"{voter} <{voter.lower()}@example.org>", dead[0]))
            played.answers.append(
                _send(table, f"{dead[0]} <{dead[0].lower()}@example.org>", living[0])
            )
        before = len(table.mails())
        for player, body in asked:
            table.write(player, body, plan.name)
        moment.mails += table.mails()[before:]
        played.moments.append(moment)
        phase = view.phase
        before = len(table.mails())
        table.deadline()
        after = None if game_view(table.factory).over else _phase(table)
        moment = Moment(phase, after, table.mails()[before:])
    else:
        raise AssertionError(f"{plan.name} did not end")
    played.moments.append(moment)
    # A vote after the end, from a player's other address (his +detail, as he wrote it).
    first = plan.players[0][0]
    played.answers.append(_send(table, f"{first} <{first.lower()}+g1@example.org>", first))
    played.answers.append(_send(table, f"{first} <{first.lower()}@example.org>", first))
    return played


@pytest.fixture(scope="module", params=SHIPPED, ids="-".join)
def played(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _sqlite_template: Path,
) -> Iterator[Played]:
    """One whole game of the ruleset, language and theme, on its own SQLite database."""
    ruleset, language, theme = request.param
    players = tuple(
        (name, "vrouw" if i % 2 == 0 else "man")
        for i, name in enumerate(NAMES[: SEATS.get(ruleset, 8)])
    )
    extra = {"extra": power_word} if ruleset == "lupus" else {}
    plan = BotGame(ruleset, language, GAME, players, seed=1, theme=theme, **extra)
    path = tmp_path_factory.mktemp(f"{ruleset}-{language}-{theme}") / "narrator.db"
    shutil.copyfile(_sqlite_template, path)
    engine = make_engine(f"sqlite:///{path}")
    factory: sessionmaker[Session] = session_factory(engine)
    try:
        yield _play(Table(factory, language=language), plan)
    finally:
        engine.dispose()


def test_no_mail_tells_a_time_of_day_the_moment_contradicts(played: Played) -> None:
    morning, evening = MORNING[played.language], EVENING[played.language]
    for moment in played.moments:
        told = [(to, kind, text_of(m)) for to, kind, m in moment.mails]
        mornings = [(to, kind, said(text, morning), text) for to, kind, text in told]
        evenings = [(to, kind, said(text, evening), text) for to, kind, text in told]
        mornings = [m for m in mornings if m[2]]
        evenings = [e for e in evenings if e[2]]
        where = (moment.before, moment.after)
        if moment.before == "night" and moment.after == "day":  # dawn
            assert not evenings, (where, evenings[0])
        if moment.after == "night":  # the night falls
            assert not mornings, (where, mornings[0])
        assert not (mornings and evenings), (where, mornings[0], evenings[0])


def test_no_mail_says_a_line_twice(played: Played) -> None:
    mails = [m for moment in played.moments for m in moment.mails]
    mails += [m for answer in played.answers for m in answer.mails]
    for to, kind, message in mails:
        text = text_of(message)
        assert not repeated(text), (to, kind, repeated(text), text)


def test_every_error_answers_the_players_own_mail(played: Played) -> None:
    refused = [
        (answer, kind, message)
        for answer in played.answers
        for _to, kind, message in answer.mails
        if kind in REFUSALS
    ]
    # The signup without a gender, the mail naming no game, the unreadable mail, the vote of
    # one not asked, the dead's vote, the vote for the dead, the votes after the end.
    assert len(refused) >= 6, [(a.what, a.sender) for a in played.answers]
    for answer in played.answers:  # every mail to him answers his: errors and receipts
        for to, kind, message in answer.mails:
            if to.casefold() != parseaddr(answer.sender)[1].casefold():
                continue  # a copy to another player (a Mafia partner's receipt)
            where = (answer.what, kind, answer.sender, text_of(message))
            assert header(message, "In-Reply-To") == answer.message_id, where
            assert answer.message_id in header(message, "References").split(), where
            if answer.subject == GAME:  # else a stranger's: never his words (docs/security.md)
                assert subject_of(message) == f"Re: {GAME}", where
            # To him by his name, at his address with its +detail (its case folded: the
            # narrator knows an address by its lowercase form, parsing.model.ParsedMail).
            name, address = parseaddr(answer.sender)
            assert parseaddr(header(message, "To")) == (name, address.casefold()), where
