"""The canonical ids of the Mafia ruleset (docs/rules/mafia.md): teams, sides, steps, causes."""

from __future__ import annotations

import enum
from collections.abc import Mapping


class Team(enum.StrEnum):
    """A main player's team (docs/rules/mafia.md §1.1)."""

    RED = "red"
    BLACK = "black"
    GREY = "grey"


class Side(enum.StrEnum):
    """A killing side of the black team (§1.1, §7.4)."""

    MAFIA = "mafia"
    MANIAC = "maniac"


class Kind(enum.StrEnum):
    """The kinds of roles (§2)."""

    PEACEFUL = "peaceful"
    NEGATIVE = "negative"


class Step(enum.StrEnum):
    """The step ids (§4), in table order."""

    ELECTION = "election"
    RUNOFF = "runoff"
    SECRETARY = "secretary"
    PRE_VOTE = "pre_vote"
    LYNCH = "lynch"
    HUNT = "hunt"
    REVOTE = "revote"
    VOTE_MOVES = "vote_moves"
    LAST_MOVES = "last_moves"
    EXTRA_VOTE = "extra_vote"
    NIGHT = "night"


class Close(enum.StrEnum):
    """How a step closed (§4, §6): the step table's ``then`` names the step played next."""

    DONE = "done"  # the step's business is settled: the table's ordinary successor
    TIE = "tie"  # a tie: the election's runoff, a lynch-type vote's revote (§6.2, §6.7)
    CHOOSE = "choose"  # the Mayor chooses among several eligible secretaries (§6.3)
    HUNT = "hunt"  # the pre-vote opened a hunt (§6.4)
    MOVES = "moves"  # vote-time moves are due before the vote's result (§6.9)
    LAST_MOVES = "last_moves"  # lynched players have death-time moves (§6.9)
    EXTRA = "extra"  # a lynch brings the day's extra vote (§6.10)


class Cause(enum.StrEnum):
    """The death causes of the core game (§8.7)."""

    MAFIA = "mafia"
    MANIAC = "maniac"
    INVESTIGATOR = "investigator"
    SUICIDE = "suicide"
    LYNCH = "lynch"
    INACTIVITY = "inactivity"
    LINK = "link"  # optional: the Immortal's link (§15.2)
    INQUISITOR = "inquisitor"  # optional: the Inquisitor's burn (§15.10)
    FANATIC = "fanatic"  # optional: the Fanatic's revenge (§15.17)
    CULTIST = "cultist"  # optional: the Cultist's devour (§15.21)
    KAMIKAZE = "kamikaze"  # optional: the Kamikaze's retaliation (§15.19)
    MADMAN = "madman"  # optional: the Madman's fire (§15.20)
    POISON = "poison"  # optional: the Poisoner's poison (§16.3)
    GEISHA = "geisha"  # optional: the Geisha's katana (§16.5)
    JOKER = "joker"  # optional: werewolves holding the kill (§7.4.7)
    POISONER = "poisoner"
    EXECUTOR = "executor"
    REMOVED = "removed"  # an admin took him out of the game (ruling 94)


class Code(enum.StrEnum):
    """The rejection codes (§5.3), in the order in which they are checked."""

    NOT_ASKED = "not-asked"
    KEYWORD_REQUIRED = "keyword-required"
    MODE_REQUIRED = "mode-required"
    WRONG_COUNT = "wrong-count"
    BAD_NAME = "bad-name"
    BLANK_NOT_ALLOWED = "blank-not-allowed"
    DEAD = "dead"
    SELF = "self"
    UNTOUCHABLE = "untouchable"
    PROTECTED = "protected"
    NOT_CANDIDATE = "not-candidate"
    NOT_NOW = "not-now"
    NOT_ELIGIBLE = "not-eligible"
    REPEAT = "repeat"
    NO_SHOT = "no-shot"
    TAKEN = "taken"


class Colour(enum.StrEnum):
    """What a colour check reads (§1.2)."""

    RED = "red"
    BLACK = "black"


class Stop(enum.StrEnum):
    """Why a sent night move did not happen at all (§7.3), in precedence order."""

    ATTACKED = "attacked"
    ROLE_BLOCKED = "role_blocked"
    CLIENT = "client"
    ARREST = "arrest"
    HOME = "home"
    FIRE = "fire"


SIDE_OF_ROLE: Mapping[str, Side] = {
    "mafia": Side.MAFIA,
    "son_of_boss": Side.MAFIA,
    "maniac": Side.MANIAC,
}
"""The killing side of each negative role that has one (§1.1)."""

ELITE_ROLES = frozenset({"agent", "mason"})
"""The elite roles (§17): extra players outside every count."""

WEREWOLVES = frozenset({"joker", "poisoner", "executor", "geisha"})
"""The werewolves of §16 that read `red` until their first credited kill (§16)."""

CAUSES: tuple[str, ...] = tuple(cause.value for cause in Cause)
STEPS: tuple[str, ...] = tuple(step.value for step in Step)
TEAMS: tuple[str, ...] = tuple(team.value for team in Team)
LYNCH_STEPS = frozenset({Step.LYNCH, Step.EXTRA_VOTE, Step.REVOTE, Step.HUNT})
"""The lynch-type votes (§6.6)."""
DAY_VOTE_STEPS = frozenset({Step.LYNCH, Step.EXTRA_VOTE, Step.HUNT})
"""The steps whose missed votes count for inactivity (§5.5)."""
