"""Template helpers: gendered words, role and team names, name lists, plurals, numbers, dates."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from stories import vocab
from stories.context import Cast, Player


class StoryError(Exception):
    """A template could not be compiled or rendered; the message says which and why."""


_DURATION = re.compile(r"^\s*(\d+)\s*([dhms])\s*$")


def ucfirst(text: str) -> str:
    """The text with its first letter upper-cased and the rest unchanged ("de Ziener" -> "De …")."""
    text = str(text)
    return text[:1].upper() + text[1:]


class Helpers:
    """The helper functions of one render: bound to the game's language, players and RNG."""

    def __init__(self, language: str, players: Sequence[Player], rng: random.Random) -> None:
        if language not in vocab.LANGUAGES:
            raise StoryError(f"no words for language {language!r} (have {vocab.LANGUAGES})")
        self.language = language
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
        """The helper for one pronoun of vocab.PRONOUNS (hij, hem, zijn, he, him, his…)."""
        man, vrouw = vocab.PRONOUNS[word]

        def helper(who: str | Player) -> str:
            return self._by_gender(who, man, vrouw)

        helper.__name__ = word
        return helper

    # -- roles, teams, steps ----------------------------------------------------------------
    def _role(self, role: str) -> vocab.RoleWords:
        words = vocab.ROLE_WORDS[self.language].get(str(role))
        if words is None:
            raise StoryError(f"unknown role {role!r}")
        return words

    def role_name(self, role: str, count: int | None = None) -> str:
        """The role's name, plural unless `count` is 1 when given: "Ziener", "Weerwolven"."""
        words = self._role(role)
        return words.name if count is None or count == 1 else words.plural

    def the_role(self, role: str, count: int | None = None) -> str:
        """With the definite article: "de Ziener", "het Onschuldige Meisje", "the Seer"."""
        words = self._role(role)
        return words.definite if count is None or count == 1 else words.definite_plural

    def a_role(self, role: str) -> str:
        """With the indefinite article: "een Ziener", "een Onschuldig Meisje", "a Seer"."""
        return self._role(role).indefinite

    def roles_count(self, role: str, count: int) -> str:
        """A counted role: "één Weerwolf", "drie Weerwolven", "two Seers"."""
        return f"{self.number(count)} {self.role_name(role, count)}"

    def team_name(self, team: str) -> str:
        """A team with its article: "de Burgers", "the Werewolves", "de Geliefden"."""
        words = vocab.TEAM_WORDS[self.language].get(str(team))
        if words is None:
            raise StoryError(f"unknown team {team!r}")
        return words

    def team_names(self, teams: Iterable[str]) -> str:
        """Several teams joined naturally: "de Burgers en de Geliefden"."""
        return self.names([self.team_name(team) for team in teams])

    def role_team(self, role: str) -> str:
        """The team id of a role (`burgers`, `weerwolven`, …)."""
        team = vocab.ROLE_TEAMS.get(str(role))
        if team is None:
            raise StoryError(f"unknown role {role!r}")
        return team

    # -- lists, numbers, plurals ----------------------------------------------------------
    def names(self, items: Iterable[Any], conjunction: str = "and") -> str:
        """Names joined naturally: "Anna, Bram en Cas"; `conjunction="or"` for "of"/"or"."""
        words = [str(i) for i in items]
        if not words:
            return vocab.NOBODY_WORDS[self.language]
        table = vocab.OR_WORDS if conjunction == "or" else vocab.AND_WORDS
        if len(words) == 1:
            return words[0]
        return f"{', '.join(words[:-1])} {table[self.language]} {words[-1]}"

    def number(self, n: int | float) -> str:
        """A number in words up to twelve ("drie", "three"), else in digits."""
        if isinstance(n, int) and 0 <= n < len(vocab.NUMBER_WORDS[self.language]):
            return vocab.NUMBER_WORDS[self.language][n]
        return self.num(n)

    def num(self, n: int | float) -> str:
        """A number in digits, with the language's decimal mark: "1,5" / "1.5"."""
        if isinstance(n, float) and n.is_integer():
            n = int(n)
        text = str(n)
        return text.replace(".", ",") if self.language == "nl" else text

    @staticmethod
    def plural(n: int | float, singular: str, plural: str) -> str:
        """`singular` when n is exactly 1, else `plural` (0, 1,5 and 2 take the plural)."""
        return singular if n == 1 else plural

    def count(self, n: int | float, singular: str, plural: str) -> str:
        """A counted noun: count(2, "stem", "stemmen") -> "twee stemmen"; 1,5 -> "1,5 stemmen"."""
        return f"{self.number(n)} {self.plural(n, singular, plural)}"

    # -- time ------------------------------------------------------------------------------
    def when(self, moment: dt.datetime | str | None) -> str:
        """A deadline as words: "dinsdag 18 november om 09:00" / "Tuesday 18 November at 09:00"."""
        if moment is None:
            return ""
        if isinstance(moment, str):
            moment = dt.datetime.fromisoformat(moment)
        weekday = vocab.WEEKDAYS[self.language][moment.weekday()]
        month = vocab.MONTHS[self.language][moment.month - 1]
        at = vocab.AT_WORDS[self.language]
        return f"{weekday} {moment.day} {month} {at} {moment:%H:%M}"

    def duration(self, value: str | int | dt.timedelta) -> str:
        """A duration as words: "2d" -> "twee dagen" / "two days"; "90s" -> "90 seconden"."""
        if isinstance(value, dt.timedelta):
            seconds = int(value.total_seconds())
        elif isinstance(value, int):
            seconds = value
        else:
            match = _DURATION.match(value)
            if match is None:
                return str(value)
            factor = {u[0]: u[1] for u in vocab.DURATION_UNITS}[match.group(2)]
            seconds = int(match.group(1)) * factor
        offset = 2 if self.language == "nl" else 4
        for unit in vocab.DURATION_UNITS:
            if seconds % unit[1] == 0 and seconds >= unit[1]:
                amount = seconds // unit[1]
                return self.count(amount, unit[offset], unit[offset + 1])
        return self.count(seconds, *vocab.DURATION_UNITS[-1][offset : offset + 2])

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
        for word in vocab.PRONOUNS:
            helper = self.pronoun(word)
            helpers[word] = helper
            helpers[ucfirst(word)] = _capitalised(helper)
        return helpers


def _capitalised(helper: Callable[[str | Player], str]) -> Callable[[str | Player], str]:
    def capitalised(who: str | Player) -> str:
        return ucfirst(helper(who))

    return capitalised


#: Names of every helper (for the known-variables check).
HELPER_NAMES = frozenset(Helpers("nl", (), random.Random(0)).as_dict())
