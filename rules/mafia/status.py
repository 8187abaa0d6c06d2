"""Derived facts of a state that several modules ask: the hunt, the vigilante, the counts."""

from __future__ import annotations

from rules.mafia import ledger
from rules.mafia.ids import Side
from rules.mafia.state import GameState, Player


def is_hunt_unlocked(state: GameState) -> bool:
    """§6.4 (a): the Mayor lost his post, or there never was one and a red was lynched."""
    if state.mayor is not None:
        return state.post_over
    return state.red_lynched


def is_hunt_possible(state: GameState) -> bool:
    """§6.4 (a)-(c): whether today's main vote may be a hunt."""
    minimum = 6 if state.format == "extended" else 5
    return is_hunt_unlocked(state) and not state.hunt_held and len(state.living) > minimum


def is_vigilante(state: GameState) -> bool:
    """§7.10: nobody alive holds `commissar` or `detective`, and the shot right is not spent."""
    if state.memory_of("investigator").vigilante_done:
        return False
    return state.holder("commissar") is None and state.holder("detective") is None


def counts(state: GameState) -> tuple[int, int]:
    """Return (R, B): the living red and black main players (§9.1)."""
    reds = sum(1 for p in state.living if p.is_red)
    blacks = sum(1 for p in state.living if p.is_black)
    return reds, blacks


def may_be_lynched(state: GameState, name: str) -> bool:
    """Whether a lynch-type ballot may name ``name`` today (§6.5): not Mayor, not protected."""
    return name != state.mayor_in_office() and name not in protected_today(state)


def protected_today(state: GameState) -> tuple[str, ...]:
    """Nobody may vote against these players today: the vertical, the Politician's shadow
    vertical (§15.1), the Advocate's defence (§15.9), the Priest's rescued player (§15.11)."""
    today = state.today
    names = (today.vertical, today.shadow, today.defended, today.rescued)
    return tuple(n for n in names if n is not None)


def hero_may_save(state: GameState) -> bool:
    """§15.16: the Hero's save is unused, he holds the role from the start, he is alive and not
    blocked, and the pending vote is no hunt."""
    hero = state.holder("hero")
    memory = state.memory_of("hero")
    pending = state.today.pending
    return (
        hero is not None
        and not state.is_role_blocked(hero.name)
        and not memory.save_used
        and not memory.inherited
        and pending is not None
        and pending.kind != "hunt"
    )


def revenge_active(state: GameState) -> bool:
    """§15.17: the Fanatic's favourite is dead and not yet avenged; for a black Fanatic only when
    the favourite died by a lynch or by a killer who is not the Fanatic or his partner."""
    fanatic = state.holder("fanatic")
    memory = state.memory_of("fanatic")
    if fanatic is None or memory.favourite is None or memory.avenged:
        return False
    favourite = state.get(memory.favourite)
    if favourite.alive:
        return False
    if fanatic.is_black and favourite.cause != "lynch":
        killer = state.killers.get(favourite.name, ("", ""))[1]
        return killer not in (fanatic.name, *state.partners(fanatic.name))
    return True


def bum_repeats(state: GameState) -> str | None:
    """§15.8: the player the Bum watches again tonight, automatically, after choosing him last
    night (None: he chooses tonight)."""
    bum = state.holder("bum")
    memory = state.memory_of("bum")
    if bum is None or memory.watched is None or memory.watched_night != state.night - 1:
        return None
    return memory.watched if state.get(memory.watched).alive else None


def drunk_bum(state: GameState) -> str | None:
    """§15.8: the Bum when he drinks tonight (his `drink` in force, his role not blocked)."""
    bum = state.holder("bum")
    if bum is None or state.is_role_blocked(bum.name) or bum_repeats(state) is not None:
        return None
    vote = state.vote_of(bum.name, "watch")
    return bum.name if vote is not None and vote.action == "drink" else None


def acting_bum(state: GameState) -> str | None:
    """§15.8: the Bum when he watches tonight (chosen or repeated): immune to the Blocker."""
    bum = state.holder("bum")
    if bum is None or state.is_role_blocked(bum.name):
        return None
    vote = state.vote_of(bum.name, "watch")
    watching = vote is not None and vote.action == "watch" and vote.targets
    return bum.name if bum_repeats(state) is not None or watching else None


def active_kamikaze(state: GameState) -> str | None:
    """§15.19: the Kamikaze while his role has not killed a black and is not blocked."""
    holder = state.holder("kamikaze")
    if holder is None or state.is_role_blocked(holder.name):
        return None
    return None if state.memory_of("kamikaze").kamikaze_done else holder.name


def madman_may_fire(state: GameState) -> bool:
    """§15.20: from night 3, until his fire has burned once."""
    return state.night >= 3 and not state.memory_of("madman").madman_done


FACELESS_DEATHS = {"standard": 9, "extended": 12}
"""T of §16.6 outcome 1, by format."""


def faceless_deaths(state: GameState) -> int:
    """E of §16.6: the main players of the starting line-up who have died."""
    return sum(1 for p in state.players if not p.alive and not p.is_elite and p.cause != "left")


def faceless_threshold(state: GameState) -> int:
    """The E at which the Faceless leaves with a win: T, or T + 1 when the T-th death came from
    his own peaceful kill (§16.6 outcome 1)."""
    return FACELESS_DEATHS.get(state.format, 9) + int(state.faceless_wait)


def faceless_hero_may_leave(state: GameState) -> bool:
    """§15.16: a Faceless Hero (his role not blocked) whom a ballot of the pending lynch-type
    vote names may send `suicide` in `vote_moves` (it acts if he is among the lynched)."""
    hero = state.holder("hero")
    pending = state.today.pending
    return (
        hero is not None
        and hero.faceless
        and not state.is_role_blocked(hero.name)
        and pending is not None
        and any(hero.name in b.targets for b in pending.ballots)
    )


def faceless_has_kill(state: GameState, player: Player) -> bool:
    """§16.6: a Faceless Investigator, Fanatic, Cultist or Inquisitor who has a kill tonight
    (the vigilante's shot, the revenge, the devour, a burn) may `suicide` instead."""
    if not player.faceless or state.is_role_blocked(player.name):
        return False
    role = player.peaceful
    if role == "investigator":
        return is_vigilante(state)
    if role == "fanatic":
        return revenge_active(state)
    if role == "cultist":
        memory = state.memory_of("cultist")
        return memory.souls_gained >= 3 and not memory.devoured
    if role == "inquisitor":
        return state.night in state.memory_of("inquisitor").burns.values()
    return False


OWN_KILL_WOLVES = frozenset({"joker", "poisoner", "executor"})
"""The werewolves whose kill through a peaceful role costs their next night's kill (§16)."""


def kills_instead(state: GameState, player: Player) -> bool:
    """§7.4.7: a Joker, Poisoner or Executor who holds the kill and sends `kill` makes no special
    move that night."""
    vote = state.vote_of(player.name, "kill")
    return (
        player.negative in OWN_KILL_WOLVES
        and player.katana
        and vote is not None
        and vote.action == "kill"
        and bool(vote.targets)
    )


def lost_kill(state: GameState, player: Player) -> bool:
    """§16: whether tonight is the night a werewolf lost his kill (he killed through his peaceful
    role last night)."""
    if player.negative not in OWN_KILL_WOLVES:
        return False
    return state.memory_of(player.negative or "").lost_kill_night == state.night


def geisha_insures(state: GameState, player: Player) -> bool:
    """§16.5: a Geisha without the katana may insure the Maniac on the maniac side's nights
    (not on the shared Extended nights, when the mafia side has its own night)."""
    return (
        player.negative == "geisha"
        and not player.katana
        and ledger.has_night(state, Side.MANIAC, state.night)
        and not ledger.has_night(state, Side.MAFIA, state.night)
    )
