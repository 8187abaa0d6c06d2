"""The example's Italian pack: every key renders, its mails ask for words the parser reads, no
subject gives a role away, a seer's vision reaches nobody but the seer, and the scenarios' games
and a whole game by mail (through narrator.service) are told in Italian."""

from __future__ import annotations

import email
import re
import tomllib
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from narrator.db import session_factory, transaction
from narrator.inbound.dbsink import DbSink
from narrator.models import Game as GameRow
from narrator.models import GameStatus, OutboxMessage
from narrator.service import games as service
from narrator.service.inbox import InboxSettings, process_pending
from narrator.service.work import unit_of_work
from rules import get_ruleset
from rules.core.model import Seat, Settings, Vote
from rules.scenario import run_scenario
from stories import (
    FileStore,
    Game,
    MemoryStore,
    Player,
    Renderer,
    StoryKey,
    check_store,
)
from stories.keys import events_of, keys_of
from stories.samples import mail_samples
from stories.store import StorySource
from stories.words import Words, load_words
from tests.support.packs import (
    QUOTED,
    pack_sources,
    render_every_event,
    rendered_mails,
)
from tests.support.shipped import SHIPPED_RENDERER, shipped_mailer

RULESET, LANGUAGE, THEME = "example", "it", "example"
#: How a mail of the pack quotes a word the player is to write: «nessuno», «risparmia».


@pytest.fixture(scope="module")
def words() -> Words:
    return load_words(RULESET, LANGUAGE)


@pytest.fixture(scope="module")
def sources() -> list[StorySource]:
    return pack_sources(RULESET)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return SHIPPED_RENDERER


def _fold(word: str) -> str:
    return word.casefold()


def parser_words(words: Words) -> set[str]:
    """Every word the parser reads from words.toml: keyword ids and words, blank words, gender
    words, Help words."""
    found = {*words.keywords, *words.keyword_of(), *words.blanco, *words.help}
    for written in words.genders.values():
        found.update(written)
    return {_fold(word) for word in found}


@pytest.mark.slow  # a whole pack's check (`make test-fast` leaves it out)
def test_the_pack_passes_stories_check(sources: list[StorySource]) -> None:
    report = check_store(MemoryStore(sources))
    assert report.problems == []
    assert report.renders > 400


def test_every_key_has_a_template_and_every_event_two_variants() -> None:
    store = FileStore()
    missing = [
        event
        for event in keys_of(RULESET)
        if not store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))
        and not store.variants(StoryKey(RULESET, LANGUAGE, "_base", event))
    ]
    assert missing == []
    few = [
        event
        for event in events_of(RULESET)
        if len(store.variants(StoryKey(RULESET, LANGUAGE, THEME, event))) < 2
    ]
    assert few == []


def test_every_event_renders_with_every_sample(
    renderer: Renderer, sources: list[StorySource]
) -> None:
    assert render_every_event(renderer, sources) > 100


def test_the_advertised_words_are_the_parsers(words: Words) -> None:
    ids = get_ruleset(RULESET).keywords
    assert "risparmia" in ids
    assert "risparmia" in words.keywords["risparmia"]
    assert words.keyword_of()["grazia"] == "risparmia"
    assert "nessuno" in words.blanco
    assert {"uomo", "donna"} <= {*words.genders["man"], *words.genders["vrouw"]}
    assert "aiuto" in words.help


def test_every_quoted_word_of_a_mail_is_one_the_parser_reads(
    renderer: Renderer, sources: list[StorySource], words: Words
) -> None:
    """The mails quote what to write as «word»: each one must be in words.toml's parser lists."""
    readable = parser_words(words)
    quoted: set[str] = set()
    for source, _context, mail in rendered_mails(renderer, sources):
        for word in QUOTED.findall(mail.text):
            assert _fold(word) in readable, f"{source.origin} asks for «{word}»"
            quoted.add(_fold(word))
    for text in words.errors.values():
        for word in QUOTED.findall(text):
            assert _fold(word) in readable, f"[errors] asks for «{word}»"
    assert {"nessuno", "risparmia"} <= quoted


def test_the_wolves_step_mail_says_what_to_write(renderer: Renderer) -> None:
    key = StoryKey(RULESET, LANGUAGE, THEME, "step")
    wolves = [
        c for c in mail_samples(key) if [a.kind for a in c["actions"]] == ["lupo", "risparmia"]
    ]
    assert wolves
    for number, context in enumerate(wolves):
        mail = renderer.render_mail(key, context, number)
        assert "«risparmia»" in mail.text and "«nessuno»" in mail.text
        assert all(name in mail.text for name in context["actions"][0].choices)
        assert "mercoledì 18 novembre alle 09:00" in mail.text


def test_no_subject_names_a_role(
    renderer: Renderer, sources: list[StorySource], words: Words
) -> None:
    """A subject shows in notifications and mail lists, where anybody may read it."""
    role_words = {_fold(form) for role in words.roles.values() for form in (role.name, role.plural)}
    checked = 0
    for source, _context, mail in rendered_mails(renderer, sources):
        subject_words = {_fold(w) for w in re.findall(r"\w+", mail.subject)}
        assert not subject_words & role_words, f"{source.origin}: {mail.subject!r}"
        checked += 1
    assert checked > 150


# --- a game played by the rules, told to every player ----------------------------------------

SEATS = (
    Seat("Lea", "lupo", "vrouw"),
    Seat("Vera", "veggente", "vrouw"),
    Seat("Carlo", "contadino", "man"),
    Seat("Dina", "contadino", "vrouw"),
    Seat("Ezio", "contadino", "man"),
)


def _told(state: Any, events: Any) -> list[dict[str, Any]]:
    """The events as the narrator hands them to the stories: transcript form plus audience."""
    rules = get_ruleset(RULESET)
    out = []
    for event in events:
        data = rules.as_told(event).to_dict()
        names = rules.recipients(state, event.audience)
        data["audience"] = "public" if names is None else sorted(names)
        out.append(data)
    return out


def test_the_vision_is_told_to_its_seer_only(renderer: Renderer) -> None:
    rules = get_ruleset(RULESET)
    state = rules.new_game(SEATS, Settings(seed=3, strictness=9))
    for voter, target in (("Lea", "Ezio"), ("Vera", "Ezio"), ("Carlo", "Lea"), ("Dina", "Ezio")):
        state = rules.apply(state, Vote(voter, (target,))).state
    state = rules.resolve(state).state  # the day: Ezio burns
    state = rules.apply(state, Vote("Lea", ("Carlo",))).state
    state = rules.apply(state, Vote("Vera", ("Lea",))).state
    night = rules.view(state)
    resolution = rules.resolve(state)
    events = _told(resolution.state, resolution.events)
    assert [e["type"] for e in events] == ["visione", "death"]
    assert events[0]["audience"] == ["Vera"]
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    game = Game(
        name="ES1",
        ruleset=RULESET,
        language=LANGUAGE,
        theme=THEME,
        step=night.step,
        phase=night.phase,
        night=night.night,
        day=night.day,
    )
    seats = rules.view(resolution.state).by_name()
    players = [Player(s.name, s.gender or "man", alive=seats[s.name].alive) for s in SEATS]
    told: dict[str | None, str] = {}
    for recipient in (None, "Lea", "Vera", "Carlo", "Dina", "Ezio"):
        for seed in range(4):  # every variant of the vision
            mail = renderer.render_story(
                key,
                {"game": game, "players": players, "recipient": recipient},
                events,
                seed,
                groups=frozenset({seats[recipient].team}) if recipient else frozenset(),
            )
            assert mail is not None and "Notte 1" in mail.subject
            assert "Carlo" in mail.text  # the death is public
            told[recipient] = mail.text
            if recipient == "Vera":
                assert "sta con i lupi" in mail.text
            else:
                # The roster at the end names every player (Vera is alive): the story does not.
                story = mail.text.partition("\n-- \n")[0]
                assert "sta con" not in story and "Vera" not in story, recipient
    assert len(told) == 6


# --- the scenarios' games, every event told ---------------------------------------------------

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios" / RULESET


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.toml")), ids=lambda p: p.stem)
def test_every_event_of_the_scenarios_is_told(renderer: Renderer, path: Path) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = run_scenario(data, until_end=True).lines
    genders = {
        n: (v.split(",")[1].strip() if "," in v else "man") for n, v in data["players"].items()
    }
    genders = {n: "vrouw" if g in ("vrouw", "donna") else "man" for n, g in genders.items()}
    players = [Player(name, gender) for name, gender in genders.items()]
    key = StoryKey(RULESET, LANGUAGE, THEME, "night_result")
    told = 0
    for number, line in enumerate(lines[:-1]):
        game = Game(name="ES2", ruleset=RULESET, language=LANGUAGE, theme=THEME, step=line["step"])
        for event in line["events"]:
            subject = event.get("player")
            for recipient in (None, subject):
                context = {"game": game, "players": players, "recipient": recipient}
                assert renderer.render_event(key, context, event, number).strip(), event
                told += 1
    assert lines[-1]["end"] is True and told >= 4


# --- a whole game by mail, through the narrator ----------------------------------------------

NARRATOR = "narratore@example.org"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
CAST = {"Lea": "vrouw", "Vera": "vrouw", "Carlo": "man", "Dina": "vrouw", "Ezio": "man"}


class Clock:
    """A settable clock."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def _mail(sender: str, body: str, number: int) -> bytes:
    return (
        f"From: {sender}\r\nTo: {NARRATOR}\r\nSubject: ES1\r\n"
        f"Message-ID: <m{number}.{sender}>\r\nDate: Wed, 18 Nov 2026 09:00:00 +0000\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    ).encode()


def _text(message: Message) -> str:
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    payload = part.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode(part.get_content_charset() or "utf-8")


def test_a_whole_game_by_mail_is_told_in_italian(engine: Engine) -> None:
    """Signups, the deal, votes by mail, deadlines and the end, through narrator.service.

    The votes are names only and the signups say man/vrouw: words every version of the parser
    reads for this game (see docs/dev/adding-a-ruleset.md, "What the parser takes")."""
    factory = session_factory(engine)
    mailer = shipped_mailer(NARRATOR)
    settings = InboxSettings(address=NARRATOR, admins=("admin@example.org",))
    sink = DbSink(factory)
    clock = Clock()
    with transaction(factory) as session:
        session.add(
            GameRow(
                name="ES1",
                name_key="es1",
                ruleset=RULESET,
                language=LANGUAGE,
                theme=THEME,
                speed=3600,
                strictness=2,
                status="signup",
            )
        )
    numbers = iter(range(10_000))
    for name, gender in CAST.items():
        raw = _mail(f"{name.lower()}@example.org", f"{name}, {gender}", next(numbers))
        sink.store_sync(raw, source="inject")
    process_pending(factory, mailer, settings, clock)
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(GameRow)).one()
        service.start_game(work, mailer, game, now=clock(), seed=3)
    for _ in range(40):
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(GameRow)).one()
            if game.status == GameStatus.ENDED.value:
                break
            rules = service.ruleset_of(game)
            state = service.load_state(work, game)
            ballots = []
            seats = rules.view(state).by_name()
            for name in rules.asked(state):
                # The village burns a villager every day, so the seer lives to see a night.
                targets = rules.choices(state, name).actions[0].targets
                target = next((t for t in targets if seats[t].role == "contadino"), targets[0])
                ballots.append(_mail(f"{name.lower()}@example.org", target, next(numbers)))
        for raw in ballots:
            sink.store_sync(raw, source="inject")
        process_pending(factory, mailer, settings, clock)
        clock.now += timedelta(hours=1)
        with unit_of_work(factory) as work:
            for due in service.due_games(work.session, clock()):
                service.close_step(work, mailer, due, now=clock())
    with transaction(factory) as session:
        game = session.scalars(select(GameRow)).one()
        assert game.status == GameStatus.ENDED.value
        roles = {p["name"]: p["role"] for p in game.state["players"]}
        rows = session.scalars(select(OutboxMessage).order_by(OutboxMessage.id)).all()
        sent = [(r.recipient, r.kind, email.message_from_bytes(r.raw)) for r in rows]
    kinds = {kind for _, kind, _ in sent}
    assert kinds >= {"signup_confirmed", "role", "step", "receipt", "story", "game_over"}
    seers = {f"{n.lower()}@example.org" for n, role in roles.items() if role == "veggente"}
    visions = 0
    for recipient, kind, message in sent:
        text = _text(message)
        story = text.replace("\r\n", "\n").partition("\n-- \n")[0]
        assert story.rstrip().endswith("Il Narratore"), (kind, text)
        if kind == "story" and "sta con" in text:
            assert recipient in seers, text  # a vision, told to its seer only
            visions += 1
    assert visions >= 1
