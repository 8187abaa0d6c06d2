"""The Wakkerdam game state: players with their statuses, the current step, and its votes."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from rules.core.model import Settings

RULESET_ID = "wakkerdam"


@dataclass(frozen=True)
class Player:
    """One player and everything the rules remember about him.

    ``last_choice``: the previous choice of a no-repeat role (``()`` = blanco), None if none.
    ``due``: dead-actions still owed (``jager``, ``testament``, ``zondebok``).
    ``elixir``/``poison``: the Heks's potions; ``elder_hit``: the Dorpsoudste's life is used;
    ``gift_used``: the Grafrover's gift is used.
    """

    name: str
    role: str
    gender: str | None = None
    alive: bool = True
    cause: str | None = None
    lover: str | None = None
    guards: str | None = None
    bodyguard: str | None = None
    bond_used: bool = False
    enchanted: bool = False
    fool_revealed: bool = False
    missed: int = 0
    last_choice: tuple[str, ...] | None = None
    elder_hit: bool = False
    elixir: bool = True
    poison: bool = True
    gift_used: bool = False
    due: tuple[str, ...] = ()

    def with_role(self, role: str) -> Player:
        """Return this player with a new role and fresh role resources."""
        return replace(
            self,
            role=role,
            last_choice=None,
            elder_hit=False,
            elixir=True,
            poison=True,
            gift_used=False,
            fool_revealed=False,
        )


@dataclass(frozen=True)
class GameState:
    """A whole game at one moment; immutable.  ``step`` is None once the game is over.

    ``votes`` maps a vote key (``Name`` or ``Name:keyword``) to the names voted (``()`` =
    blanco), in the order the final votes arrived.  Day statuses (``warned``, ``marked``,
    ``jailed``) hold for the next lynch; ``guilty`` for the next lynch too; ``asleep`` for the
    current night; ``wounded`` between ``nacht`` and the end of ``heks`` (name, cause).
    """

    settings: Settings
    players: tuple[Player, ...]
    distribution_roles: tuple[str, ...]
    step: str | None = None
    night: int = 0
    day: int = 0
    votes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    draws: int = 0
    mayor: str | None = None
    election_due: bool = False
    elections_abolished: bool = False
    asleep: frozenset[str] = frozenset()
    wounded: tuple[tuple[str, str], ...] = ()
    warned: frozenset[str] = frozenset()
    marked: tuple[str, ...] = ()
    jailed: frozenset[str] = frozenset()
    guilty: frozenset[str] = frozenset()
    night_roles: Mapping[str, str] = field(default_factory=dict)
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()
    over: bool = False
    ruleset: str = RULESET_ID

    @property
    def has_mayor(self) -> bool:
        """Whether the game has a Burgemeester (option ``mayor``; absent: no)."""
        return bool(self.settings.option("mayor", False))

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.over

    @cached_property
    def index(self) -> Mapping[str, int]:
        """Player name -> seat number."""
        return {player.name: seat for seat, player in enumerate(self.players)}

    @cached_property
    def folded_names(self) -> Mapping[str, str]:
        """Case-folded name -> canonical name."""
        return {player.name.casefold(): player.name for player in self.players}

    def player(self, name: str) -> Player:
        """Return the player with this name; raises KeyError for an unknown name."""
        return self.players[self.index[name]]

    def find(self, name: str) -> Player | None:
        """Return the player with this name (case-insensitive), or None."""
        seat = self.index.get(name)
        if seat is None:
            canonical = self.folded_names.get(name.casefold())
            if canonical is None:
                return None
            seat = self.index[canonical]
        return self.players[seat]

    def living(self) -> Iterator[Player]:
        """Yield the living players in seat order."""
        return (player for player in self.players if player.alive)

    @cached_property
    def living_names(self) -> tuple[str, ...]:
        """The living players' names in seat order."""
        return tuple(player.name for player in self.players if player.alive)

    @cached_property
    def any_dead(self) -> bool:
        """Whether at least one player is dead."""
        return any(not player.alive for player in self.players)

    @cached_property
    def enchantable(self) -> bool:
        """Whether a living non-fluitspeler is not enchanted yet."""
        return any(p.alive and not p.enchanted and p.role != "fluitspeler" for p in self.players)

    @cached_property
    def wounded_names(self) -> frozenset[str]:
        """The players wounded this night."""
        return frozenset(name for name, _cause in self.wounded)

    @cached_property
    def shared_targets(self) -> Mapping[Hashable, tuple[tuple[str, ...], Mapping[str, int]]]:
        """For each vote asked in the current step, the names valid whoever votes (seat order)
        and their positions; see :func:`rules.wakkerdam.actions.shared_targets_table`.

        A derived view like :attr:`index`: computed once, for every action of the step at
        once, then read only; it depends on no vote (so :meth:`with_votes` shares it).
        """
        from rules.wakkerdam.actions import shared_targets_table  # it reads GameState

        return shared_targets_table(self)

    def with_votes(self, votes: Mapping[str, tuple[str, ...]]) -> GameState:
        """This state with other votes.

        It shares this state's views that do not depend on the votes (the seat index, the
        names valid in each action, ...): a vote in a game of 1,000 players does not compute
        them all again.
        """
        new = replace(self, votes=votes)
        for view in _VOTE_FREE_VIEWS:
            if view in self.__dict__:
                new.__dict__[view] = self.__dict__[view]
        return new

    def role_at_night_start(self, name: str) -> str:
        """Return the player's role as it was when the current night began."""
        return self.night_roles.get(name) or self.player(name).role


#: GameState's cached views that depend on no vote (shared by :meth:`GameState.with_votes`).
_VOTE_FREE_VIEWS = (
    "index",
    "folded_names",
    "living_names",
    "any_dead",
    "enchantable",
    "wounded_names",
    "shared_targets",
)


def dump_state(state: GameState) -> dict[str, Any]:
    """Return the state as a JSON-safe dict (see :func:`load_state`)."""
    return {
        "ruleset": state.ruleset,
        "settings": state.settings.to_dict(),
        "players": [_dump_player(player) for player in state.players],
        "distribution_roles": list(state.distribution_roles),
        "step": state.step,
        "night": state.night,
        "day": state.day,
        "votes": [[key, list(targets)] for key, targets in state.votes.items()],
        "draws": state.draws,
        "mayor": state.mayor,
        "election_due": state.election_due,
        "elections_abolished": state.elections_abolished,
        "asleep": sorted(state.asleep),
        "wounded": [[name, cause] for name, cause in state.wounded],
        "warned": sorted(state.warned),
        "marked": list(state.marked),
        "jailed": sorted(state.jailed),
        "guilty": sorted(state.guilty),
        "night_roles": dict(state.night_roles),
        "winners": list(state.winners),
        "teams": list(state.teams),
        "over": state.over,
    }


def _dump_player(player: Player) -> dict[str, Any]:
    return {
        "name": player.name,
        "role": player.role,
        "gender": player.gender,
        "alive": player.alive,
        "cause": player.cause,
        "lover": player.lover,
        "guards": player.guards,
        "bodyguard": player.bodyguard,
        "bond_used": player.bond_used,
        "enchanted": player.enchanted,
        "fool_revealed": player.fool_revealed,
        "missed": player.missed,
        "last_choice": None if player.last_choice is None else list(player.last_choice),
        "elder_hit": player.elder_hit,
        "elixir": player.elixir,
        "poison": player.poison,
        "gift_used": player.gift_used,
        "due": list(player.due),
    }


def _load_player(data: Mapping[str, Any]) -> Player:
    last = data.get("last_choice")
    return Player(
        name=str(data["name"]),
        role=str(data["role"]),
        gender=data.get("gender"),
        alive=bool(data.get("alive", True)),
        cause=data.get("cause"),
        lover=data.get("lover"),
        guards=data.get("guards"),
        bodyguard=data.get("bodyguard"),
        bond_used=bool(data.get("bond_used", False)),
        enchanted=bool(data.get("enchanted", False)),
        fool_revealed=bool(data.get("fool_revealed", False)),
        missed=int(data.get("missed", 0)),
        last_choice=None if last is None else tuple(str(name) for name in last),
        elder_hit=bool(data.get("elder_hit", False)),
        elixir=bool(data.get("elixir", True)),
        poison=bool(data.get("poison", True)),
        gift_used=bool(data.get("gift_used", False)),
        due=tuple(str(item) for item in data.get("due", ())),
    )


def load_state(data: Mapping[str, Any]) -> GameState:
    """Return the state dumped by :func:`dump_state`; raises KeyError/ValueError when malformed."""
    if data.get("ruleset", RULESET_ID) != RULESET_ID:
        raise ValueError(f"not a {RULESET_ID} state: {data.get('ruleset')!r}")
    settings = data["settings"]
    return GameState(
        settings=Settings.from_dict(settings),
        players=tuple(_load_player(item) for item in data["players"]),
        distribution_roles=tuple(str(role) for role in data["distribution_roles"]),
        step=data.get("step"),
        night=int(data["night"]),
        day=int(data["day"]),
        votes={str(key): tuple(str(t) for t in targets) for key, targets in data["votes"]},
        draws=int(data["draws"]),
        mayor=data.get("mayor"),
        election_due=bool(data["election_due"]),
        elections_abolished=bool(data["elections_abolished"]),
        asleep=frozenset(str(name) for name in data["asleep"]),
        wounded=tuple((str(name), str(cause)) for name, cause in data["wounded"]),
        warned=frozenset(str(name) for name in data["warned"]),
        marked=tuple(str(name) for name in data["marked"]),
        jailed=frozenset(str(name) for name in data["jailed"]),
        guilty=frozenset(str(name) for name in data["guilty"]),
        night_roles={str(k): str(v) for k, v in dict(data["night_roles"]).items()},
        winners=tuple(str(name) for name in data["winners"]),
        teams=tuple(str(team) for team in data["teams"]),
        over=bool(data["over"]),
    )
