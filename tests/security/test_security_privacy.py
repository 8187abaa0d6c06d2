"""Secrets stay secret: across whole games of every built-in distribution of 5-16 players, no
private event and no hidden role reaches anyone but its audience, and the dwaas never learns
that he is the dwaas.

The games are played through the inbox as players would.  Story templates are replaced by
marker templates that print each event's identity and every role the render context shows,
so every outgoing mail can be checked against the game's log of events with their audiences.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from narrator.db import transaction
from narrator.models import (
    Game,
    GameLogEntry,
    GameStatus,
    OutboxMessage,
    RoleDistribution,
    game_players,
)
from narrator.service import games as service
from narrator.service.limits import Limits
from narrator.service.mailer import Mailer
from narrator.service.work import unit_of_work
from narrator.storystore import LayeredStore
from rules import get_ruleset
from rules.core import Distribution
from stories import Event, FileStore, MemoryStore, Renderer, StoryKey, StorySource
from stories.keys import events_of
from tests.security.security_support import (
    NARRATOR,
    PLAYER_NAMES,
    Narrator,
    mail,
    plain_text,
)

RULES = get_ruleset("wakkerdam")
DISTRIBUTIONS = [d for d in RULES.distributions if 5 <= d.players <= 16]
# No built-in distribution of 5-16 has the dwaas: these admin-added ones do.
DWAAS_DISTRIBUTIONS = [
    Distribution(
        "dwaas-6", 6, ("burger", "burger", "dwaas", "heks", "weerwolf", "ziener"), {"mayor": True}
    ),
    Distribution(
        "dwaas-9",
        9,
        ("burger", "cupido", "dwaas", "genezer", "jager", "slet", "weerwolf", "weerwolf", "ziener"),
        {"mayor": False},
    ),
]


def add_distributions(narrator: Narrator) -> None:
    with transaction(narrator.factory) as session:
        for d in DWAAS_DISTRIBUTIONS:
            session.add(
                RoleDistribution(
                    ruleset="wakkerdam",
                    key=d.id,
                    players=d.players,
                    roles=list(d.roles),
                    options=dict(d.options),
                )
            )


EVENT_MARKER = (
    "[[EV {{ event.type }}|{{ event.get('player') }}|{{ event.get('target') }}|"
    "{{ event.get('role') }}|{{ event.get('players') }}]]"
)
ROLES_SHOWN = (
    "[[ROLES {% for p in players %}{% if p.role %}{{ p.name }}={{ p.role }};"
    "{% endif %}{% endfor %}]]"
)
STORY_MAIL = (
    "{% block subject %}story{% endblock %}{% block body %}" + ROLES_SHOWN + "\n"
    "{% for story in stories %}{{ story }}\n{% endfor %}{% endblock %}"
)
ROLE_MAIL = (
    "{% block subject %}role{% endblock %}{% block body %}" + ROLES_SHOWN + "\n"
    "[[ROLE {{ role }}|{{ mates|join(',') }}]]{% endblock %}"
)
PLAIN_MAIL = (
    "{% block subject %}{{ game.name }}{% endblock %}{% block body %}"
    + ROLES_SHOWN
    + "{% endblock %}"
)
_MARKER = re.compile(r"\[\[EV ([^\]]*)\]\]")
_ROLES = re.compile(r"\[\[ROLES ([^\]]*)\]\]")
_ROLE = re.compile(r"\[\[ROLE ([^|\]]*)\|([^\]]*)\]\]")


def marker_store() -> LayeredStore:
    sources = []
    for event in events_of("wakkerdam"):
        sources.append(
            StorySource(StoryKey("wakkerdam", "nl", "wakkerdam", event), 1, EVENT_MARKER)
        )
    mails = {"night_result": STORY_MAIL, "day_result": STORY_MAIL, "role": ROLE_MAIL}
    for name in ("step", "receipt", "reminder", "error", "signup_confirmed"):
        mails[name] = PLAIN_MAIL
    for name, source in mails.items():
        sources.append(StorySource(StoryKey("wakkerdam", "nl", "wakkerdam", name), 1, source))
    return LayeredStore(MemoryStore(sources), FileStore())


def marker_of(event: dict[str, Any]) -> str:
    context = Event.from_dict(event).as_context()
    values = [context.get(field) for field in ("player", "target", "role", "players")]
    return f"{context['type']}|" + "|".join("None" if v is None else str(v) for v in values)


def play(narrator: Narrator, game_name: str, distribution: str, size: int, seed: int) -> None:
    """Sign up, start and play `game_name` to its end with random (sometimes invalid) votes."""
    rng = random.Random(seed)
    narrator.add_game(game_name)
    cast = [(name, f"{name.lower()}@{game_name.lower()}.example") for name in PLAYER_NAMES[:size]]
    narrator.sign_up(game_name, cast)
    narrator.start(game_name, seed=seed, distribution=distribution)
    emails = dict(cast)
    for _ in range(400):
        ballots = []
        with unit_of_work(narrator.factory) as work:
            session = work.session
            game = session.scalars(select(Game).where(Game.name == game_name)).one()
            if game.status == GameStatus.ENDED.value:
                return
            state = service.load_state(work, game)
            for name in RULES.asked(state):
                actions = RULES.choices(state, name).actions
                if not actions or rng.random() < 0.1:
                    continue  # sleeps through the step
                action = rng.choice(actions)
                count = rng.randint(action.min_names, max(action.min_names, action.max_names))
                targets = rng.sample(list(action.targets), min(count, len(action.targets)))
                body = " ".join(targets) if targets else "blanco"
                if action.keyword:
                    body += f" {action.keyword}"
                ballots.append(mail(emails[name], game_name, body))
        for raw in ballots:
            narrator.deliver(raw)
        narrator.process()
        narrator.clock.now += timedelta(hours=1)
        with unit_of_work(narrator.factory) as work:
            session = work.session
            for due in service.due_games(session, narrator.clock()):
                service.close_step(work, narrator.mailer, due, now=narrator.clock())
    pytest.fail(f"{game_name} did not end")


def check_game(narrator: Narrator, game_name: str) -> Counter[str]:
    """Check every mail of the game against its log; return counts of what was checked."""
    checked: Counter[str] = Counter()
    with transaction(narrator.factory) as session:
        game = session.scalars(select(Game).where(Game.name == game_name)).one()
        emails = {p.email: p.name for p in game_players(session, game)}
        log = list(
            session.scalars(
                select(GameLogEntry)
                .where(GameLogEntry.game_id == game.id)
                .order_by(GameLogEntry.seq)
            )
        )
        rows = session.scalars(
            select(OutboxMessage).where(OutboxMessage.game_id == game.id).order_by(OutboxMessage.id)
        ).all()
        mails = [(row.created_at, row.recipient, row.kind, plain_text(row.raw)) for row in rows]
    (start,) = [entry.payload for entry in log if entry.kind == "start"]
    roles = {seat["name"]: seat["role"] for seat in start["seats"]}
    resolves = {entry.at: entry.payload["events"] for entry in log if entry.kind == "resolve"}
    died: dict[str, Any] = {}
    history = {name: {role} for name, role in roles.items()}  # roles may change (welp...)
    current = dict(roles)
    for entry in log:
        if entry.kind == "resolve":
            for event in entry.payload["events"]:
                if event["type"] == "death":
                    died.setdefault(event["player"], entry.at)
                    # These games reveal roles: the story tells the dead's role (the truth).
                    event["role"] = current[event["player"]]
                if event["type"] == "role_change" and event.get("role"):
                    history[event["player"]].add(event["role"])
                    current[event["player"]] = event["role"]

    def may_show(recipient: str, at: Any, name: str, role: str) -> bool:
        if name in died and died[name] <= at and role in history[name]:
            return True  # the dead's roles are revealed in these games
        if name == recipient:
            return role in history[name] - {"dwaas"} or (
                role == "ziener" and roles[name] == "dwaas"
            )
        return False

    # Each event's marker once, as the story tells it (the deaths' roles set above): every
    # reader of the step is checked against them.
    of_step = {at: [(e["audience"], marker_of(e)) for e in evs] for at, evs in resolves.items()}
    told: dict[tuple[str, Any], Counter[str]] = {}
    for at, address, kind, text in mails:
        recipient = emails[address]
        if kind in ("game_over", "epilogue"):
            continue  # the end: every role is public
        # No render context ever held a living player's hidden role (except one's own).
        for found in _ROLES.findall(text):
            pairs = dict(item.split("=", 1) for item in found.split(";") if item)
            for name, role in pairs.items():
                assert may_show(recipient, at, name, role), (
                    game_name,
                    kind,
                    recipient,
                    name,
                    role,
                )
            checked["contexts"] += 1
        if roles[recipient] == "dwaas" and (recipient not in died or at < died[recipient]):
            assert "dwaas" not in text.lower(), (game_name, kind, text)
            checked["dwaas mails"] += 1
        if kind == "role":
            ((role, mates),) = _ROLE.findall(text)
            assert role == ("ziener" if roles[recipient] == "dwaas" else roles[recipient])
            for mate in filter(None, mates.split(",")):
                assert RULES.roles[roles[mate]].team == RULES.roles[roles[recipient]].team or (
                    role != roles[recipient]
                ), (recipient, mate)
            checked["role mails"] += 1
        if kind == "story":
            # A step's story comes in two mails (the public one, then his own): together
            # they tell him exactly what he may know.
            if (recipient, at) not in told:
                checked["story mails"] += 1
                checked["private events withheld"] += sum(
                    1
                    for e in resolves[at]
                    if e["audience"] != "public" and recipient not in e["audience"]
                )
            told.setdefault((recipient, at), Counter()).update(_MARKER.findall(text))
        else:
            assert not _MARKER.findall(text), (kind, text)
    for (recipient, at), markers in told.items():
        expected = Counter(
            marker
            for audience, marker in of_step[at]
            if audience == "public" or recipient in audience
        )
        assert markers == expected, (game_name, recipient, at)
    return checked


@pytest.fixture(scope="module")
def marker_renderer() -> Renderer:
    """One renderer of :func:`marker_store` for the games of this module: its store is fixed
    and no game reloads its mailer, so each template is compiled once, not once a game."""
    return Renderer(marker_store())


@pytest.mark.slow
@pytest.mark.parametrize("distribution", DISTRIBUTIONS + DWAAS_DISTRIBUTIONS, ids=lambda d: d.id)
def test_no_private_event_reaches_anyone_but_its_audience(
    make_narrator: Callable[..., Narrator], marker_renderer: Renderer, distribution: Any
) -> None:
    mailer = Mailer(marker_renderer.store, NARRATOR, shared=marker_renderer)
    narrator = make_narrator(mailer, limits=Limits(replies_per_hour=0, replies_per_day=0))
    add_distributions(narrator)
    totals: Counter[str] = Counter()
    games = 0
    for seed in range(1, 6):  # a second game (and more) only when the first kept no secret
        games += 1
        play(narrator, f"P{seed}", distribution.id, distribution.players, seed)
        totals += check_game(narrator, f"P{seed}")
        if totals["private events withheld"] and totals["story mails"]:
            break
    assert totals["role mails"] == games * distribution.players
    assert totals["private events withheld"] > 0
    if "dwaas" in distribution.roles:
        assert totals["dwaas mails"] > 0


@pytest.mark.slow
def test_the_dwaas_is_never_told_with_the_shipped_stories(
    make_narrator: Callable[..., Narrator],
) -> None:
    with_dwaas = [d for d in DISTRIBUTIONS if "dwaas" in d.roles] + DWAAS_DISTRIBUTIONS
    narrator = make_narrator(limits=Limits(replies_per_hour=0, replies_per_day=0))
    add_distributions(narrator)
    told = 0
    for index, distribution in enumerate(with_dwaas * 2):
        name = f"D{index}"
        play(narrator, name, distribution.id, distribution.players, index)
        with transaction(narrator.factory) as session:
            game = session.scalars(select(Game).where(Game.name == name)).one()
            log = list(session.scalars(select(GameLogEntry).where(GameLogEntry.game_id == game.id)))
            (start,) = [e.payload for e in log if e.kind == "start"]
            dwaas = next(s["name"] for s in start["seats"] if s["role"] == "dwaas")
            deaths = [
                e.at
                for e in log
                if e.kind == "resolve"
                for event in e.payload["events"]
                if event["type"] == "death" and event["player"] == dwaas
            ]
            # His visions are random roles, 'dwaas' among them: "X is een Dwaas" is a vision.
            visions_of_a_dwaas = {
                e.at
                for e in log
                if e.kind == "resolve"
                for event in e.payload["events"]
                if event["type"] == "seen" and event["player"] == dwaas and event["role"] == "dwaas"
            }
            address = next(p.email for p in game_players(session, game) if p.name == dwaas)
            rows = session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.game_id == game.id, OutboxMessage.recipient == address)
                .order_by(OutboxMessage.id)
            ).all()
            alive = [
                (r.created_at, r.kind, plain_text(r.raw))
                for r in rows
                if not deaths or r.created_at < deaths[0]
            ]
        for at, kind, text in alive:
            if kind == "role":
                assert "ziener" in text.lower()
            if kind not in ("game_over", "epilogue") and "dwaas" in text.lower():
                assert kind == "story" and at in visions_of_a_dwaas, (kind, text)
            told += 1
    assert told > len(with_dwaas)


def test_a_thief_who_takes_the_dwaas_role_is_told_he_is_ziener(
    make_narrator: Callable[..., Narrator],
) -> None:
    """Spec: a dwaas is told he is ziener; so is a dief who steals the dwaas's role."""
    narrator = make_narrator(limits=Limits(replies_per_hour=0, replies_per_day=0))
    roles = ("burger", "dief", "dwaas", "heks", "weerwolf", "ziener")
    with transaction(narrator.factory) as session:
        session.add(
            RoleDistribution(
                ruleset="wakkerdam",
                key="dief-dwaas",
                players=6,
                roles=list(roles),
                options={"mayor": False},
            )
        )
    narrator.add_game("T1")
    cast = [(name, f"{name.lower()}@t1.example") for name in PLAYER_NAMES[:6]]
    narrator.sign_up("T1", cast)
    narrator.start("T1", seed=3, distribution="dief-dwaas")
    with unit_of_work(narrator.factory) as work:
        session = work.session
        game = session.scalars(select(Game).where(Game.name == "T1")).one()
        state = service.load_state(work, game)
        dealt = {p.name: p.role for p in state.players}
        thief = next(name for name, role in dealt.items() if role == "dief")
        fool = next(name for name, role in dealt.items() if role == "dwaas")
        assert thief in RULES.asked(state)  # the first night opens with the dief
    seen = narrator.last_outbox_id()
    outcome = narrator.receive(mail(dict(cast)[thief], "T1", fool))
    assert outcome.what == "vote accepted", outcome
    with unit_of_work(narrator.factory) as work:
        session = work.session
        game = session.scalars(select(Game).where(Game.name == "T1")).one()
        events = service.close_step(work, narrator.mailer, game, now=narrator.clock())
        assert service.load_state(work, game).find(thief).role == "dwaas"
    # The log (and transcript) keep the truth ...
    assert {"type": "role_change", "player": thief, "role": "dwaas"}.items() <= next(
        e for e in events if e["type"] == "role_change" and e["player"] == thief
    ).items()
    # ... the thief's story (the public mail and his own) tells him he is ziener, and never
    # that he is dwaas.
    told = "".join(
        m.text
        for m in narrator.outbox(after=seen)
        if m.kind == "story" and m.recipient.startswith(thief.lower())
    )
    assert "ziener" in told.lower()
    assert "dwaas" not in told.lower()
