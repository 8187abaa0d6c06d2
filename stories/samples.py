"""Sample contexts for every event and mail, from the ruleset's `stories/<ruleset>/samples.toml`.

The data (players, actions, events, steps) belongs to the ruleset's pack; this module only
expands it into contexts: every gender, plural and role case a story meets.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any, Final

from rules.core.registry import get_ruleset, ruleset_ids
from stories.context import Action, Game, Player
from stories.keys import StoryKey
from stories.pack import Pack, PackError, load_pack
from stories.words import languages_of, load_words

#: Sample players when a ruleset has none (and for checks that need a cast of their own).
SAMPLE_PLAYERS: Final = (
    Player("Anna", "vrouw"),
    Player("Bram", "man"),
    Player("Carla", "vrouw"),
    Player("Dirk", "man", alive=False),
    Player("Eva", "vrouw", alive=False),
    Player("Frank", "man"),
)
_SUBJECTS: Final = ("Anna", "Bram")  # one woman, one man
#: A big game's sample (stories.layout.BIG_GAME): the sample players and these many more, all
#: alive, with the pages' links, so that `stories check` renders the summed-up step mail.
BIG_SAMPLE_EXTRA: Final = 54
BIG_PAGE_LINK: Final = "https://narrator.example.org/p/SAMPLE"
BIG_GAME_LINK: Final = "https://narrator.example.org/games/WW5"
_DEADLINE: Final = dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC)


def _fail(pack: Pack, key: str, problem: str) -> PackError:
    return PackError(f"{pack.origin or pack.ruleset}: {key}: {problem}")


def _table(pack: Pack, *path: str) -> Mapping[str, Any]:
    value: Any = pack.data
    for part in path:
        value = value.get(part, {}) if isinstance(value, Mapping) else None
    if not isinstance(value, Mapping):
        raise _fail(pack, ".".join(path), "must be a table")
    return value


@cache
def _id_sets(ruleset: str) -> Mapping[str, tuple[str, ...]]:
    """The named id sets a `for_each` may use."""
    if ruleset not in ruleset_ids():
        return {}
    rules = get_ruleset(ruleset)
    never = set(_table(load_pack(ruleset), "roles").get("never_told", ()))
    return {
        "roles": tuple(rules.roles),
        "told_roles": tuple(r for r in rules.roles if r not in never),
        "causes": rules.causes,
        "teams": rules.teams,
        "steps": rules.steps,
    }


def expand(pack: Pack, sample: Mapping[str, Any], where: str) -> Iterator[dict[str, Any]]:
    """The samples one entry stands for: its `for_each` fields in every combination.

    A string instead of a list of values names an id set (roles, told_roles, causes, …).
    The empty string stands for None (TOML has no null).
    """
    fixed = {k: (None if v == "" else v) for k, v in sample.items() if k != "for_each"}
    each = sample.get("for_each", {})
    if not isinstance(each, Mapping):
        raise _fail(pack, f"{where}.for_each", "must be a table")
    names = list(each)
    choices = []
    for name in names:
        values = each[name]
        if isinstance(values, str):
            sets = _id_sets(pack.ruleset)
            if values not in sets:
                raise _fail(pack, f"{where}.for_each.{name}", f"no id set {values!r}")
            values = sets[values]
        choices.append(list(values))
    for combination in itertools.product(*choices):
        yield {**fixed, **dict(zip(names, combination, strict=True))}


@cache
def sample_players(ruleset: str) -> tuple[Player, ...]:
    """The pack's sample players (Anna, Bram, …), or the generic ones."""
    rows = load_pack(ruleset).data.get("players")
    if not rows:
        return SAMPLE_PLAYERS
    return tuple(Player.from_any(row) for row in rows)


def _phase_of(pack: Pack, step: str | None) -> tuple[str | None, int, int]:
    phases = _table(pack, "phases")
    for phase, spec in phases.items():
        if step is not None and step in spec.get("steps", ()):
            return phase, int(spec.get("night", 0)), int(spec.get("day", 0))
    return None, 0, 0


def sample_game(key: StoryKey, step: str | None, **changes: Any) -> Game:
    """A mid-game sample of the key's ruleset at `step` (its phase and counters), a deadline."""
    pack = load_pack(key.ruleset)
    game = dict(_table(pack, "game"))
    deadline = game.pop("deadline", _DEADLINE)
    phase, night, day = _phase_of(pack, step)
    fields: dict[str, Any] = {
        "name": "WW5",
        "ruleset": key.ruleset,
        "language": key.language,
        "theme": key.theme,
        "step": step,
        "phase": phase,
        "night": night,
        "day": day,
        "deadline": deadline,
        **game,
    }
    fields.update(changes)
    return Game(**fields)


def action_kinds(ruleset: str) -> tuple[str, ...]:
    """The action kinds a step mail of `ruleset` meets: the rules' own ids (the ruleset's
    ``action_kinds``), so that no kind a live game asks escapes the samples; not a role's
    that no player is told he has (``[roles] never_told``: the Dwaas is asked as the Ziener).
    The pack's ``[actions.<kind>]`` tables give each kind its step and variants.  For a ruleset
    the rules do not know, the kinds of those tables."""
    if ruleset in ruleset_ids():
        never = set(_table(load_pack(ruleset), "roles").get("never_told", ()))
        return tuple(k for k in get_ruleset(ruleset).action_kinds if k not in never)
    return sampled_kinds(ruleset)


def sampled_kinds(ruleset: str) -> tuple[str, ...]:
    """The action kinds the pack's samples have a table ``[actions.<kind>]`` for."""
    actions = _table(load_pack(ruleset), "actions")
    return tuple(kind for kind, spec in actions.items() if isinstance(spec, Mapping))


def _variants(pack: Pack, kind: str) -> Sequence[Mapping[str, Any]]:
    spec = _table(pack, "actions", kind)
    variants = spec.get("variants") or [{}]
    if not isinstance(variants, list):
        raise _fail(pack, f"actions.{kind}.variants", "must be a list of tables")
    return variants


def sample_action(ruleset: str, kind: str, variant: int = 0) -> Action:
    """A sample action of `kind` (its `variant`, cycling): choices, counts, previous, extra."""
    pack = load_pack(ruleset)
    spec = dict(_variants(pack, kind)[variant % len(_variants(pack, kind))])
    spec.pop("before", None)
    choices = _table(pack, "actions").get("choices", [p.name for p in SAMPLE_PLAYERS])
    return Action.from_any({"kind": kind, "choices": choices, **spec})


def sample_actions(ruleset: str, kind: str, variant: int) -> list[Action]:
    """The actions one step mail asks: the sample action, after any `before` action (of the
    same variant number)."""
    pack = load_pack(ruleset)
    variants = _variants(pack, kind)
    spec = variants[variant % len(variants)]
    actions = [sample_action(ruleset, kind, variant)]
    if "before" in spec:
        actions.insert(0, sample_action(ruleset, spec["before"], variant))
    return actions


def _sample_move(
    written: str,
    action: Any,
    targets: tuple[str, ...],
    *,
    blanco: bool = False,
    corrected: tuple[tuple[str, str], ...] = (),
    refused: str = "",
) -> dict[str, Any]:
    """One move of a receipt's `moves` (a mail of several): as the narrator tells it."""
    return {
        "written": written,
        "refused": refused,
        "code": "no-name" if refused else "",
        "action": action,
        "targets": targets,
        "blanco": blanco,
        "corrected": corrected,
    }


def _step_of_action(pack: Pack, kind: str) -> str | None:
    step = _table(pack, "actions", kind).get("step")
    return None if step is None else str(step)


def step_of_action(ruleset: str, kind: str) -> str | None:
    """The step the samples ask the action `kind` in (None: the pack gives none)."""
    return _step_of_action(load_pack(ruleset), kind)


def _recipients(subjects: tuple[str, ...]) -> tuple[str | None, ...]:
    return (None, subjects[0] if subjects else None, "Frank")


@cache
def _event_samples(ruleset: str, event: str) -> tuple[Mapping[str, Any], ...]:
    pack = load_pack(ruleset)
    entries = _table(pack, "events").get(event, [])
    return tuple(
        sample
        for number, entry in enumerate(entries)
        for sample in expand(pack, entry, f"events.{event}[{number}]")
    )


def has_event_samples(ruleset: str, event: str) -> bool:
    """Whether the pack's samples have at least one ``[[events.<event>]]``."""
    return bool(_event_samples(ruleset, event))


def event_samples(key: StoryKey) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(context, event dict) pairs for the event `key.event`: both genders, every recipient
    (none, the subject, someone else), lists of one to three, every role and cause."""
    pack = load_pack(key.ruleset)
    steps = _table(pack, "event_steps")
    step = steps.get(key.event, steps.get("default"))
    players = sample_players(key.ruleset)
    for index, fields in enumerate(_event_samples(key.ruleset, key.event)):
        event = {"type": key.event, "audience": "public", **fields}
        subjects = tuple(fields.get("players") or ()) or (
            (fields["player"],) if isinstance(fields.get("player"), str) else ()
        )
        game = sample_game(key, step, has_mayor=bool(index % 2))
        for recipient in _recipients(subjects):
            yield {"game": game, "players": players, "recipient": recipient}, event


def big_players(ruleset: str) -> tuple[Player, ...]:
    """The sample players of a big game: the ruleset's, and :data:`BIG_SAMPLE_EXTRA` more."""
    extra = (
        Player(f"Gast{n:02d}", "vrouw" if n % 2 else "man") for n in range(1, BIG_SAMPLE_EXTRA + 1)
    )
    return (*sample_players(ruleset), *extra)


def big_mail_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    """A big game's step or reminder mail asking each action kind (:func:`big_sample`), role
    mail (:func:`big_role_sample`) and error replies (:func:`big_error_samples`); none for the
    other mails.  `stories check` renders them besides :func:`mail_samples`."""
    if not _has_words(key):
        return
    if key.event in ("step", "reminder"):
        for kind in action_kinds(key.ruleset):
            yield big_sample(key, kind)
    elif key.event == "role":
        yield big_role_sample(key)
    elif key.event == "error":
        yield from big_error_samples(key)


def big_role_sample(key: StoryKey) -> dict[str, Any]:
    """The role mail of a big game at its start: the first role the ruleset tells, the big
    sample players (:func:`big_players`), the reader's page and the game's."""
    rules = get_ruleset(key.ruleset)
    role = _id_sets(key.ruleset)["told_roles"][0]
    facts: Sequence[Mapping[str, Any]] = _table(load_pack(key.ruleset), "mails").get(
        "role_facts"
    ) or ({},)
    players = big_players(key.ruleset)
    return {
        "game": sample_game(key, None, mayor=None),
        "players": players,
        "recipient": players[0].name,
        "player": players[0].name,
        "role": role,
        "team": rules.roles[role].team,
        "mates": (),
        "announced": (),
        "facts": facts[0],
        "page_link": BIG_PAGE_LINK,
        "game_link": BIG_GAME_LINK,
    }


def big_error_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    """A big game's error replies that give the choices: a refused vote (its action and every
    living player to choose from, as the rules refuse it) and a mail the parser could not
    read (the valid names, no action), with the reader's page and the game's."""
    players = big_players(key.ruleset)
    pack = load_pack(key.ruleset)
    kinds = action_kinds(key.ruleset)
    kind = str(_table(pack, "actions").get("error_action", kinds[0] if kinds else ""))
    if not kind:
        return
    living = tuple(p.name for p in players if p.alive)
    action = replace(sample_action(key.ruleset, kind, 1), choices=living)
    for code, asked in (("wrong-count", action), ("too-many-names", None)):
        yield {
            "game": sample_game(key, _step_of_action(pack, kind)),
            "players": players,
            "recipient": players[0].name,
            "player": players[0].name,
            "code": code,
            "message": "",
            "action": asked,
            "choices": living,
            "page_link": BIG_PAGE_LINK,
            "game_link": BIG_GAME_LINK,
        }


def big_sample(key: StoryKey, kind: str) -> dict[str, Any]:
    """A step (or reminder) mail of a big game asking `kind`: every action's choices with the
    extra players, the reader's page and the game's, a player who died in the step told."""
    players = big_players(key.ruleset)
    extra = tuple(p.name for p in players[-BIG_SAMPLE_EXTRA:])
    actions = [
        replace(a, choices=(*a.choices, *extra)) if a.choices and a.max > 0 else a
        for a in sample_actions(key.ruleset, kind, 0)
    ]
    dead = [p.name for p in players if not p.alive]
    context: dict[str, Any] = {
        "game": sample_game(key, step_of_action(key.ruleset, kind)),
        "players": players,
        "recipient": players[0].name,
        "player": players[0].name,
        "actions": actions,
        "page_link": BIG_PAGE_LINK,
        "game_link": BIG_GAME_LINK,
        "fallen": dead[:1],
    }
    if key.event == "reminder":
        context["missed"] = 0
    return context


def _mail_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    pack = load_pack(key.ruleset)
    mails = _table(pack, "mails")
    players = sample_players(key.ruleset)
    if key.event == "signup_confirmed":
        genders = {p.name: p.gender for p in players}
        for who in _SUBJECTS:
            for signups in ((), ("Anna",), ("Anna", "Bram", "Carla")):
                for replaced in (False, True):
                    yield {
                        "game": sample_game(key, None, deadline=None),
                        "players": (),
                        "recipient": who,
                        "player": {"name": who, "gender": genders.get(who, "man")},
                        "signups": signups,
                        "replaced": replaced,
                    }
    elif key.event == "role":
        rules = get_ruleset(key.ruleset)
        number = 0
        announced = mails.get("role_announced", ())
        facts: Sequence[Mapping[str, Any]] = mails.get("role_facts") or ({},)
        for role in _id_sets(key.ruleset)["told_roles"]:
            for who, mates in (("Anna", ()), ("Bram", ("Frank",)), ("Anna", ("Frank", "Carla"))):
                for has_mayor in (True, False):
                    yield {
                        "game": sample_game(key, None, has_mayor=has_mayor, mayor=None),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "role": role,
                        "team": rules.roles[role].team,
                        "mates": mates,
                        # the public start events, in every other sample (none: Wakkerdam)
                        "announced": announced if has_mayor else (),
                        # the role event's other fields, each set of [mails] role_facts in turn
                        "facts": facts[number % len(facts)],
                    }
                    number += 1
    elif key.event in ("step", "reminder"):
        for kind in action_kinds(key.ruleset):
            for variant in range(max(3, len(_variants(pack, kind)))):
                for who in _SUBJECTS:
                    context = {
                        "game": sample_game(key, _step_of_action(pack, kind)),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "actions": sample_actions(key.ruleset, kind, variant),
                    }
                    if key.event == "reminder":
                        context["missed"] = variant % 2
                    yield context
    elif key.event == "receipt":
        said = mails.get("receipt_keywords", {})
        for kind in action_kinds(key.ruleset):
            action = sample_action(key.ruleset, kind)
            keywords = tuple(said.get(kind, (action.keyword,) if action.keyword else ()))
            for targets, blanco, corrected in (
                ((), True, ()),
                (("Bram",), False, ()),
                (("Bram", "Carla"), False, (("brm", "Bram"),)),
            ):
                for who in _SUBJECTS:
                    yield {
                        "game": sample_game(key, _step_of_action(pack, kind)),
                        "players": players,
                        "recipient": who,
                        "player": who,
                        "action": action,
                        "targets": targets,
                        "blanco": blanco,
                        "corrected": corrected,
                        "keywords": () if blanco else keywords,
                    }
            # A mail of several moves: one recorded (a name corrected), one blank, one refused.
            moves = (
                _sample_move("Bram", action, ("Bram",), corrected=(("brm", "Bram"),)),
                _sample_move("nobody", action, (), blanco=True),
                _sample_move("Xyzzy", None, (), refused="No player is called Xyzzy."),
            )
            yield {
                "game": sample_game(key, _step_of_action(pack, kind)),
                "players": players,
                "recipient": "Anna",
                "player": "Anna",
                "action": action,
                "targets": ("Bram",),
                "blanco": False,
                "corrected": (),
                "moves": moves,
            }
    elif key.event == "error":
        codes = list(load_words(key.ruleset, key.language).errors) if _has_words(key) else []
        codes += [c for c in mails.get("error_codes", ()) if c not in codes]
        no_game_codes = set(mails.get("no_game_codes", ()))
        kinds = action_kinds(key.ruleset)
        error_kind = str(_table(pack, "actions").get("error_action", kinds[0] if kinds else ""))
        error_step = _step_of_action(pack, error_kind) if error_kind else None
        for code in codes:
            for variant in range(2):
                no_game = code in no_game_codes
                asked = sample_action(key.ruleset, error_kind, 1) if variant and kinds else None
                yield {
                    "game": None if no_game and variant == 0 else sample_game(key, error_step),
                    "players": () if no_game else players,
                    "recipient": None if no_game else "Anna",
                    "player": None if no_game and variant == 0 else "Anna",
                    "code": code,
                    "message": "" if variant else str(mails.get("error_message", "")),
                    "action": asked,
                    "choices": asked.choices if asked else (),
                }
    elif key.event in ("night_result", "day_result"):
        event = dict(mails.get("story_event", {}))
        for told_step in mails.get(key.event, ()):
            for stories in ((), ("Het verhaal.",), ("Eerst dit.", "Toen dat.\n\nEn zo.")):
                for reader in (None, "Anna", "Bram"):
                    # a private story (what only this reader may know) has a reader
                    for private in (False, True) if reader else (False,):
                        # told as the game master's announcement mid-step (a removal)
                        for announcement in (False, True):
                            yield {
                                "game": sample_game(key, told_step),
                                "players": players,
                                "recipient": reader,
                                "stories": stories,
                                "events": [event] if stories and event else [],
                                "private": private,
                                "announcement": announcement,
                            }
    elif key.event == "game_over":
        roles = dict(_table(pack, "roles").get("at_the_end", {}))
        last = mails.get("game_over_step")
        for win in _event_samples(key.ruleset, "win") or ({"winners": [], "teams": []},):
            for reader in (None, "Anna", "Bram"):
                yield {
                    "game": sample_game(key, last),
                    "players": players,
                    "recipient": reader,
                    "winners": win["winners"],
                    "teams": win["teams"],
                    "roles": roles,
                    "alive": list(win["winners"])[:1],
                    "mayor": "Bram" if reader else None,
                }
    elif key.event == "help_received":
        for game, over in (
            (None, False),
            *((sample_game(key, mails.get("help_step")), o) for o in (False, True)),
        ):
            for player in (None, "Anna"):
                yield {
                    "game": game,
                    "players": players if game else (),
                    "recipient": player,
                    "player": player,
                    "subject": "Help",
                    "over": over,
                }
    elif key.event == "epilogue":
        yield from _epilogue_samples(key)
    elif key.event == "help_digest":
        for player in (None, "Anna"):
            yield {  # at the first held Help
                "game": None,
                "players": (),
                "recipient": None,
                "sender": "anna@example.org",
                "player": player,
                "forwarded": 10,
                "held": 1,
                "subjects": ["Help"],
                "closing": False,
                "hour": None,
            }
            yield {  # once the hour is over: the others held
                "game": None,
                "players": (),
                "recipient": None,
                "sender": "anna@example.org",
                "player": player,
                "forwarded": 10,
                "held": 3,
                "subjects": ["Help", ""],
                "closing": True,
                "hour": "2026-11-18 09:00 UTC",
            }
    elif key.event == "help_forward":
        for game in (None, sample_game(key, mails.get("help_step"))):
            for player in (None, "Anna", "Bram"):
                yield {
                    "game": game,
                    "players": players if game else (),
                    "recipient": None,
                    "sender": "anna@example.org",
                    "player": player,
                    "subject": "Help",
                    "body": str(mails.get("help_body", "Help!")),
                }


def _epilogue_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    """The epilogue with chapters made of the pack's event samples, each in its step (the
    k-th sample of every event type in the k-th context), and votes of two roles."""
    from stories.render import moment_of  # the renderer imports the samples' module

    pack = load_pack(key.ruleset)
    mails = _table(pack, "mails")
    steps = _table(pack, "event_steps")
    words = load_words(key.ruleset, key.language) if _has_words(key) else None
    roles = dict(_table(pack, "roles").get("at_the_end", {}))
    types = [t for t in get_ruleset(key.ruleset).event_types if _event_samples(key.ruleset, t)]
    longest = max((len(_event_samples(key.ruleset, t)) for t in types), default=0)
    voters = list(roles)[:2]
    for k in range(min(longest, 4)):
        by_step: dict[str, list[dict[str, Any]]] = {}
        for kind in types:
            samples = _event_samples(key.ruleset, kind)
            step = str(steps.get(kind, steps.get("default")))
            by_step.setdefault(step, []).append({"type": kind, **samples[k % len(samples)]})
        chapters = []
        for step, events in by_step.items():
            game = sample_game(key, step)
            chapters.append(
                {
                    "moment": moment_of(game, words) if words is not None else "",
                    "step": step,
                    "phase": game.phase,
                    "events": events,
                    "votes": [
                        {"player": name, "role": roles[name], "targets": targets, "keyword": ""}
                        for name, targets in zip(voters, ([voters[-1]], []), strict=False)
                    ]
                    if k % 2
                    else [],
                }
            )
        yield {
            "game": sample_game(key, mails.get("game_over_step")),
            "players": sample_players(key.ruleset),
            "recipient": None,
            "chapters": chapters if k < 3 else [],
            "dealt": roles,
            "roles": roles,
            "winners": list(roles)[:1],
            "teams": [],
        }


def _has_words(key: StoryKey) -> bool:
    return key.language in languages_of(key.ruleset)


def mail_samples(key: StoryKey) -> Iterator[dict[str, Any]]:
    """Contexts for the mail `key.event`, covering genders, plurals, roles and actions."""
    yield from _mail_samples(key)


def preview_context(key: StoryKey) -> Any:
    """The first sample of `key`: a mail context, or (context, event) for an event."""
    if key.is_mail:
        return next(iter(mail_samples(key)))
    return next(iter(event_samples(key)))
