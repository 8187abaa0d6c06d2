"""Role distributions: the default set (5 to 40 players), generated ones for 3 to 1000."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rules.core.model import Distribution
from rules.core.rng import draw_from

MIN_PLAYERS = 3
MAX_PLAYERS = 1000

# The village's specials in the order they join as it grows: one list per flavour.
CLASSIC_ORDER = (
    "ziener", "heks", "jager", "cupido", "genezer", "dorpsoudste", "raaf",
    "onschuldige_meisje", "zondebok", "dorpsgek", "slet", "priester", "klaas_vaak",
    "schout", "waarschuwer", "verleidster", "dief", "goochelaar", "opdrachtgever",
    "grafrover", "dwaas",
)  # fmt: skip
NIGHTLIFE_ORDER = (
    "ziener", "genezer", "jager", "slet", "heks", "waarschuwer", "cupido", "priester",
    "raaf", "verleidster", "dorpsgek", "klaas_vaak", "goochelaar", "schout",
    "onschuldige_meisje", "dorpsoudste", "zondebok", "opdrachtgever", "dwaas", "grafrover",
    "dief",
)  # fmt: skip


def wolves_for(players: int) -> int:
    """Return the number of evil seats for a village of this size (about one in 4.5)."""
    return max(1, round(players / 4.5))


def build(players: int, flavour: str = "classic") -> Distribution:
    """Return a balanced distribution for ``players`` seats in one of two flavours.

    ``classic``: werewolves (a welp from 10, a white wolf from 19, a psychopaat from 25), a
    mayor.  ``nightlife``: the night roles first, vampires beside the wolves from 16, a
    fluitspeler from 30, a mayor from 8 players.  Raises ValueError outside 3..1000.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    evil = wolves_for(players)
    roles: Counter[str] = Counter()
    if flavour == "classic":
        order = CLASSIC_ORDER
        extras = [("welp", 10), ("witte_weerwolf", 19), ("psychopaat", 25)]
        mayor = True
    else:
        order = NIGHTLIFE_ORDER
        extras = [("vampier", 16), ("vampier", 24), ("fluitspeler", 30)]
        mayor = players >= 8
    for role, from_size in extras:
        if players >= from_size and evil > 1:
            roles[role] += 1
            evil -= 1
    roles["weerwolf"] += evil
    village = players - sum(roles.values())
    specials = min(len(order), village - max(1, village // 3)) if players >= 5 else village - 1
    for index in range(max(0, specials)):
        roles[order[index % len(order)]] += 1
    roles["burger"] += players - sum(roles.values())
    return Distribution(
        id=f"{flavour}-{players}",
        players=players,
        roles=tuple(roles.elements()),
        options={"mayor": mayor},
    )


DEFAULT_DISTRIBUTIONS: tuple[Distribution, ...] = tuple(
    build(players, flavour) for players in range(5, 41) for flavour in ("classic", "nightlife")
)
"""Two distributions for every player count from 5 to 40."""


def pick_distribution(players: int, seed: int, extra: Sequence[Distribution] = ()) -> Distribution:
    """Return one distribution for this many players, chosen by the seed among the defaults
    and ``extra`` (e.g. loaded from the database); a generated one when none fits.

    Raises ValueError outside 3..1000 players.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    fitting = [d for d in (*DEFAULT_DISTRIBUTIONS, *extra) if d.players == players]
    if not fitting:
        return build(players, "classic")
    return draw_from(seed, 0, fitting)
