"""A player's own page: the public game, and what his mails told him alone.

:func:`private_page` reads the game of a valid token (:mod:`narrator.web.tokens`) in a unit of
work: his role card (role, team and the mates he knows, as his role mail tells them now, from
the stored rules state), his private news step by step (his private story mails as the post
office stored them when it mailed them, like the village's), his votes of the current step,
and what he may do now.  Nothing is replayed from the game log.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from narrator.models import Game, Player
from narrator.service.story_context import actions_of
from narrator.service.table import table_of
from narrator.service.work import Work
from narrator.web.public import PublicGame, Section, role_name, told_game
from narrator.web.tokens import Seat
from stories.helpers import ucfirst
from stories.words import Words


@dataclass(frozen=True)
class Asked:
    """One thing he may do now: its title, the names he may choose, its keyword and blank
    word (the words he writes), and the rules' own terms (for the JSON)."""

    title: str
    choices: tuple[str, ...]
    keyword: str | None
    blank: str | None
    data: Mapping[str, Any]


@dataclass(frozen=True)
class PrivatePage:
    """One player's page (see the module docstring)."""

    game: PublicGame
    player: str
    alive: bool
    role: str | None
    role_name: str | None
    team: str | None
    team_name: str | None
    mates: tuple[str, ...]
    news: tuple[Section, ...]
    votes: tuple[tuple[str, str], ...]  # (what he voted on, what he voted) this step
    asked: tuple[Asked, ...]

    def to_json(self) -> dict[str, Any]:
        """The keys of ``/p/{token}.json``: the game's, and his own (docs/web.md)."""
        return {
            **self.game.to_json(),
            "player": self.player,
            "role": self.role,
            "team": self.team,
            "mates": list(self.mates),
            "asked": bool(self.asked),
            "choices": [dict(asked.data) for asked in self.asked],
        }


def seat_of(work: Work, seat: Seat) -> tuple[Game, Player] | None:
    """The game and player a token names (None: no such seat, or a revoked link: one of
    another generation than the player's ``page_generation``)."""
    game = work.session.get(Game, seat.game_id)
    player = work.session.get(Player, seat.player_id)
    if game is None or player is None or player.game_id != game.id:
        return None
    if player.page_generation != seat.generation:
        return None
    return game, player


def private_page(work: Work, game: Game, player: Player) -> PrivatePage:
    """`player`'s page in `game`."""
    told, news = told_game(work, game, reader=player)
    words = told.words
    assert isinstance(words, Words)
    table = table_of(work, game)
    name = player.name
    role = team = None
    mates: tuple[str, ...] = ()
    votes: tuple[tuple[str, str], ...] = ()
    asked: tuple[Asked, ...] = ()
    alive = True
    if table.started:
        state, rs = table.state, table.rules
        for info in rs.start_events(state):
            data = info.to_dict()
            if info.type == "role" and data.get("player") == name:
                role, team = data.get("role"), data.get("team")
                mates = tuple(data.get("mates") or ())
        seat = table.view.find(name)
        alive = seat.alive if seat is not None else True
        votes = _votes(table.view.votes, name, words)
        asked = tuple(_asked(action, words) for action in actions_of(rs, state, name))
    return PrivatePage(
        game=told,
        player=name,
        alive=alive,
        role=role,
        role_name=role_name(role, words),
        team=team,
        team_name=words.teams.get(team) if team is not None else None,
        mates=mates,
        news=news,
        votes=votes,
        asked=asked,
    )


def _votes(
    votes: Mapping[str, tuple[str, ...]], name: str, words: Words
) -> tuple[tuple[str, str], ...]:
    """His votes in force this step: (the keyword's word or "", the names or the blank word)."""
    mine = []
    for key, targets in votes.items():
        voter, _, keyword = key.partition(":")
        if voter != name:
            continue
        spelt = words.keywords.get(keyword, (keyword,))[0] if keyword else ""
        blank = words.blanco[0] if words.blanco else ""
        mine.append((spelt, ", ".join(targets) if targets else blank))
    return tuple(mine)


def _asked(action: Mapping[str, Any], words: Words) -> Asked:
    kind = str(action["kind"])
    if kind in words.roles:
        title = words.roles[kind].name
    elif kind in words.steps:
        title = ucfirst(words.steps[kind].name)
    else:
        title = kind
    keyword = action.get("keyword")
    data = {
        "kind": kind,
        "keyword": keyword,
        "choices": list(action["choices"]),
        "min": action["min"],
        "max": action["max"],
        "blanco": action["blanco"],
    }
    return Asked(
        title=title,
        choices=tuple(action["choices"]) if action["max"] else (),
        keyword=words.keywords.get(keyword, (keyword,))[0] if keyword else None,
        blank=words.blanco[0] if action["blanco"] and words.blanco else None,
        data=data,
    )
