"""Sample contexts for every event and mail: every gender, plural and role case a story meets."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any, Final

from stories import vocab
from stories.context import Action, Game, Player
from stories.keys import StoryKey

SAMPLE_PLAYERS: Final = (
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", "burger", alive=False),
    Player("Eva", "vrouw", "jager", alive=False),
    Player("Frank", "man"),
)
_DEADLINE: Final = dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC)
_SUBJECTS: Final = ("Anna", "Bram")  # one woman, one man
_LISTS: Final = (("Anna",), ("Bram",), ("Anna", "Bram"), ("Anna", "Bram", "Carla"))

#: Action kinds a step mail meets, and the step each happens in.
ACTION_STEPS: Final = {
    "dief": "dief",
    "cupido": "cupido",
    "opdrachtgever": "opdrachtgever",
    "grafrover": "grafrover",
    "klaas_vaak": "klaas_vaak",
    "genezer": "nacht",
    "ziener": "nacht",
    "dwaas": "nacht",
    "priester": "nacht",
    "slet": "nacht",
    "verleidster": "nacht",
    "goochelaar": "nacht",
    "psychopaat": "nacht",
    "vampier": "nacht",
    "weerwolf": "nacht",
    "witte_weerwolf": "nacht",
    "heks": "heks",
    "fluitspeler": "heks",
    "waarschuwer": "ochtend",
    "raaf": "ochtend",
    "schout": "ochtend",
    "jager": "doden",
    "testament": "doden",
    "zondebok": "na_brandstapel",
    "burgemeesterverkiezing": "burgemeesterverkiezing",
    "brandstapel": "brandstapel",
}
ACTION_KINDS: Final = tuple(ACTION_STEPS)

#: Rejection and parse error codes a story may meet (the rules' and the parser's).
ERROR_CODES: Final = (
    "no-game",
    "no-name",
    "too-many-names",
    "blanco-and-name",
    "ambiguous-name",
    "bad-signup",
    "bad-gender",
    "bad-name",
    "not-asked",
    "target-dead",
    "target-invalid",
    "repeat",
    "taken",
    "wrong-count",
    "blanco-not-allowed",
    "game-started",
    "name-taken",
    "not-a-player",
    "not-running",
    "game-paused",
    "rate-limited",
    "too-large",
    "game-full",
    "too-many-games",
    "not-authenticated",
    "reply-address",
    "unknown-player",
    "target-alive",
    "target-self",
    "pack-member",
    "potion-used",
    "no-special-vote",
    "something-new",
)


def sample_game(language: str, theme: str, step: str | None, **changes: Any) -> Game:
    """A mid-game sample: WW5, night 3 / day 2, a mayor, a deadline."""
    night, day = (0, 0) if step in vocab.START_STEPS or step is None else (3, 2)
    if step in vocab.DAY_STEPS and step != "burgemeesterverkiezing":
        day = 3
    fields: dict[str, Any] = {
        "name": "WW5",
        "language": language,
        "theme": theme,
        "step": step,
        "night": night,
        "day": day,
        "has_mayor": True,
        "mayor": "Bram",
        "deadline": _DEADLINE,
    }
    fields.update(changes)
    return Game(**fields)


def sample_action(kind: str, variant: int = 0) -> Action:
    """A sample action of `kind`; `variant` varies previous choices, potions and counts."""
    choices = ("Anna", "Bram", "Carla", "Frank")
    previous = ((), ("Bram",), ("blanco",))[variant % 3]
    if kind in ("cupido", "goochelaar"):
        return Action(kind, choices, 2, 2, previous=("Anna", "Bram") if variant % 2 else ())
    if kind == "fluitspeler":
        return Action(kind, choices, 1, 2, mates=((), ("Frank",))[variant % 2])
    if kind == "heks":
        potions = ((True, True), (True, False), (False, True))[variant % 3]
        wounded = (("Bram",), ("Anna", "Bram"), ())[variant % 3]
        return Action(kind, choices, 0, 2, wounded=wounded, elixir=potions[0], poison=potions[1])
    if kind == "zondebok":
        return Action(kind, choices, 0, len(choices))
    if kind in ("weerwolf", "vampier"):
        return Action(kind, choices, mates=((), ("Frank",), ("Frank", "Carla"))[variant % 3])
    if kind == "witte_weerwolf":
        return Action(kind, choices, keyword="witte")
    if kind == "testament":
        return Action(kind, choices, keyword="burgemeester" if variant % 2 else None)
    if kind == "grafrover":
        return Action(kind, ("Dirk", "Eva"))
    if kind in ("genezer", "klaas_vaak", "schout", "slet", "verleidster"):
        return Action(kind, choices, previous=previous)
    return Action(kind, choices)


def _recipients(subjects: tuple[str, ...]) -> tuple[str | None, ...]:
    return (None, subjects[0] if subjects else None, "Frank")


def _event_samples() -> dict[str, list[dict[str, Any]]]:
    """event type -> sample event dicts (without audience)."""
    samples: dict[str, list[dict[str, Any]]] = {
        "death": [{"player": p, "cause": c} for p in _SUBJECTS for c in vocab.CAUSES]
        + [{"player": "Bram", "cause": "weerwolven", "role": r} for r in vocab.ROLES]
        + [{"player": "Anna", "cause": c, "role": "heks"} for c in vocab.CAUSES],
        "saved": [{"player": p} for p in _SUBJECTS],
        "role_change": [{"player": "Anna", "role": r} for r in vocab.ROLES]
        + [{"player": "Bram", "role": "burger", "previous": "ziener"}],
        "lovers": [
            {"players": ["Anna", "Bram"]},
            {"players": ["Bram", "Frank"]},
            {"players": ["Anna", "Carla"]},
        ],
        "bodyguard": [{"player": "Anna", "guards": "Bram"}, {"player": "Bram", "guards": "Carla"}],
        "asleep": [{"player": p} for p in _SUBJECTS],
        "seen": [{"player": "Bram", "target": "Anna", "role": r} for r in vocab.ROLES]
        + [{"player": "Anna", "target": "Bram", "role": "weerwolf"}],
        "burns": [
            {"player": p, "target": t, "value": v}
            for p, t in (("Anna", "Bram"), ("Bram", "Anna"))
            for v in (True, False)
        ],
        "tally": [
            {"player": p, "pack": pack, "counts": counts}
            for p in _SUBJECTS
            for pack in ("weerwolven", "vampiers")
            for counts in ({}, {"Dirk": 1}, {"Dirk": 2, "Eva": 1}, {"Dirk": 1, "Eva": 1})
        ],
        "enchanted": [{"player": p} for p in _SUBJECTS],
        "warned": [{"player": p} for p in _SUBJECTS],
        "marked": [{"player": p} for p in _SUBJECTS],
        "jailed": [{"player": p} for p in _SUBJECTS],
        "guilty": [{"players": list(names)} for names in _LISTS],
        "mayor": [
            {"player": p, "via": via} for p in _SUBJECTS for via in ("election", "testament")
        ],
        "no_mayor": [{}],
        "fool_revealed": [{"player": p} for p in _SUBJECTS],
        "lynch": [
            {"player": None, "totals": {}},
            {"player": None, "totals": {"Anna": 2, "Bram": 2}},
            {"player": "Anna", "totals": {"Anna": 1}},
            {"player": "Bram", "totals": {"Bram": 2.5, "Anna": 1}},
            {
                "player": "Anna",
                "totals": {"Anna": 3, "Bram": 1},
                "votes": {"Bram": ["Anna"], "Carla": ["Anna"], "Frank": ["Bram"], "Anna": []},
            },
        ],
        "inactive": [{"player": p, "missed": m} for p in _SUBJECTS for m in (1, 2)],
        "rejected": [{"player": p, "reason": r} for p in _SUBJECTS for r in ERROR_CODES[8:]],
        "win": [
            {"teams": ["burgers"], "winners": ["Bram", "Carla", "Dirk"]},
            {"teams": ["weerwolven"], "winners": ["Anna"]},
            {"teams": ["lovers"], "winners": ["Anna", "Bram"]},
            {"teams": ["eigen"], "winners": ["Frank"]},
            {"teams": ["fluitspelers", "bodyguard"], "winners": ["Anna", "Bram", "Carla"]},
            {"teams": [], "winners": []},
        ],
    }
    return samples


_STEP_OF_EVENT: Final = {
    "lovers": "cupido",
    "bodyguard": "opdrachtgever",
    "asleep": "klaas_vaak",
    "enchanted": "heks",
    "warned": "ochtend",
    "marked": "ochtend",
    "jailed": "ochtend",
    "guilty": "na_brandstapel",
    "mayor": "burgemeesterverkiezing",
    "no_mayor": "burgemeesterverkiezing",
    "fool_revealed": "brandstapel",
    "lynch": "brandstapel",
    "win": "brandstapel",
}


def event_samples(key: StoryKey) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(context, event dict) pairs for the event `key.event`: both genders, every recipient
    (none, the subject, someone else), lists of one to three, every role and cause."""
    for index, fields in enumerate(_event_samples()[key.event]):
        event = {"type": key.event, "audience": "public", **fields}
        subjects = tuple(fields.get("players") or ()) or (
            (fields["player"],) if isinstance(fields.get("player"), str) else ()
        )
        step = _STEP_OF_EVENT.get(key.event, "nacht")
        game = sample_game(key.language, key.theme, step, has_mayor=bool(index % 2))
        for recipient in _recipients(subjects):
            context = {"game": game, "players": SAMPLE_PLAYERS, "recipient": recipient}
            yield context, event


def _mail_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    lang, theme = key.language, key.theme
    players = SAMPLE_PLAYERS
    if key.event == "signup_confirmed":
        for who in _SUBJECTS:
            for signups in ((), ("Anna",), ("Anna", "Bram", "Carla")):
                for replaced in (False, True):
                    yield {
                        "game": sample_game(lang, theme, None, deadline=None),
                        "players": (),
                        "recipient": who,
                        "player": {"name": who, "gender": "vrouw" if who == "Anna" else "man"},
                        "signups": signups,
                        "replaced": replaced,
                    }
    elif key.event == "role":
        for role in vocab.ROLES:
            for who, mates in (("Anna", ()), ("Bram", ("Frank",)), ("Anna", ("Frank", "Carla"))):
                for has_mayor in (True, False):
                    yield {
                        "game": sample_game(lang, theme, None, has_mayor=has_mayor, mayor=None),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "role": role,
                        "team": vocab.ROLE_TEAMS[role],
                        "mates": mates,
                    }
    elif key.event in ("step", "reminder"):
        for kind in ACTION_KINDS:
            for variant in range(3):
                for who in _SUBJECTS:
                    actions = [sample_action(kind, variant)]
                    if kind == "witte_weerwolf":
                        actions.insert(0, sample_action("weerwolf", variant))
                    if kind == "testament" and variant % 2:
                        actions.insert(0, sample_action("jager", variant))
                    context = {
                        "game": sample_game(lang, theme, ACTION_STEPS[kind]),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "actions": actions,
                    }
                    if key.event == "reminder":
                        context["missed"] = variant % 2
                    yield context
    elif key.event == "receipt":
        for kind in ACTION_KINDS:
            action = sample_action(kind)
            for targets, blanco, corrected in (
                ((), True, ()),
                (("Bram",), False, ()),
                (("Bram", "Carla"), False, (("brm", "Bram"),)),
            ):
                for who in _SUBJECTS:
                    yield {
                        "game": sample_game(lang, theme, ACTION_STEPS[kind]),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "action": action,
                        "targets": targets,
                        "blanco": blanco,
                        "corrected": corrected,
                    }
    elif key.event == "error":
        for code in ERROR_CODES:
            for variant in range(2):
                no_game = code in ("no-game", "bad-signup", "bad-gender", "bad-name")
                action = sample_action("ziener", 1) if variant else None
                yield {
                    "game": None if no_game and variant == 0 else sample_game(lang, theme, "nacht"),
                    "players": () if no_game else players,
                    "recipient": None if no_game else "Anna",
                    "player": None if no_game and variant == 0 else "Anna",
                    "code": code,
                    "message": "" if variant else "Die naam ken ik niet.",
                    "action": action,
                    "choices": action.choices if action else (),
                }
    elif key.event in ("night_result", "day_result"):
        steps = ("brandstapel", "burgemeesterverkiezing", "na_brandstapel")
        if key.event == "night_result":
            steps = ("cupido", "nacht", "heks", "doden", "ochtend")
        for step in steps:
            for stories in ((), ("Het verhaal.",), ("Eerst dit.", "Toen dat.\n\nEn zo.")):
                for who in (None, "Anna", "Bram"):
                    events = [{"type": "death", "player": "Dirk", "cause": "weerwolven"}]
                    yield {
                        "game": sample_game(lang, theme, step),
                        "players": players,
                        "recipient": who,
                        "stories": stories,
                        "events": events if stories else [],
                    }
    elif key.event == "game_over":
        roles = {"Anna": "weerwolf", "Bram": "ziener", "Carla": "heks", "Dirk": "burger"}
        roles |= {"Eva": "jager", "Frank": "cupido"}
        for win in _event_samples()["win"]:
            for who in (None, "Anna", "Bram"):
                yield {
                    "game": sample_game(lang, theme, "brandstapel"),
                    "players": players,
                    "recipient": who,
                    "winners": win["winners"],
                    "teams": win["teams"],
                    "roles": roles,
                    "alive": win["winners"][:1],
                    "mayor": "Bram" if who else None,
                }
    elif key.event == "help_forward":
        for game in (None, sample_game(lang, theme, "nacht")):
            for player in (None, "Anna", "Bram"):
                yield {
                    "game": game,
                    "players": players if game else (),
                    "recipient": None,
                    "sender": "anna@example.org",
                    "player": player,
                    "subject": "Help",
                    "body": "Ik snap de Heks niet.\n\nGroet, Anna",
                }


def mail_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    """Contexts for the mail `key.event`, covering genders, plurals, roles and actions."""
    yield from _mail_samples(key)


def preview_context(key: StoryKey) -> Any:
    """The first sample of `key`: a mail context, or (context, event) for an event."""
    if key.is_mail:
        return next(iter(mail_samples(key)))
    return next(iter(event_samples(key)))
