"""Win conditions (spec §9): teams, solo players, mixed lovers and bodyguard pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.wakkerdam.roles import EVIL, ROLES
from rules.wakkerdam.spec import Team
from rules.wakkerdam.state import Player

TEAM_ORDER = ("burgers", "weerwolven", "vampiers", "fluitspelers", "eigen", "lovers", "bodyguard")


@dataclass(frozen=True)
class Outcome:
    """The result of a win check: ``over`` with the winning ``teams`` and ``winners``."""

    over: bool
    teams: tuple[str, ...] = ()
    winners: tuple[str, ...] = ()


def team_of(player: Player) -> str:
    """Return the team of the player's current role."""
    return str(ROLES[player.role].team)


def holds(team: str, group: Sequence[Player], *, pair: bool = False) -> bool:
    """Whether ``team``'s condition holds on the living ``group``.

    For a pair condition (``pair=True``) the group excludes the pair, so a team needs no
    living member of its own there; outside pairs, fluitspelers need a living fluitspeler.
    """
    if team == Team.BURGERS:
        return not any(p.role in EVIL for p in group)
    if team == Team.WEERWOLVEN:
        return all(p.role in ("weerwolf", "welp") for p in group)
    if team == Team.VAMPIERS:
        return all(p.role == "vampier" for p in group)
    if team == Team.FLUITSPELERS:
        has_piper = pair or any(p.role == "fluitspeler" for p in group)
        return has_piper and all(p.enchanted for p in group if p.role != "fluitspeler")
    if team == Team.EIGEN:
        return pair and not group
    return False


def _pairs(players: Sequence[Player], attribute: str) -> list[tuple[Player, Player]]:
    by_name = {p.name: p for p in players}
    pairs: list[tuple[Player, Player]] = []
    for player in players:
        partner_name = getattr(player, attribute)
        if partner_name is None:
            continue
        partner = by_name[partner_name]
        if attribute == "lover" and player.name > partner.name:
            continue
        if _mixed(player, partner):
            pairs.append((player, partner))
    return pairs


def _mixed(a: Player, b: Player) -> bool:
    return team_of(a) != team_of(b) or team_of(a) == Team.EIGEN


def check(players: Sequence[Player]) -> Outcome:
    """Return the outcome of a win check on the current players (seat order)."""
    living = [p for p in players if p.alive]
    if not living:
        return Outcome(over=True)
    teams: set[str] = set()
    winners: set[str] = set()
    lover_pairs = _pairs(players, "lover")
    guard_pairs = _pairs(players, "guards")
    excluded = {p.name for pair in lover_pairs for p in pair}
    excluded |= {guard.name for guard, _principal in guard_pairs}
    for team in (Team.BURGERS, Team.WEERWOLVEN, Team.VAMPIERS, Team.FLUITSPELERS):
        if holds(team, living):
            teams.add(str(team))
            winners.update(p.name for p in players if team_of(p) == team and p.name not in excluded)
    if len(living) == 1 and team_of(living[0]) == Team.EIGEN:
        # The condition holds and ends the game even for a mixed pair's member, who does
        # not win by it (like a wolf bodyguard left alone: "weerwolven", no winners).
        teams.add(str(Team.EIGEN))
        if living[0].name not in excluded:
            winners.add(living[0].name)
    for label, pairs in (("lovers", lover_pairs), ("bodyguard", guard_pairs)):
        for a, b in pairs:
            if not (a.alive and b.alive):
                continue
            others = [p for p in living if p.name not in (a.name, b.name)]
            if holds(team_of(a), others, pair=True) and holds(team_of(b), others, pair=True):
                teams.add(label)
                winners.update((a.name, b.name))
    if not teams:
        return Outcome(over=False)
    return Outcome(
        over=True,
        teams=tuple(team for team in TEAM_ORDER if team in teams),
        winners=tuple(p.name for p in players if p.name in winners),
    )
