"""A public story mail is one text for the whole village: every recipient gets the same
words, and no line meant for one player (his vision, his new role, his warning) is in it;
those come in his own, private mail of the same step."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from narrator.db import session_factory
from narrator.models import Game, GameStatus, RoleDistribution
from narrator.outbound.compose import Content
from narrator.service import games as service
from narrator.service import letters
from narrator.service.letters import post
from narrator.service.mailer import Mailer
from narrator.service.table import table_of
from narrator.service.work import unit_of_work
from stories import RenderedMail
from tests.support.bymail import above_roster
from tests.support.shipped import SHIPPED_RENDERER

NARRATOR = "verteller@example.org"
START = datetime(2026, 11, 18, 9, 0, tzinfo=UTC)
NAMES = ["Anna", "Bram", "Carla", "Dirk", "Eva", "Frank", "Gert", "Hanna", "Ivo", "Jet"]
ROLES = [
    "weerwolf",
    "weerwolf",
    "welp",
    "ziener",
    "heks",
    "dorpsoudste",
    "onschuldige_meisje",
    "raaf",
    "zondebok",
    "waarschuwer",
]


class RecordingMailer(Mailer):
    """A mailer that keeps what the post office queued with it: (kind, identity, address,
    text), and each identity's subject (see :func:`recording`)."""

    def __init__(self) -> None:
        super().__init__(SHIPPED_RENDERER.store, NARRATOR, shared=SHIPPED_RENDERER)
        self.queued: list[tuple[str, str, str, str]] = []
        self.subjects: dict[str, str] = {}  # identity -> the subject it was given


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> RecordingMailer:
    """A :class:`RecordingMailer`: every mail queued with it is recorded as it is queued."""
    mailer = RecordingMailer()
    queue = letters._PostOffice._queue

    def recorded(
        office: letters._PostOffice,
        letter: letters.Letter,
        recipient: letters.Recipient,
        rendered: RenderedMail,
        sender_name: str,
        content: Content | None = None,
    ) -> str:
        if office.mailer is mailer:
            text = rendered.text
            mailer.queued.append((letter.kind, recipient.identity, recipient.address, text))
            mailer.subjects[recipient.identity] = letter.subject or ""
        return queue(office, letter, recipient, rendered, sender_name, content)

    monkeypatch.setattr(letters._PostOffice, "_queue", recorded)
    return mailer


@pytest.fixture
def factory(engine: Engine) -> Iterator[sessionmaker[Session]]:
    yield session_factory(engine)


def _start(
    factory: sessionmaker[Session],
    mailer: Mailer,
    now: datetime,
    *,
    language: str,
    reveal_roles: bool,
    options: dict[str, Any],
    women: tuple[str, ...],
) -> None:
    """WW9: the ten NAMES sign up (``women`` as women) and the game starts with ROLES, dealt
    by seed 5."""
    with unit_of_work(factory) as work:
        work.session.add(
            RoleDistribution(
                ruleset="wakkerdam", key="tien", players=10, roles=sorted(ROLES), options={}
            )
        )
        game = Game(
            name="WW9",
            name_key="ww9",
            ruleset="wakkerdam",
            language=language,
            theme="wakkerdam",
            speed=3600,
            strictness=3,
            status="signup",
            reveal_roles=reveal_roles,
            options=options,
        )
        work.session.add(game)
        work.session.flush()
        for name in NAMES:
            gender = "vrouw" if name in women else "man"
            applicant = service.Applicant(f"{name.lower()}@example.org", name, gender)
            post(
                work.session,
                mailer,
                service.signup(table_of(work, game), applicant, now).letters,
                now,
            )
        service.start_game(work, mailer, game, now=now, seed=5, distribution_id="tien")


@pytest.mark.parametrize("language", ["nl", "en"])
def test_every_public_story_is_one_text_with_no_private_line(
    factory: sessionmaker[Session], language: str, recording: RecordingMailer
) -> None:
    mailer = recording
    now = START
    _start(
        factory,
        mailer,
        now,
        language=language,
        reveal_roles=True,
        options={"mayor": True},
        women=("Anna", "Carla", "Eva", "Hanna", "Jet"),
    )
    turn = 0
    for _ in range(120):
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            if game.status == GameStatus.ENDED.value:
                break
            rs = service.ruleset_of(game)
            state = service.load_state(work, game)
            players = {p.name: p for p in work.players(game)}
            for name in rs.asked(state):
                action = rs.choices(state, name).actions[0]
                targets = list(action.targets)
                count = max(action.min_names, 1) if targets else 0
                picked = [targets[(turn + i) % len(targets)] for i in range(count)]
                turn += 1
                ballot = service.Ballot(
                    targets=list(dict.fromkeys(picked)),
                    blanco=not picked,
                    keywords=[action.keyword] if action.keyword else [],
                )
                outcome = service.cast_vote(table_of(work, game), players[name], ballot, now)
                post(work.session, mailer, outcome.letters, now)
            now += timedelta(hours=1)
            service.close_step(work, mailer, game, now=now)
    stories = [q for q in mailer.queued if q[0] == "story"]
    public: dict[str, dict[str, str]] = defaultdict(dict)  # step identity -> address -> text
    private: dict[str, list[str]] = defaultdict(list)
    for _kind, identity, to, text in stories:
        step, _, rest = identity.rpartition("/")
        if rest == "private":
            private[step.rpartition("/")[0]].append(text)
        else:
            public[step][to] = text
    assert len(public) > 5 and private, (len(public), len(private))
    # A step's story is titled with the moment its step mails had (night 3's dawn is night 3).
    step_subjects = {
        identity.rsplit("/", 1)[0].replace("step/", "story/", 1): mailer.subjects[identity]
        for kind, identity, _to, _text in mailer.queued
        if kind == "step"
    }
    checked = 0
    for _kind, identity, _to, _text in stories:
        step = identity.removesuffix("/private").rsplit("/", 1)[0]
        if step in step_subjects:
            assert mailer.subjects[identity] == step_subjects[step], (identity, step)
            checked += 1
    assert checked
    for step, texts in public.items():
        assert len(set(texts.values())) == 1, step  # one text for the whole village
        assert len(texts) == len(NAMES), step
        told = next(iter(texts.values()))
        for own in private.get(step, ()):
            for line in above_roster(own).splitlines():  # the roster is the village's
                if len(line) > 30:  # a sentence, not a greeting or a signature
                    assert line not in told, (step, line)


def test_the_epilogue_tells_the_whole_game_with_every_role(
    factory: sessionmaker[Session], recording: RecordingMailer
) -> None:
    mailer = recording
    now = START
    _start(factory, mailer, now, language="nl", reveal_roles=False, options={}, women=())
    for _ in range(120):
        with unit_of_work(factory) as work:
            game = work.session.scalars(select(Game)).one()
            if game.status == GameStatus.ENDED.value:
                break
            now += timedelta(hours=1)
            service.close_step(work, mailer, game, now=now)  # nobody votes: inactivity
    epilogues = [(to, text) for kind, _i, to, text in mailer.queued if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(f"{n.lower()}@example.org" for n in NAMES)
    texts = {text for _, text in epilogues}
    assert len(texts) == 1  # one text for everybody
    told = texts.pop()
    assert "Nacht 1" in told and "Dag 1" in told
    for name in NAMES:
        assert name in told
    assert "Weerwolf" in told and "Dorpsoudste" in told  # the roles, though none was revealed
