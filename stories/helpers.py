"""Template helpers: gendered words, role and team names, name lists, plurals, numbers, dates."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rules.core.registry import UnknownRuleset, get_ruleset
from stories import vocab
from stories.context import Cast, Player
from stories.words import RoleWords, Words


class StoryError(Exception):
    """A template could not be compiled or rendered; the message says which and why."""


_DURATION = re.compile(r"^\s*(\d+)\s*([dhms])\s*$")
_SECONDS = {suffix: size for suffix, size, _ in vocab.DURATION_UNITS}


def ucfirst(text: str) -> str:
    """The text with its first letter upper-cased and the rest unchanged ("de Ziener" -> "De …")."""
    text = str(text)
    return text[:1].upper() + text[1:]


class Helpers:
    """The helper functions of one render: bound to the pack's words, the players and the RNG."""

    def __init__(self, words: Words, players: Sequence[Player], rng: random.Random) -> None:
        self.words = words
        self.language = words.language
        self.locale = words.locale
        cast = players if isinstance(players, Cast) else Cast(players)
        self._players = cast._by_folded  # shared with the cast: it is never changed
        self._rng = rng

    # -- players and gender -------------------------------------------------------------
    def player(self, who: str | Player) -> Player:
        """The Player called `who` (a name or a Player)."""
        if isinstance(who, Player):
            return who
        found = self._players.get(str(who).casefold())
        if found is None:
            raise StoryError(f"no player called {who!r} in this game")
        return found

    def _by_gender(self, who: str | Player, man: str, vrouw: str) -> str:
        return man if self.player(who).gender == "man" else vrouw

    def gendered(self, who: str | Player, man: str, vrouw: str) -> str:
        """`man` or `vrouw` word depending on the player's gender: g(x, "koning", "koningin")."""
        return self._by_gender(who, man, vrouw)

    def pronoun(self, word: str) -> Callable[[str | Player], str]:
        """The helper for one pronoun of the words' [pronouns] (hij, hem, zijn, he, him, his…)."""
        man, vrouw = self.words.pronouns[word]

        def helper(who: str | Player) -> str:
            return self._by_gender(who, man, vrouw)

        helper.__name__ = word
        return helper

    # -- roles, teams, causes, steps --------------------------------------------------------
    def _role(self, role: str) -> RoleWords:
        words = self.words.roles.get(str(role))
        if words is None:
            raise StoryError(f"unknown role {role!r}")
        return words

    def _of_woman(self, words: RoleWords, who: str | Player | None) -> bool:
        """Whether the role is named for `who`, a woman, in the forms her language has."""
        return bool(words.feminine) and who is not None and self.player(who).gender == "vrouw"

    def role_name(
        self, role: str, count: int | None = None, who: str | Player | None = None
    ) -> str:
        """The role's name, plural unless `count` is 1 when given: "Ziener", "Weerwolven"; the
        name for `who` when given (a woman: "Veggente" as the feminine of a language has it)."""
        words = self._role(role)
        if self._of_woman(words, who) and (count is None or self._is_one(count)):
            return words.feminine
        return words.name if count is None or self._is_one(count) else words.plural

    def the_role(self, role: str, count: int | None = None, who: str | Player | None = None) -> str:
        """With the definite article: "de Ziener", "het Onschuldige Meisje", "the Seer"; for
        `who` when given ("la Veggente")."""
        words = self._role(role)
        if self._of_woman(words, who) and (count is None or self._is_one(count)):
            return words.feminine_definite
        return words.definite if count is None or self._is_one(count) else words.definite_plural

    def a_role(self, role: str, who: str | Player | None = None) -> str:
        """With the indefinite article: "een Ziener", "een Onschuldig Meisje", "a Seer"; for
        `who` when given (a woman: "una Veggente")."""
        words = self._role(role)
        return words.feminine_indefinite if self._of_woman(words, who) else words.indefinite

    def roles_count(self, role: str, count: int) -> str:
        """A counted role: "één Weerwolf", "drie Weerwolven", "two Seers"."""
        return f"{self.number(count)} {self.role_name(role, count)}"

    def team_name(self, team: str) -> str:
        """A team with its article: "de Burgers", "the Werewolves", "de Geliefden"."""
        words = self.words.teams.get(str(team))
        if words is None:
            raise StoryError(f"unknown team {team!r}")
        return words

    def team_names(self, teams: Iterable[str]) -> str:
        """Several teams joined naturally: "de Burgers en de Geliefden"."""
        return self.names([self.team_name(team) for team in teams])

    def role_team(self, role: str) -> str:
        """The team id of a role, from the ruleset (`burgers`, `weerwolven`, …)."""
        try:
            spec = get_ruleset(self.words.ruleset).roles.get(str(role))
        except UnknownRuleset:
            spec = None
        if spec is None:
            raise StoryError(f"unknown role {role!r}")
        return spec.team

    def choice(self, item: str) -> str:
        """How a move's choice reads: a player's name as it is, a role or team id by its name in
        the pack ("doctor" -> "Доктор", "red" -> "the reds"; a Mafia ``request`` names a role,
        an Agent's ``side`` a team), anything else as it is."""
        text = str(item)
        if text.casefold() in self._players:
            return text
        role = self.words.roles.get(text)
        if role is not None:
            return role.name
        return self.words.teams.get(text, text)

    def choice_names(self, items: Iterable[str]) -> list[str]:
        """``choice`` of each item, for ``names(choice_names(targets))`` or a list of choices
        (not ``choices``: the error mail's field of that name lists the valid choices).

        A day vote offers every living player (a thousand in a big game, in every reader's
        mail): only an item that is a role or team id is looked at further."""
        ids = self.words.roles.keys() | self.words.teams.keys()
        return [self.choice(item) if item in ids else str(item) for item in items]

    def cause_name(self, cause: str) -> str:
        """How a death came: "door de Weerwolven", "by the Witch's poison"."""
        words = self.words.causes.get(str(cause))
        if words is None:
            raise StoryError(f"unknown death cause {cause!r}")
        return words

    def step_name(self, step: str) -> str:
        """A step's name: "de nacht", "the Stake"."""
        words = self.words.steps.get(str(step))
        if words is None:
            raise StoryError(f"unknown step {step!r}")
        return words.name

    def error_text(self, code: str, params: Mapping[str, Any] | None = None) -> str:
        """The wording of an error code ([errors] of words.toml), `{param}`s from `params`."""
        return self.words.error_text(str(code), params)

    # -- lists, numbers, plurals ----------------------------------------------------------
    def names(self, items: Iterable[Any], conjunction: str = "and") -> str:
        """Names joined naturally: "Anna, Bram en Cas"; `conjunction="or"` for "of"/"or"."""
        words = [str(i) for i in items]
        if not words:
            return self.words.nobody
        return vocab.join(words, self.locale, "or" if conjunction == "or" else "standard")

    def number(self, n: int | float) -> str:
        """A number in words up to the pack's list ("drie", "three"), else in digits."""
        if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < len(self.words.numbers):
            return self.words.numbers[n]
        return self.num(n)

    def num(self, n: int | float) -> str:
        """A number in digits, with the language's decimal mark: "1,5" / "1.5"."""
        return vocab.number(n, self.words.cldr)

    def _is_one(self, n: int | float) -> bool:
        return vocab.plural_category(n, self.words.cldr) == "one"

    def plural(self, n: int | float, *forms: str) -> str:
        """The form for `n` by the language's plural rules: plural(n, "stem", "stemmen");
        Russian gives three forms (one, few, many)."""
        try:
            return vocab.plural(n, self.words.cldr, forms)
        except ValueError as error:
            raise StoryError(str(error)) from None

    def count(self, n: int | float, *forms: str) -> str:
        """A counted noun: count(2, "stem", "stemmen") -> "twee stemmen"; 1,5 -> "1,5 stemmen"."""
        return f"{self.number(n)} {self.plural(n, *forms)}"

    # -- time ------------------------------------------------------------------------------
    def when(self, moment: dt.datetime | str | None) -> str:
        """A deadline as words: "dinsdag 18 november om 09:00" / "Tuesday 18 November at 09:00"."""
        if moment is None:
            return ""
        if isinstance(moment, str):
            moment = dt.datetime.fromisoformat(moment)
        return vocab.when(moment, self.words.when, self.words.cldr)

    def duration(self, value: str | int | dt.timedelta, words: bool = True) -> str:
        """A duration as words: "2d" -> "twee dagen" / "two days"; "90s" -> "90 seconden".

        ``words=False`` keeps the digits ("1 минута", "2 минуты"): the pack's number words
        have no grammatical gender, and Russian says "одна минута" but "один час"."""
        if isinstance(value, dt.timedelta):
            seconds = int(value.total_seconds())
        elif isinstance(value, int):
            seconds = value
        else:
            match = _DURATION.match(value)
            if match is None:
                return str(value)
            seconds = int(match.group(1)) * _SECONDS[match.group(2)]
        amount, unit = vocab.split_duration(seconds)
        written = self.number(amount) if words else None
        return vocab.duration_unit(amount, unit, self.words.cldr, written)

    # -- randomness -------------------------------------------------------------------------
    def pick(self, *options: Any) -> Any:
        """One of the options, drawn with the render's seeded RNG (reproducible)."""
        if len(options) == 1 and isinstance(options[0], list | tuple):
            options = tuple(options[0])
        if not options:
            raise StoryError("pick() needs at least one option")
        return self._rng.choice(options)

    # -- lookups over mappings --------------------------------------------------------------
    @staticmethod
    def ranked(counts: Mapping[str, float]) -> list[tuple[str, float]]:
        """(name, count) pairs, most first, ties in the given order."""
        items = list(counts.items())
        return sorted(items, key=lambda item: -item[1])

    def as_dict(self) -> dict[str, Any]:
        """Every helper by the name templates use (see docs/stories.md)."""
        helpers: dict[str, Any] = {
            "player": self.player,
            "g": self.gendered,
            "role_name": self.role_name,
            "the_role": self.the_role,
            "a_role": self.a_role,
            "roles_count": self.roles_count,
            "team_name": self.team_name,
            "team_names": self.team_names,
            "role_team": self.role_team,
            "choice": self.choice,
            "choice_names": self.choice_names,
            "cause_name": self.cause_name,
            "step_name": self.step_name,
            "error_text": self.error_text,
            "names": self.names,
            "number": self.number,
            "num": self.num,
            "plural": self.plural,
            "count": self.count,
            "when": self.when,
            "duration": self.duration,
            "pick": self.pick,
            "ranked": self.ranked,
            "ucfirst": ucfirst,
        }
        for word in self.words.pronouns:
            helper = self.pronoun(word)
            helpers[word] = helper
            helpers[ucfirst(word)] = _capitalised(helper)
        return helpers


def _capitalised(helper: Callable[[str | Player], str]) -> Callable[[str | Player], str]:
    def capitalised(who: str | Player) -> str:
        return ucfirst(helper(who))

    return capitalised


def helper_names(words: Words) -> frozenset[str]:
    """Names of every helper a template of these words sees (for the known-variables check)."""
    return frozenset(Helpers(words, (), random.Random(0)).as_dict())
