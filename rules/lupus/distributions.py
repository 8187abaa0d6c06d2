"""The default role distributions ``lupus-N`` (§11) and the seeded choice among them."""

from __future__ import annotations

from collections.abc import Sequence

from rules.core.model import Distribution
from rules.core.rng import draw_index
from rules.lupus.roles import LUPUS_ROLES

MIN_PLAYERS = 3
MAX_PLAYERS = 1000

LUPI_CYCLE = (
    "sequestratore",
    "diavolo",
    "fattucchiera",
    "avvocato",
    "assassino",
    "stregone",
    "necrofilo",
    "rinnegato",
)
NEGROMANTI_CYCLE = ("medium", "ipnotista", "fantasma", "scrutatore")
POPOLANI_CYCLE = (
    "veggente",
    "guardia",
    "investigatore",
    "mago",
    "stalker",
    "voyeur",
    "massone",
    "massone",
    "esorcista",
    "messia",
    "custode",
    "espansivo",
    "divinatore",
    "sciamano",
    "trasformista",
)
FIRST_MASSONE = POPOLANI_CYCLE.index("massone")


def _cycle(cycle: Sequence[str], count: int) -> list[str]:
    return [cycle[index % len(cycle)] for index in range(count)]


def default_roles(players: int) -> list[str]:
    """Return the roles of ``lupus-N`` for N = ``players`` (§11, integer division)."""
    lupi = max(1, 11 * players // 40)
    negromanti = max(1, 7 * players // 40)
    popolani = players - lupi - negromanti
    lupo = max(1, (lupi + 1) // 2)
    negromante = max(1, (negromanti + 2) // 3)
    contadino = popolani // 4
    roles = ["lupo"] * lupo + _cycle(LUPI_CYCLE, lupi - lupo)
    roles += ["negromante"] * negromante + _cycle(NEGROMANTI_CYCLE, negromanti - negromante)
    specials = _cycle(POPOLANI_CYCLE, popolani - contadino)
    if specials and (len(specials) - 1) % len(POPOLANI_CYCLE) == FIRST_MASSONE:
        # A lone Massone would know nobody: the first of an unfinished pair is a Contadino.
        specials[-1] = "contadino"
    return roles + ["contadino"] * contadino + specials


def default_distribution(players: int) -> Distribution:
    """Return ``lupus-N`` (ValueError outside 3..1000 players)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"lupus needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    return Distribution(
        id=f"lupus-{players}",
        players=players,
        roles=tuple(default_roles(players)),
        options={"mayor": True},
    )


def is_valid(distribution: Distribution) -> bool:
    """Whether the distribution can start a game (§2: a lupo, a negromante, a popolano)."""
    roles = set(distribution.roles)
    return (
        roles <= set(LUPUS_ROLES)
        and "lupo" in roles
        and "negromante" in roles
        and any(LUPUS_ROLES[role].faction == "popolani" for role in roles)
    )


DEFAULT_DISTRIBUTIONS: tuple[Distribution, ...] = tuple(
    default_distribution(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)
)


def pick_distribution(
    n_players: int, seed: int, extra: Sequence[Distribution] = ()
) -> Distribution:
    """Return a distribution for ``n_players``: the default one or a valid extra one, drawn.

    Raises ValueError when none fits.
    """
    fitting = [d for d in extra if d.players == n_players and is_valid(d)]
    if MIN_PLAYERS <= n_players <= MAX_PLAYERS:
        fitting.insert(0, default_distribution(n_players))
    if not fitting:
        raise ValueError(f"no lupus distribution for {n_players} players")
    return fitting[draw_index(seed, 0, len(fitting))]
