"""Role distributions: the seed's table (``tabella-N``, ``lupo-N``), its presets, the deal."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core.model import Distribution, Seat
from rules.core.rng import draw_from, shuffled

MIN_PLAYERS = 6
MAX_PLAYERS = 1000
GUARDIE_PLAYERS = 3

LORD = "signore"
WEREWOLF = "lupo_mannaro"
PLACEHOLDERS = {LORD: ("re", "principe", "conte"), WEREWOLF: ("licantropo", "kitsune")}
"""Distribution-only ids: each becomes one of its roles by a seeded draw at the deal."""

RESERVED = frozenset({"ondina", "neofita", "sposa", "dhampir", "redivivo", "upyr", "varg"})
"""Roles of the missing *Libro dei ruoli*: reserved ids, not playable."""

SPECIAL_VAMPIRES = ("lamia", "regina", "nosferatu", "banshee")
SPECIAL_HUNTERS = ("esploratore", "leader", "monaco", "bella")
"""The order in which special roles join a growing table (docs/rules/vampiri.md)."""

# The seed's table for 6 to 20 players: (hunters, special vampires, special hunters), without
# and with a werewolf.  Above 20 the formulas of :func:`_shape` continue it.
_TABLE: dict[int, tuple[tuple[int, int, int], tuple[int, int, int] | None]] = {
    6: ((1, 1, 0), None),
    7: ((2, 0, 1), None),
    8: ((2, 1, 1), None),
    9: ((2, 1, 1), None),
    10: ((2, 1, 1), (2, 1, 1)),
    11: ((3, 1, 1), (3, 1, 1)),
    12: ((3, 2, 1), (3, 1, 1)),
    13: ((3, 2, 1), (3, 2, 1)),
    14: ((4, 2, 2), (3, 2, 1)),
    15: ((4, 2, 2), (4, 2, 2)),
    16: ((4, 3, 2), (4, 2, 2)),
    17: ((4, 3, 2), (4, 3, 2)),
    18: ((5, 3, 2), (5, 3, 2)),
    19: ((5, 3, 2), (5, 3, 2)),
    20: ((5, 4, 2), (5, 3, 2)),
}


def _shape(players: int, werewolf: bool) -> tuple[int, int, int]:
    """(hunters, special vampires, special hunters) for ``players`` seats."""
    if players in _TABLE:
        shape = _TABLE[players][1 if werewolf else 0]
        if shape is None:
            raise ValueError(f"no werewolf distribution for {players} players")
        return shape
    hunters = 2 * players // 7
    vampires = players - hunters - (1 if werewolf else 0)
    return hunters, min(4, vampires // 3 - 1), min(4, hunters // 2)


def build(players: int, *, werewolf: bool = False) -> Distribution:
    """Return ``tabella-N`` (or ``lupo-N`` with a werewolf) for 6 to 1000 players.

    The 6-player table has no Lord (the seed's smallest line-up).  Raises ValueError outside
    6..1000 players, or for a werewolf below 10.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    if werewolf and players < 10:
        raise ValueError("the werewolf joins from 10 players")
    hunters, special_vampires, special_hunters = _shape(players, werewolf)
    roles = [*SPECIAL_HUNTERS[:special_hunters]]
    roles += ["cacciatore"] * (hunters - special_hunters)
    roles += [*SPECIAL_VAMPIRES[:special_vampires]]
    if players > 6:
        roles.append(LORD)
    if werewolf:
        roles.append(WEREWOLF)
    roles += ["vampiro"] * (players - len(roles))
    prefix = "lupo" if werewolf else "tabella"
    return Distribution(id=f"{prefix}-{players}", players=players, roles=tuple(roles))


def _preset(ident: str, counts: dict[str, int], **options: bool) -> Distribution:
    roles = tuple(role for role, count in counts.items() for _ in range(count))
    return Distribution(id=ident, players=len(roles), roles=roles, options=options)


PRESETS: tuple[Distribution, ...] = (
    _preset("classica-8", {"conte": 1, "lamia": 1, "vampiro": 4, "cacciatore": 2}),
    *(
        _preset(
            ident,
            {lord: 1, "lamia": 1, "vampiro": 5, "esploratore": 1, "cacciatore": 1, "licantropo": 1},
        )
        for ident, lord in (("classica-10", "conte"), ("classica-10-re", "re"))
    ),
    *(
        _preset(
            ident,
            {lord: 1, "lamia": 1, "regina": 1, "vampiro": 5, "esploratore": 1}
            | {"cacciatore": 2, "licantropo": 1},
        )
        for ident, lord in (("classica-12", "re"), ("classica-12-conte", "conte"))
    ),
    *(
        _preset(
            ident,
            {lord: 1, "lamia": 1, "regina": 1, "vampiro": 6, "esploratore": 1, "leader": 1}
            | {"cacciatore": 1, "licantropo": 1},
        )
        for ident, lord in (("classica-13", "re"), ("classica-13-conte", "conte"))
    ),
    *(
        _preset(
            ident,
            {"principe": 1, "lamia": 1, "regina": 1, "vampiro": 4, major: 1}
            | {"cacciatore": 1, "licantropo": 1, "kitsune": 1},
        )
        for ident, major in (
            ("invasione-11", "esploratore"),
            ("invasione-11-monaco", "monaco"),
            ("invasione-11-bella", "bella"),
        )
    ),
    _preset(
        "tana-10",
        {"re": 1, "regina": 1, "vampiro": 5, "esploratore": 1, "cacciatore": 1, "licantropo": 1},
        wolf_den=True,
    ),
    *(
        _preset(
            ident,
            {LORD: 1, "regina": 1, "vampiro": 5, major: 1, "cacciatore": 2},
            undercover=True,
            secret_lord=True,
        )
        for ident, major in (("copertura-10", "esploratore"), ("copertura-10-bella", "bella"))
    ),
    _preset("guardie-3", {"vampiro": 2, "cacciatore": 1}),
)
"""The seed's preset line-ups that use only the roles in play (chosen by id)."""


def _secret(distribution: Distribution) -> Distribution:
    """The distribution with the options that keep its drawn Lord / werewolf secret."""
    options = dict(distribution.options)
    if LORD in distribution.roles:
        options["secret_lord"] = True
    if WEREWOLF in distribution.roles:
        options["secret_werewolf"] = True
    return Distribution(distribution.id, distribution.players, distribution.roles, options)


TABLE: tuple[Distribution, ...] = tuple(
    _secret(build(players, werewolf=werewolf))
    for players in range(MIN_PLAYERS, 21)
    for werewolf in (False, True)
    if players >= 10 or not werewolf
)
"""``tabella-N`` for 6 to 20 players and ``lupo-N`` from 10."""

DEFAULT_DISTRIBUTIONS: tuple[Distribution, ...] = (*TABLE, *PRESETS)


def pick_distribution(players: int, seed: int, extra: Sequence[Distribution] = ()) -> Distribution:
    """Return ``tabella-N`` or ``lupo-N`` (``guardie-3`` for 3 players), chosen by the seed.

    Presets and ``extra`` (admin-added) distributions are chosen by id, never at random, so
    ``extra`` is not drawn from.  Raises ValueError for 4 or 5 players, or outside 3..1000.
    """
    del extra  # chosen by id only (docs/rules/vampiri.md, "Distributions")
    if players == GUARDIE_PLAYERS:
        return next(d for d in PRESETS if d.id == "guardie-3")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a game has 3 or {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    fitting = [d for d in TABLE if d.players == players]
    if not fitting:
        fitting = [_secret(build(players)), _secret(build(players, werewolf=True))]
    return draw_from(seed, 0, fitting)


def deal(
    names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
) -> tuple[Seat, ...]:
    """Deal the roles to ``names`` (seat order kept) by a seeded shuffle, then draw each
    ``signore`` among the Lords and each ``lupo_mannaro`` among the werewolves (two become
    one of each).  Raises ValueError when the counts differ."""
    if len(names) != distribution.players:
        raise ValueError(f"{distribution.id} is for {distribution.players} players")
    roles = shuffled(seed, "deal", distribution.roles)
    for placeholder, choices in PLACEHOLDERS.items():
        seats = [i for i, role in enumerate(roles) if role == placeholder]
        if len(seats) > len(choices):
            raise ValueError(f"{distribution.id}: more than {len(choices)} {placeholder}")
        # A seeded permutation: one placeholder takes its first role, two get one of each.
        drawn = shuffled(seed, placeholder, choices)
        for seat, role in zip(seats, drawn, strict=False):
            roles[seat] = role
    seated: list[Seat] = []
    for entry, role in zip(names, roles, strict=True):
        name, gender = (entry, None) if isinstance(entry, str) else entry
        seated.append(Seat(name=name, role=role, gender=gender))
    return tuple(seated)
