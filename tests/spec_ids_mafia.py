"""The ids of the Mafia spec (docs/rules/mafia.md), written out from the document, not the code.

Scenario files of `tests/scenarios/mafia/` are checked against these lists.  Roles compose
(`commissar+mafia`, and a negative role alone stands for `citizen+negative`, §13.1), and a
`request` vote names role ids, so the checks of SpecIds are widened accordingly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tests.spec_ids import SpecIds

# §2: the core roles of §0.2, and the optional roles implemented so far (§15.2, §15.3, §15.5,
# §15.7-§15.10, §15.12-§15.17, §15.21, §15.22, §16.1).
PEACEFUL = frozenset(
    {
        "citizen",
        "active_citizen",
        "doctor",
        "blocker",
        "commissar",
        "detective",
        "investigator",
        "judge",
        "witness",
        "hacker",
        "journalist",
        "immortal",
        "criminalist",
        "bodyguard",
        "drug_dealer",
        "liar",
        "advocate",
        "inquisitor",
        "hero",
        "fanatic",
        "bum",
        "cultist",
        "politician",
        "prostitute",
        "terrorist",
        "priest",
        "hypnotist",
        "kamikaze",
        "madman",
    }
)
# §16.1-§16.5 optional
NEGATIVE = frozenset({"mafia", "maniac", "son_of_boss", "joker", "poisoner", "executor", "geisha"})
ELITE = frozenset({"agent", "mason"})  # §17 optional
GREY = frozenset({"faceless"})  # §16.6 optional

# §4: the step ids.
STEPS = frozenset(
    {
        "election",
        "runoff",
        "secretary",
        "pre_vote",
        "lynch",
        "hunt",
        "revote",
        "vote_moves",
        "last_moves",
        "extra_vote",
        "night",
    }
)

# §1.1 teams; §8.7 causes of the core game.
TEAMS = frozenset({"red", "black", "grey"})
CAUSES = frozenset(
    {"mafia", "maniac", "investigator", "suicide", "lynch", "inactivity"}
    | {"link", "inquisitor", "fanatic", "cultist"}  # optional: §15.2, §15.10, §15.17, §15.21
    | {"kamikaze", "madman", "poison", "geisha"}  # optional: §15.19, §15.20, §16.3, §16.5
    | {"joker", "poisoner", "executor"}  # optional: §7.4.7
)

# §13.3: event type -> fields.
EVENTS: Mapping[str, frozenset[str]] = {
    "setup": frozenset({"format", "peaceful", "negative", "faceless", "elite"}),
    "role": frozenset({"player", "role", "negative", "team", "partners"}),
    "mayor": frozenset({"player", "via"}),
    "no_mayor": frozenset(),
    "election_tie": frozenset({"players"}),
    "secretary": frozenset({"player"}),
    "mayor_lost": frozenset({"player", "reason"}),
    "secretary_lost": frozenset({"player", "reason"}),
    # + §15.15 `drugged`, §15.9 `defended`
    # + §15.1 `shadow`
    "vote_start": frozenset(
        {"kind", "vertical", "approvals", "needed", "drugged", "defended", "shadow", "detonator"}
    ),
    "lynch": frozenset({"player", "players", "totals", "ballots", "auto"}),
    "revote": frozenset({"players", "totals", "ballots", "auto"}),
    "death": frozenset({"player", "cause", "revealed", "via"}),
    "public_result": frozenset({"role", "result"}),
    "heal": frozenset({"player", "targets", "result", "saved"}),
    "block": frozenset({"player", "mode", "target", "result", "roles"}),
    "blocked": frozenset({"player", "role"}),
    "check": frozenset({"player", "role", "target", "result", "colour", "false_black", "shown"}),
    "verified": frozenset({"player", "target", "colour"}),
    "track": frozenset(
        {"player", "target", "result", "went_to", "team", "visitors", "blackened", "shown"}
    ),
    "role_seen": frozenset({"player", "target", "role", "negative"}),
    "role_request": frozenset({"player", "role", "result", "nights", "visitor_roles"}),
    "blackened": frozenset({"player", "side"}),
    "kill_confirmed": frozenset({"player", "target", "night"}),
    "investigator_copy": frozenset(
        {"player", "source", "target", "result", "colour", "went_to", "role", "nights"}
    ),
    "attacked": frozenset({"player"}),
    "victim_team": frozenset({"player", "target", "team"}),
    "role_change": frozenset({"player", "role", "from", "history"}),
    "crippled": frozenset({"player", "by"}),
    "inactive": frozenset({"player", "missed"}),
    "rejected": frozenset({"player", "reason"}),
    "draw": frozenset({"reason"}),
    "win": frozenset({"teams", "winners"}),
    # §15.5
    "hacked": frozenset({"player"}),
    "hack_result": frozenset({"player", "target", "role"}),
    # §15.7 (`compare` [player, targets, result], with `verified` and a black holder's `colours`;
    # `rumour_seen`: the black holder's rumour finding one night later, docs ruling)
    "compare": frozenset({"player", "targets", "result", "verified", "colours"}),
    "rumour_seen": frozenset({"player", "target", "night"}),
    # §15.2
    "life_spent": frozenset({"player"}),
    "link_attack": frozenset({"player", "target"}),
    # §15.22 (`visitor_names`: the field is `names`, docs ruling)
    "examination": frozenset({"player", "target", "role", "team"}),
    "samples": frozenset({"player", "corpse", "killer"}),
    "visitor_names": frozenset({"player", "names"}),
    # §15.15
    "drugged": frozenset({"player"}),
    # §15.8
    "watch": frozenset({"player", "target", "visitors", "left", "own_visitors"}),
    # §15.17 (`favourite_moves` fields and `revenge`: docs ruling)
    "favourite": frozenset({"player", "target", "role"}),
    "favourite_moves": frozenset({"player", "target", "went_to"}),
    "revenge": frozenset({"player", "result"}),
    # §15.16 (`saved_team`: a black Hero's finding, docs ruling)
    "hero_save": frozenset({"player", "target", "result"}),
    "saved_team": frozenset({"player", "target", "team"}),
    # §15.3 (+ `killer_team`, `ward_team`: what a black holder learns, docs ruling)
    "guard_report": frozenset({"player", "killer", "role", "original", "killer_team", "ward_team"}),
    # §15.1 (`visitor_roles` also §15.11, §15.18; `patronage`: docs ruling)
    "visitor_roles": frozenset({"player", "roles"}),
    "patronage": frozenset({"player", "target", "roles"}),
    # §15.4 (`client_role`: docs ruling; §16.5 the same)
    "night_visit": frozenset({"player"}),
    "client_role": frozenset({"player", "target", "role"}),
    # §15.6
    "explosion": frozenset({"player", "blocked"}),
    "detonator": frozenset({"player", "target", "effect"}),
    # §15.11
    "forgiven": frozenset({"player", "target"}),
    # §15.18
    "hypnosis_result": frozenset({"player", "target"}),
    # §16.2 (`joker_late`, `joker_info` fields: docs ruling)
    "joker_check": frozenset({"player", "target", "colour", "role", "negative", "false_black"}),
    "joker_late": frozenset({"player", "target", "colour", "negative"}),
    "joker_info": frozenset({"player", "target", "colour", "negative"}),
    # §16.4 (`captive_decision`: docs ruling)
    "captured": frozenset({"player"}),
    "interrogation": frozenset({"player", "target", "role", "team"}),
    "captive_decision": frozenset({"player", "decision"}),
    "destroyed": frozenset({"player", "target"}),
    # §16.5 (`katana`: docs ruling)
    "katana": frozenset({"player", "maniac"}),
    # §17.1
    "agent_left": frozenset({"player", "side"}),
    "side_info": frozenset({"player", "target", "team"}),
    # §16.6
    "slash": frozenset({"player"}),
    "slashed": frozenset({"player", "target"}),
    "slash_target": frozenset({"player"}),
    "slash_result": frozenset({"player", "target", "role"}),
    "faceless_left": frozenset({"player", "outcome"}),
    # §7.4.7 (`kill_taken`: docs ruling)
    "kill_taken": frozenset({"player"}),
}

# §12 and the implemented optional roles' sections: the action keywords (keys `Name:keyword`).
KEYWORDS = frozenset(
    {
        "kill",
        "insure",
        "noinsure",
        "suicide",
        "approve",
        "rumour",
        "heal",
        "arrest",
        "protect",
        "check",
        "verify",
        "fake_red",
        "fake_black",
        "fake_invert",
        "fake",
        "track",
        "role",
        "request",
        "vertical",
        "hunt",
        "vouch",
        "hack",
        "compare",
        "successor",
        "link",
        "unlink",
        "examine",
        "samples",
        "guard",
        "allow",
        "alibi",
        "drug",
        "double",
        "triple",
        "buy",
        "scandal",
        "hidden",
        "defend",
        "nobonus",
        "save",
        "take",
        "favourite",
        "watch",
        "drink",
        "souls",
        "support",
        "shadow",
        "patronage",
        "safe",
        "detonate",
        "forgive",
        "instead",
        "hypnotize",
        "halt",
        "fire",
        "joker",
        "poison",
        "antidote",
        "capture",
        "release",
        "torture",
        "destroy",
        "company",
        "side",
        "slash",
        "victims",
    }
)

# §5.3: the rejection codes.
REASONS = frozenset(
    {
        "not-asked",
        "keyword-required",
        "mode-required",
        "wrong-count",
        "bad-name",
        "dead",
        "self",
        "untouchable",
        "protected",
        "not-candidate",
        "blank-not-allowed",
        "repeat",
        "no-shot",
        "taken",
        "not-now",
        "not-eligible",
    }
)


@dataclass(frozen=True)
class MafiaIds(SpecIds):
    """Mafia's ids: a role value is `peaceful`, `peaceful+negative` or `negative` (§13.1)."""

    def role_parts(self, value: str) -> set[str]:
        peaceful, _, negative = value.partition("+")
        return {peaceful, negative} if negative else {value}

    def is_role(self, value: str) -> bool:
        peaceful, _, negative = value.partition("+")
        if not negative:
            return value in PEACEFUL | NEGATIVE | ELITE | GREY
        return peaceful in PEACEFUL and negative in NEGATIVE | GREY

    def is_value(self, target: str) -> bool:
        """A `request` names a role id (§7.9), a `buy` a number of votes (§15.15), a `side` a
        team id (§17)."""
        try:
            float(target)
        except ValueError:
            return target in self.roles or target in self.teams
        return True


IDS = MafiaIds(
    ruleset="mafia",
    roles=PEACEFUL | NEGATIVE | ELITE | GREY,
    steps=STEPS,
    teams=TEAMS,
    causes=CAUSES,
    events=EVENTS,
    keywords=KEYWORDS,
    reasons=REASONS,
    options=frozenset({"mayor", "format"}),
    expect_keys=frozenset({"mayor", "outcomes"}),
)
