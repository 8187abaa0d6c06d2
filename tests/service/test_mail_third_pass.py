"""The third pass over the mails of Wakkerdam and Lupus (issue #22), each slip read as the player
reads it: games played by mail on the real database, a fixed set of roles dealt."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from narrator.models import Game, RoleDistribution
from narrator.service import games as service
from narrator.service.work import unit_of_work
from stories import Game as StoryGame
from stories import Player, StoryKey
from stories.words import load_words
from tests.support.bymail import Table, address_of, subject_of, text_of
from tests.support.shipped import SHIPPED_RENDERER

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
    strictness: int = 3,
) -> Table:
    """A game named Borgo of ``len(roles)`` players (Anna, Bram, …) dealt exactly ``roles``."""
    table = Table(factory, language=language)
    table.open_game(
        name="Borgo",
        ruleset=ruleset,
        language=language,
        theme=theme or ruleset,
        speed=86400,
        strictness=strictness,
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
                ruleset=ruleset,
                key="test",
                players=len(roles),
                roles=list(roles),
                options=options or {},
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


def above_roster_lines(text: str) -> list[str]:
    """The running roster of a mail's text: the lines below its ``-- `` separator."""
    return text.replace("\r\n", "\n").partition("\n-- \n")[2].splitlines()


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


# --- 5. a quiet first night is told, also when the Mayor's election follows -------------------


def test_a_quiet_first_night_is_told_before_the_mayors_election(
    factory: sessionmaker[Session],
) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "nl",
        ["weerwolf", "ziener", "burger", "burger", "burger"],
        options={"mayor": True},
    )
    wolf = _who(table)["weerwolf"][0]
    assert table.write(wolf, "blanco") == "vote accepted"
    before = len(table.mails())
    table.deadline()
    after = table.mails()[before:]
    kinds = [(to, kind, subject_of(m)) for to, kind, m in after]
    for name in table.roles():
        told = [k for k in kinds if k[0] == address_of(name) and k[1] == "story"]
        assert told and told[0][2] == "Borgo — Nacht 1", (name, kinds)
        stories = _since(table, before, "story", name)
        assert any("stil" in s or "niets te melden" in s for s in stories), stories
    first_step = next(i for i, k in enumerate(kinds) if k[1] == "step")
    assert all(i < first_step for i, k in enumerate(kinds) if k[1] == "story"), kinds
    assert "Dag 1" in kinds[first_step][2], kinds


# --- 9. the time of day: no "the night is not over" at dawn, no evening after the end ---------


def _win_and_dawn_mails(language: str, theme: str) -> list[str]:
    """Every variant of the story mails that end a game (the win told) and of a quiet dawn."""
    renderer = SHIPPED_RENDERER
    players = (Player("Anna", "vrouw"), Player("Bram", "man", alive=False))
    win = {"type": "win", "teams": ["burgers"], "winners": ["Anna"], "audience": "public"}
    texts = []
    for mail, step, phase, events in (
        ("day_result", "brandstapel", "day", [win]),
        ("night_result", "heks", "night", [win]),
        ("night_result", "heks", "night", []),
        ("night_result", "ochtend", "night", [win]),
    ):
        key = StoryKey("wakkerdam", language, theme, mail)
        game = StoryGame(
            name="Borgo", language=language, theme=theme, step=step, phase=phase, night=2, day=2
        )
        for source in renderer.variants(key):
            for seed in range(6):
                context = {
                    "game": game,
                    "players": players,
                    "recipient": None,
                    "stories": ["Het spel is uit."] if events else [],
                    "events": events,
                }
                texts.append(renderer.render_source_mail(source, context, random.Random(seed)).text)
    return texts


def test_no_evening_after_the_winners_and_no_night_going_on_at_dawn() -> None:
    for language in ("nl", "en"):
        for theme in ("wakkerdam", "haven"):
            for text in _win_and_dawn_mails(language, theme):
                for slip in (
                    "nog niet voorbij",
                    "not over yet",
                    "valt de avond",
                    "Evening will fall",
                    "gaat Wakkerdam slapen",
                    "Wakkerdam goes to sleep",
                    "Ebbenhaven gaat slapen",
                    "Ebbenhaven goes to sleep",
                    "Een nieuwe dag begint",
                    "A new day begins",
                ):
                    assert slip not in text, (language, theme, text)


# --- 7. who is out gets no advice for staying in, and is told how to stop the mails ----------


def test_a_player_exiled_for_silence_is_told_so_without_advice_for_the_living(
    factory: sessionmaker[Session],
) -> None:
    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "veggente", "contadino", "contadino", "contadino"],
        strictness=1,
    )
    who = _who(table)
    wolf, seer = who["lupo"][0], who["veggente"][0]
    silent, victim = who["contadino"][0], who["contadino"][1]
    table.write(seer, wolf)
    table.deadline()  # night 1: nobody dies (no kill on the first night)
    for name in table.roles():
        if name != silent:
            assert table.write(name, victim) == "vote accepted", name
    before = len(table.mails())
    table.deadline()  # day 1: the silent one misses the rogo, once: out
    stories = _since(table, before, "story", silent)
    warned = [s for s in stories if "non hai votato" in s]
    assert warned, stories
    for text in stories:
        for advice in ("la prossima volta", "Basta una", "scrivi almeno"):
            assert advice not in text, text
    assert any("toglieranno dalla lista" in s for s in stories), stories
    # 8. the roster tells the exiled apart from the dead
    roster = above_roster_lines(stories[0])
    assert any(line.startswith(f"Esiliati (1): {silent}") for line in roster), roster
    assert not any(line.startswith("Morti") and silent in line for line in roster), roster
    before = len(table.mails())
    table.write(silent, wolf)
    errors = _since(table, before, "error", silent)
    assert errors, table.mails()[before:]
    assert "Riprova" not in errors[0] and "fuori dal gioco" in errors[0], errors[0]
    assert "«aiuto»" in errors[0], errors[0]


def test_a_dead_player_is_told_how_to_stop_the_mails(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "nl",
        ["weerwolf", "ziener", "burger", "burger", "burger"],
        options={"mayor": False},
    )
    who = _who(table)
    wolf, victim = who["weerwolf"][0], who["burger"][0]
    assert table.write(wolf, victim) == "vote accepted"
    before = len(table.mails())
    table.deadline()
    stories = _since(table, before, "story", victim)
    assert any("mail-lijst" in s and "Help" in s for s in stories), stories
    before = len(table.mails())
    table.write(victim, wolf)
    [error] = _since(table, before, "error", victim)
    assert "Je bent dood" in error and "mail-lijst" in error, error
    assert "Probeer het nog eens" not in error, error


# --- 10. a receipt repeats every part of the move it recorded ---------------------------------


def test_the_negromantes_receipt_names_the_power_too(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "veggente", "contadino", "contadino", "contadino"],
    )
    who = _who(table)
    necro, farmer = who["negromante"][0], who["contadino"][0]
    table.deadline()  # night 1
    for name in table.roles():
        assert table.write(name, farmer) == "vote accepted", name
    table.deadline()  # day 1: the farmer burns
    before = len(table.mails())
    assert table.write(necro, f"{farmer} visione") == "vote accepted"
    [receipt] = _since(table, before, "receipt", necro)
    assert farmer in receipt and "Visione" in receipt, receipt


# --- 11. a Fantasma who dies with no power left is told he is no Spettro ----------------------


def test_a_fantasma_with_no_power_left_is_told_he_stays_dead(
    factory: sessionmaker[Session],
) -> None:
    from dataclasses import replace

    from narrator.service.table import table_of
    from rules.lupus.ids import FANTASMA_POWERS

    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "fantasma", "contadino", "contadino", "contadino"],
    )
    with unit_of_work(factory) as work:  # every supernatural power is taken already
        game = work.session.scalars(select(Game)).one()
        seated = table_of(work, game)
        seated.store(replace(seated.state, assigned=FANTASMA_POWERS))
    ghost = _who(table)["fantasma"][0]
    table.deadline()  # night 1
    for name in table.roles():
        table.write(name, ghost)
    before = len(table.mails())
    table.deadline()  # day 1: the Fantasma burns
    stories = _since(table, before, "story", ghost)
    assert any("Non sei uno Spettro" in s for s in stories), stories
    for name in table.roles():
        if name != ghost:
            assert not any("Spettro" in s for s in _since(table, before, "story", name)), name


# --- 6. the weights and the tie-breaks are explained ----------------------------------------


def test_the_mayors_vote_and_a_half_is_explained(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "nl",
        ["weerwolf", "ziener", "burger", "burger", "burger"],
        options={"mayor": True},
    )
    who = _who(table)
    wolf, mayor, target = who["weerwolf"][0], who["burger"][0], who["burger"][1]
    table.write(wolf, "blanco")
    table.deadline()  # a quiet night 1
    for name in table.roles():
        assert table.write(name, mayor) == "vote accepted", name
    table.deadline()  # the Mayor's election
    for name in table.roles():
        if name != target:
            assert table.write(name, target) == "vote accepted", name
    before = len(table.mails())
    table.deadline()  # the stake: four votes, one of them the Mayor's
    [story] = [s for s in _since(table, before, "story", target) if "Brandstapel" in s]
    assert "4,5 stemmen" in story, story
    assert f"De stem van Burgemeester {mayor} (op {target}) telt voor anderhalve stem" in story


def test_the_sindacos_ballot_breaking_a_tie_is_explained(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "veggente", "contadino", "contadino", "contadino"],
    )
    table.deadline()  # night 1
    with unit_of_work(factory) as work:
        game = work.session.scalars(select(Game)).one()
        sindaco = service.ruleset_of(game).view(work.state(game)).facts["mayor"]
    others = [n for n in table.roles() if n != sindaco]
    first, second = others[0], others[1]
    for name in (sindaco, second, others[2]):
        assert table.write(name, first) == "vote accepted", name
    for name in (first, others[3], others[4]):
        assert table.write(name, second) == "vote accepted", name
    before = len(table.mails())
    table.deadline()  # three against three: the Sindaco's ballot decides
    [story] = [s for s in _since(table, before, "story", first) if "schede" in s][:1]
    assert f"a parità decide la scheda del Sindaco, e {sindaco} aveva votato {first}" in story, (
        story
    )


# --- 9. the slips of the Wakkerdam and Lupus mails -------------------------------------------


def test_the_wolves_step_names_the_pack_and_the_witch_is_asked_for_what_she_can_do(
    factory: sessionmaker[Session],
) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "nl",
        ["weerwolf", "weerwolf", "heks", "burger", "burger", "burger"],
        options={"mayor": False},
    )
    who = _who(table)
    first, second = who["weerwolf"]
    witch = who["heks"][0]
    [step] = _since(table, 0, "step", first)
    assert f"Je stemt samen met {second}." in step, step
    table.write(first, "blanco")
    table.write(second, "blanco")
    before = len(table.mails())
    table.deadline()  # the wolves eat nobody: nobody is wounded when the Heks wakes
    [step] = _since(table, before, "step", witch)
    assert "Vannacht is er niemand gewond." in step, step
    assert "hoogstens één naam" in step and "twee namen" not in step, step


def test_english_mails_ask_for_english_words_and_take_nobody(
    factory: sessionmaker[Session],
) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "en",
        ["weerwolf", "ziener", "burger", "burger", "burger"],
        options={"mayor": False},
    )
    seer = _who(table)["ziener"][0]
    [role] = _since(table, 0, "role", seer)
    assert "(or the word blank)" in role and "blanco" not in role, role
    before = len(table.mails())
    assert table.write(seer, "Gandalf").startswith("error: no-name")
    [error] = _since(table, before, "error", seer)
    assert "nor the word blank" in error and "blanco" not in error, error
    assert table.write(seer, "nobody") == "vote accepted"


def test_no_muster_roll_and_no_expected_one() -> None:
    renderer = SHIPPED_RENDERER
    signup = {
        "game": StoryGame(name="Borgo", language="en", theme="haven"),
        "players": (),
        "recipient": "Anna",
        "player": Player("Anna", "vrouw"),
        "signups": ["Anna"],
    }
    key = StoryKey("wakkerdam", "en", "haven", "signup_confirmed")
    for source in renderer.variants(key):
        text = renderer.render_source_mail(source, signup, random.Random(0)).text
        assert "muster roll" not in text and "signed on for Borgo" in text, text
    words = load_words("wakkerdam", "nl")
    text = words.error_text("too-many-names", {"names": "Anna, Bram", "expected": 1})
    assert "ik verwacht er" not in text and "hoogstens 1 zijn" in text, text


# --- 8. the roster says what the story said: the Dorpsgek shown at the stake ------------------


def test_the_revealed_dorpsgek_has_his_role_in_the_roster(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "wakkerdam",
        "nl",
        ["weerwolf", "dorpsgek", "burger", "burger", "burger"],
        options={"mayor": False},
    )
    who = _who(table)
    wolf, fool = who["weerwolf"][0], who["dorpsgek"][0]
    table.write(wolf, "blanco")
    table.deadline()  # a quiet night 1
    for name in table.roles():
        table.write(name, fool)
    before = len(table.mails())
    table.deadline()  # the village burns the Dorpsgek: he is shown, and lives
    stories = _since(table, before, "story", fool)
    roster = above_roster_lines(stories[0])
    assert any(line.startswith("Nog in leven") and f"{fool} (Dorpsgek)" in line for line in roster)
    others = [n for n in table.roles() if n != fool]
    assert not any(f"{n} (" in roster[0] for n in others), roster


# --- 9. Italian roles agree with a woman -------------------------------------------------------


def test_a_woman_is_told_her_role_in_its_feminine(factory: sessionmaker[Session]) -> None:
    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "veggente", "contadino", "contadino", "contadino"],
    )
    words = load_words("lupus", "it")
    told = 0
    for name, role in table.roles().items():
        [mail] = _since(table, 0, "role", name)
        forms = words.roles[role]
        if name in WOMEN and forms.feminine:
            assert f"sei {forms.feminine_indefinite}" in mail, mail
            told += 1
        else:
            assert f"sei {forms.indefinite}" in mail, mail
    assert told >= 2


def test_a_help_forward_names_the_game_that_has_ended(factory: sessionmaker[Session]) -> None:
    from dataclasses import replace

    from narrator.models import GameStatus

    table = _game(factory, "wakkerdam", "nl", ["weerwolf", "ziener", "burger", "burger", "burger"])
    table.settings = replace(table.settings, admins=("beheer@example.org",))
    with unit_of_work(factory) as work:
        work.session.scalars(select(Game)).one().status = GameStatus.ENDED.value
    table.ask_help("Anna", "Wie heeft er gewonnen?", "Help")
    [forward] = [text_of(m) for to, kind, m in table.mails() if kind == "help_forward"]
    assert "Spel: geen" not in forward and "Spel: Borgo" in forward, forward
    assert "Speler: Anna" in forward, forward


def test_a_burnt_wolf_of_a_beaten_faction_gathers_no_belongings(
    factory: sessionmaker[Session],
) -> None:
    table = _game(
        factory,
        "lupus",
        "it",
        ["lupo", "negromante", "veggente", "contadino", "contadino", "contadino"],
    )
    wolf = _who(table)["lupo"][0]
    table.deadline()  # night 1
    for name in table.roles():
        table.write(name, wolf)
    before = len(table.mails())
    table.deadline()  # the wolf burns: the Lupi are beaten, their dead leave the game too
    stories = "\n".join(_since(table, before, "story", wolf))
    assert f"Anche {wolf}, che già riposa nella tomba" in stories, stories
    assert f"{wolf} raccoglie le sue cose" not in stories, stories
