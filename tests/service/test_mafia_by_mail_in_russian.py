"""Mafia played by mail in Russian (theme express), signup to the winners' mail, through the
narrator service.

Cyrillic names signed up with `Имя, мужчина|женщина`, a seeded deal, the start's story (the
roles in play), the Mayor's election and Secretary, the Mayor's blank vertical, a mafia kill
by its Russian keyword, day votes with names as Russian declines them, errors, deadlines, and
the end: every mail Russian, greeted and signed by the train chief, a story at every dawn and
dusk, per-voter tallies, no role in a subject, a night death showing the peaceful role only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import replace
from email.header import decode_header, make_header
from email.message import Message
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.cli import main
from narrator.db import transaction
from narrator.models import Game, GameStatus, RoleDistribution
from narrator.service import games as service
from narrator.service.inbox import process_pending
from narrator.service.work import unit_of_work
from parsing.lexicon import phrase_key
from stories.words import load_words
from tests.support.bymail import Table, above_roster, game_view, stories_by_reader

# Name -> (address, gender word).  Written with ё where the name has it: the parser folds it.
SIGNUPS = {
    "Алёна": ("alena", "женщина"),
    "Борис": ("boris", "мужчина"),
    "Вера": ("vera", "женщина"),
    "Глеб": ("gleb", "мужчина"),
    "Дарья": ("darya", "женщина"),
    "Егор": ("egor", "мужчина"),
}
GAME = "MF1"
ROLES6 = ["active_citizen", "blocker", "commissar", "detective", "doctor", "investigator"]
OPTIONS6 = {"negative": {"mafia": 1, "maniac": 1}, "mayor": True, "format": "standard"}
SIGNATURE = "Начальник поезда,\n„Степной экспресс“"
#: The accusative Russian writes after "против"/"за" (the parser reads it as the name).
ACCUSATIVE = {"Алёна": "Алёну", "Вера": "Веру", "Дарья": "Дарью"}


class RussianTable(Table):
    """The players of a Russian game: ASCII addresses, Cyrillic names in the mails."""

    def write(self, name: str, body: str, subject: str = GAME) -> str:
        self.count += 1
        address = SIGNUPS[name][0] if name in SIGNUPS else name
        raw = (
            f"From: {address}@example.org\r\nTo: {self.settings.address}\r\n"
            f"Subject: {subject}\r\nMessage-ID: <m{self.count}.{address}@example.org>\r\n"
            "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Transfer-Encoding: 8bit\r\n\r\n{body}\r\n"
        ).encode()
        self.sink.store_sync(raw, source="inject")
        outcomes = process_pending(self.factory, self.mailer, self.settings, self.clock)
        return outcomes[-1].what


def text_of(message: Message) -> str:
    """The plain-text part of a queued mail."""
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    payload = part.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode(part.get_content_charset() or "utf-8").replace("\r\n", "\n")


def subject_of(message: Message) -> str:
    """The decoded subject of a queued mail."""
    return str(make_header(decode_header(str(message["Subject"]))))


def _address(name: str) -> str:
    return f"{SIGNUPS[name][0]}@example.org"


def _asked(factory: sessionmaker[Session]) -> tuple[str, ...]:
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        return service.ruleset_of(game).asked(work.state(game))


def _stories(table: Table, before: int) -> dict[str, str]:
    return stories_by_reader(table.mails()[before:])


def test_a_mafia_game_by_mail_in_russian(factory: sessionmaker[Session]) -> None:
    table = RussianTable(factory)
    table.open_game(
        name=GAME, ruleset="mafia", language="ru", theme="express", speed=86400, strictness=3
    )
    with transaction(factory) as session:
        # The built-in distribution's `faceless = false` is refused by Settings.check_options
        # (test below): the admin's own distribution without it.
        session.add(
            RoleDistribution(ruleset="mafia", key="ru-6", players=6, roles=ROLES6, options=OPTIONS6)
        )
    for name, (_, gender) in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    assert table.write("zina", "Зина, может быть").startswith("error: bad-gender")
    signed = [text_of(m) for _, kind, m in table.mails() if kind == "signup_confirmed"]
    assert len(signed) == 6 and "записаны" in signed[0]

    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(
            work, table.mailer, game, now=table.clock(), seed=7, distribution_id="ru-6"
        )
    roles = table.roles()
    blacks = [n for n, r in roles.items() if "+" in r]
    reds = [n for n in SIGNUPS if n not in blacks]
    assert len(blacks) == 2 and len(reds) == 4
    mails = table.mails()
    role_mails = {to: text_of(m) for to, kind, m in mails if kind == "role"}
    assert sorted(role_mails) == sorted(_address(n) for n in SIGNUPS)
    words = load_words("mafia", "ru")
    for name in blacks:
        peaceful, negative = roles[name].split("+")
        text = role_mails[_address(name)]
        assert words.roles[peaceful].name in text and words.roles[negative].name in text
    start = _stories(table, 0)
    assert len(start) == 6 and all(
        "Мирные роли" in t or "едут чёрные" in t or "чёрные" in t for t in start.values()
    )

    # Day 1: the election.  Everybody elects the first red; he votes for the second.
    mayor, second = reds[0], reds[1]
    assert game_view(factory).step == "election"
    for name in SIGNUPS:
        choice = second if name == mayor else mayor
        assert table.write(name, f"Голосую за {ACCUSATIVE.get(choice, choice)}") == (
            "vote accepted"
        ), name
    before = len(table.mails())
    table.deadline()
    dusk = _stories(table, before)
    assert len(dusk) == 6 and all(mayor in text for text in dusk.values())
    view = game_view(factory)
    if view.step == "secretary":
        assert _asked(factory) == (mayor,)
        secretary = next(n for n in reds if n not in (mayor,))
        if secretary == second:  # he voted for somebody else: not eligible
            secretary = next(n for n in SIGNUPS if n not in (mayor, second))
        assert table.write(mayor, secretary) == "vote accepted"
        table.deadline()
    assert game_view(factory).facts["mayor"] == mayor

    # Night 1: the mafia shoots a red who is neither the Mayor nor his Secretary.
    assert game_view(factory).step == "night"
    secretary_now = game_view(factory).facts["secretary"]
    victim = next(n for n in reds if n not in (mayor, secretary_now))
    shooter = next(n for n in blacks if roles[n].endswith("+mafia"))
    answer = table.write(shooter, f"убить {victim}")
    assert answer == "vote accepted", answer
    assert table.write(shooter, "Кого-нибудь").startswith("error: no-name")
    before = len(table.mails())
    table.deadline()
    dawn = _stories(table, before)
    assert sorted(dawn) == sorted(_address(n) for n in SIGNUPS)  # a mail at every dawn
    victim_role = roles[victim].split("+")[0]
    for text in dawn.values():
        assert victim in text and words.roles[victim_role].name in text
        assert above_roster(text).rstrip().endswith(SIGNATURE)
    assert not game_view(factory).find(victim).alive  # type: ignore[union-attr]

    # Then day by day: the Mayor protects nobody, the town lynches a black each day.
    for _ in range(6):
        view = game_view(factory)
        if view.over:
            break
        living_blacks = [n for n in blacks if view.find(n).alive]  # type: ignore[union-attr]
        target = living_blacks[0]
        for name in _asked(factory):
            if view.step == "pre_vote":
                if name == mayor:
                    assert table.write(name, "пропуск") == "vote accepted"
            elif view.step in ("lynch", "extra_vote"):
                pick = (
                    target
                    if name != target
                    else next(
                        n
                        for n in reds
                        if view.find(n).alive and n != mayor  # type: ignore[union-attr]
                    )
                )
                assert table.write(name, f"Против {ACCUSATIVE.get(pick, pick)}!") == (
                    "vote accepted"
                ), (name, view.step)
        before = len(table.mails())
        table.deadline()
        if view.step in ("lynch", "extra_vote"):
            dusk = _stories(table, before)
            assert dusk and all(target in text and "голос" in text for text in dusk.values())
            assert all(
                "Как голосовали" in t or "Расклад" in t or "Итоги" in t for t in dusk.values()
            )

    with transaction(factory) as session:
        game = session.scalars(select(Game)).one()
        assert game.status == GameStatus.ENDED.value
    over = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "game_over"]
    assert sorted(to for to, _ in over) == sorted(_address(n) for n in SIGNUPS)
    assert all("Победили красные" in text for _, text in over)

    # The epilogue: one text for all, every role dealt, the first night's shot.
    epilogues = [(to, text_of(m)) for to, kind, m in table.mails() if kind == "epilogue"]
    assert sorted(to for to, _ in epilogues) == sorted(_address(n) for n in SIGNUPS)
    told = {text for _, text in epilogues}
    assert len(told) == 1
    epilogue = told.pop()
    assert "- Алёна — Доктор и Маньяк" in epilogue and "- Егор — Детектив и Мафия" in epilogue
    assert "- Егор (Детектив и Мафия) — выстрел Семьи: Вера." in epilogue
    assert "- Вера погибла от руки мафии. Роль — Активный житель." in epilogue

    # Every mail is signed by the train chief; no subject names a role.
    role_words = {phrase_key(w) for r in words.roles.values() for w in (*r.name.split(), r.plural)}
    for to, kind, message in table.mails():
        text = text_of(message)
        assert above_roster(text).rstrip().endswith(SIGNATURE), (to, kind, text)
        subject = {phrase_key(w) for w in re.findall(r"\w+", subject_of(message))}
        assert not subject & role_words, subject_of(message)


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(old)


def test_game_create_takes_the_russian_express(workdir: Path) -> None:
    assert main(["db", "upgrade"]) == 0
    assert (
        main(["game", "create", "MF9", "--ruleset", "mafia", "--lang", "ru", "--theme", "express"])
        == 0
    )
    assert main(["game", "create", "MF8", "--ruleset", "mafia", "--lang", "ru"]) == 0


def test_a_mafia_game_starts_with_a_built_in_distribution(factory: sessionmaker[Session]) -> None:
    table = RussianTable(factory)
    table.open_game(
        name=GAME, ruleset="mafia", language="ru", theme="mafia", speed=86400, strictness=3
    )
    for name, (_, gender) in SIGNUPS.items():
        assert table.write(name, f"{name}, {gender}") == f"signup: {name}"
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        service.start_game(work, table.mailer, game, now=table.clock(), seed=7)
    assert len([kind for _, kind, _ in table.mails() if kind == "role"]) == 6


def test_a_help_mail_in_a_russian_game_is_acknowledged_in_russian(
    factory: sessionmaker[Session],
) -> None:
    """The admins get the question; the asker is told, in Russian and in the train chief's
    voice, that it went on and that it was no move: a player by her gender, a stranger (whose
    gender nobody knows) without one."""
    table = RussianTable(factory)
    # The admins read the narrator's own language (the default pack: wakkerdam, English).
    table.settings = replace(table.settings, admins=("admin@example.org",), language="en")
    table.open_game(
        name=GAME, ruleset="mafia", language="ru", theme="express", speed=86400, strictness=3
    )
    assert table.write("Алёна", "Алёна, женщина") == "signup: Алёна"
    for who, asked, greeting in (
        ("Алёна", f"Помощь {GAME}: когда начнётся партия?", "Уважаемая Алёна!"),
        ("zina", f"помощь {GAME}", "Здравствуйте!"),
        # the pack's other Help word: the inbox routes with every language's (stories/_lang/)
        ("Алёна", f"Вопрос {GAME}: можно ли сменить имя?", "Уважаемая Алёна!"),
    ):
        address = _address(who) if who in SIGNUPS else f"{who}@example.org"
        message = table.ask_help(who, "Подскажите, пожалуйста.", asked, address)
        text = above_roster(text_of(message)).rstrip()
        assert subject_of(message) == f"Re: {asked}"
        assert text.startswith(greeting) and text.endswith(SIGNATURE)
        assert f"Ваш вопрос („{asked}“) я переслал организаторам партии {GAME}." in text
        assert "никогда не засчитывается как ход" in text and f"название партии: {GAME}." in text
