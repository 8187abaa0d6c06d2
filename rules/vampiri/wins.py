"""The win conditions (docs/rules/vampiri.md, "Winning"), checked after every death."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.vampiri.roles import KILLERS
from rules.vampiri.spec import Team
from rules.vampiri.state import Player

TEAM_ORDER = (Team.VAMPIRI.value, Team.CACCIATORI.value, Team.LUPI_MANNARI.value)


@dataclass(frozen=True)
class Outcome:
    """The result of a check: the winning team (None: the game goes on) and its players."""

    team: str | None
    winners: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        """Whether a team has won."""
        return self.team is not None


def winning_team(players: Sequence[Player]) -> str | None:
    """Return the team whose condition holds among the living, or None.

    The three conditions exclude each other.  With nobody alive only the vampires' holds
    (ruling "nobody alive"); the hunters need "no doubt": no living non-hunter can kill.
    """
    living = [p for p in players if p.alive]
    wolves = [p for p in living if p.team == Team.LUPI_MANNARI]
    hunters = [p for p in living if p.team == Team.CACCIATORI]
    vampires = [p for p in living if p.team == Team.VAMPIRI]
    if wolves and len(wolves) == len(living):
        return Team.LUPI_MANNARI.value
    if len(living) == 2 and len(wolves) == 1 and len(hunters) == 1:
        return Team.LUPI_MANNARI.value
    if not hunters and not wolves:
        return Team.VAMPIRI.value
    killers = [p for p in living if p.team != Team.CACCIATORI and p.role in KILLERS]
    if hunters and len(hunters) >= len(vampires) and not killers:
        return Team.CACCIATORI.value
    return None


def check(players: Sequence[Player]) -> Outcome:
    """Return the outcome: every member of the winning team wins, alive or dead."""
    team = winning_team(players)
    if team is None:
        return Outcome(None)
    return Outcome(team, tuple(p.name for p in players if p.team == team))


def award(players: Sequence[Player], team: str) -> Outcome:
    """Return ``team``'s win outright (Guardie al Cancello: the hunters survived night 1)."""
    return Outcome(team, tuple(p.name for p in players if p.team == team))
