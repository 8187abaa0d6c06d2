"""Role distributions (§11): validation, the default table for 6-40 players, dealing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.core.model import Distribution, Seat
from rules.core.rng import draw_index, shuffled
from rules.mafia.roles import ELITE, NEGATIVE, PEACEFUL

MIN_PLAYERS = 6
MAX_PLAYERS = 40
BASE_ROLES = ("doctor", "blocker", "commissar", "detective", "investigator", "active_citizen")


def negative_roles(distribution: Distribution) -> tuple[str, ...]:
    """The distribution's negative roles as a sorted multiset."""
    raw = distribution.options.get("negative", {})
    if not isinstance(raw, Mapping):
        raise ValueError(f"{distribution.id}: negative must be a table role -> count")
    roles: list[str] = []
    for role, count in raw.items():
        if not isinstance(count, int) or count < 0:
            raise ValueError(f"{distribution.id}: bad count for {role}")
        roles.extend([str(role)] * count)
    return tuple(sorted(roles))


def elite_roles(distribution: Distribution) -> tuple[str, ...]:
    """The distribution's elite roles (§11.1, §17: extra players), sorted."""
    raw = distribution.options.get("elite") or {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"{distribution.id}: elite must be a table role -> count")
    roles: list[str] = []
    for role, count in raw.items():
        if role not in ELITE or not isinstance(count, int) or not 0 <= count <= 1:
            raise ValueError(f"{distribution.id}: elite roles are agent and mason, at most once")
        roles.extend([str(role)] * count)
    return tuple(sorted(roles))


def check(distribution: Distribution) -> Distribution:
    """Return ``distribution`` when valid for this ruleset (§11.1), else raise ValueError."""
    negative = negative_roles(distribution)
    counts = distribution.role_counts()
    for role, count in counts.items():
        if role not in PEACEFUL:
            raise ValueError(f"{distribution.id}: {role} is not a peaceful role of this ruleset")
        limit = {"citizen": distribution.players, "active_citizen": 2}.get(role, 1)
        if count > limit:
            raise ValueError(f"{distribution.id}: {role} more than {limit} times")
    if any(role not in NEGATIVE for role in negative):
        raise ValueError(f"{distribution.id}: unknown negative role in {negative}")
    grey = 1 if distribution.options.get("faceless") else 0
    if not 1 <= len(negative) < distribution.players - grey:
        raise ValueError(
            f"{distribution.id}: 1 to {distribution.players - grey - 1} negative roles"
        )
    if not any(role in ("mafia", "maniac") for role in negative):
        raise ValueError(f"{distribution.id}: at least one mafia or maniac")
    elite_roles(distribution)
    return distribution


def default_distribution(players: int) -> Distribution:
    """The default distribution for ``players`` main players (§11.2, RULING)."""
    blacks = players // 3
    extended = players >= 16
    peaceful = [*BASE_ROLES, *["citizen"] * (players - len(BASE_ROLES))]
    if extended:  # one citizen becomes a second Active citizen
        peaceful[-1] = "active_citizen"
    return Distribution(
        id=f"mafia-{players}-{'extended' if extended else 'standard'}",
        players=players,
        roles=tuple(peaceful),
        options={
            "negative": {"mafia": blacks - 1, "maniac": 1},
            "faceless": False,
            "elite": {},
            "mayor": True,
            "format": "extended" if extended else "standard",
        },
    )


def full_distributions() -> tuple[Distribution, ...]:
    """The seed's two full line-ups with optional roles (§11.2): 12 Standard, 16 Extended."""
    twelve = (*BASE_ROLES, "bodyguard", "prostitute", "journalist", "hero", "judge", "priest")
    sixteen = (
        *BASE_ROLES,
        "politician",
        "active_citizen",
        *("bodyguard", "prostitute", "journalist", "hero", "judge", "priest", "hacker"),
        "kamikaze",
    )
    return (
        Distribution(
            id="mafia-12-standard-full",
            players=12,
            roles=twelve,
            options={
                "negative": {"mafia": 2, "maniac": 1, "joker": 1},
                "faceless": False,
                "elite": {},
                "mayor": True,
                "format": "standard",
            },
        ),
        Distribution(
            id="mafia-16-extended-full",
            players=16,
            roles=sixteen,
            options={
                "negative": {"mafia": 2, "maniac": 1, "poisoner": 1, "executor": 1},
                "faceless": False,
                "elite": {},
                "mayor": True,
                "format": "extended",
            },
        ),
    )


DEFAULT_DISTRIBUTIONS: tuple[Distribution, ...] = (
    *(default_distribution(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    *full_distributions(),
)


def pick(n_players: int, seed: int, extra: Sequence[Distribution] = ()) -> Distribution:
    """Draw one distribution for ``n_players`` among the defaults and ``extra`` (§11.2).

    Raises ValueError when none fits or one that fits is invalid (an admin's distribution that
    names an unimplemented role must be noticed, not skipped now and then).
    """
    fitting = [
        check(d)
        for d in (*DEFAULT_DISTRIBUTIONS, *extra)
        if d.players + len(elite_roles(d)) == n_players
    ]
    if not fitting:
        raise ValueError(f"no mafia distribution for {n_players} players")
    return fitting[draw_index(seed, 0, len(fitting))]


def deal(
    names: Sequence[str | tuple[str, str | None]], distribution: Distribution, seed: int
) -> tuple[Seat, ...]:
    """Give the elite roles to players drawn with the seed, then deal the peaceful roles over the
    others by a seeded shuffle and lay the negative roles on a seeded shuffle of them (§11.3).
    Raises ValueError when the counts differ."""
    check(distribution)
    elite = elite_roles(distribution)
    if len(names) != distribution.players + len(elite):
        raise ValueError(f"{distribution.id} is for {distribution.players + len(elite)} players")
    everyone = [(entry, None) if isinstance(entry, str) else entry for entry in names]
    drawn = shuffled(seed, "elite", range(len(everyone)))[: len(elite)] if elite else []
    given = {index: role for index, role in zip(sorted(drawn), elite, strict=True)}
    pairs = [pair for index, pair in enumerate(everyone) if index not in given]
    main = _deal_main(pairs, distribution, seed)
    seats: list[Seat] = []
    for index, (name, gender) in enumerate(everyone):
        seats.append(Seat(name, given[index], gender) if index in given else main.pop(0))
    return tuple(seats)


def _deal_main(
    pairs: Sequence[tuple[str, str | None]], distribution: Distribution, seed: int
) -> list[Seat]:
    """The main deal over the main players, seat order kept (§11.3)."""
    peaceful = shuffled(seed, "peaceful", distribution.roles)
    order = shuffled(seed, "blacks", range(len(pairs)))
    negative = shuffled(seed, "negative", negative_roles(distribution))
    overlay = dict(zip(order, negative, strict=False))
    if distribution.options.get("faceless"):  # the next player is the Faceless (§11.3)
        overlay[order[len(negative)]] = "faceless"
    return [
        Seat(
            name=name,
            role=f"{role}+{overlay[index]}" if index in overlay else role,
            gender=gender,
        )
        for index, ((name, gender), role) in enumerate(zip(pairs, peaceful, strict=True))
    ]
