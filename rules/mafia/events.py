"""The Mafia events (docs/rules/mafia.md §13.3): frozen values with an audience."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rules.core.events import Audience, Event, RejectedVote, Removed, Win
from rules.core.view import JsonValue


class _Private(Event):
    """An event told only to its ``player``."""

    player: str

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player)


@dataclass(frozen=True)
class Setup(Event):
    """The roles in the game (public, start): peaceful and negative multisets (§10)."""

    type: ClassVar[str] = "setup"
    format: str
    peaceful: Mapping[str, int]
    negative: Mapping[str, int]
    faceless: bool
    elite: Mapping[str, str]


@dataclass(frozen=True)
class RoleInfo(_Private):
    """``player``'s roles, team and (mafia side) partners (start, §10)."""

    type: ClassVar[str] = "role"
    player: str
    role: str
    negative: str | None
    team: str
    partners: tuple[str, ...]


@dataclass(frozen=True)
class Mayor(Event):
    """``player`` is elected Mayor (public, §6.1, §6.2)."""

    type: ClassVar[str] = "mayor"
    player: str
    via: str


@dataclass(frozen=True)
class NoMayor(Event):
    """The election gave no Mayor (public, §6.1)."""

    type: ClassVar[str] = "no_mayor"


@dataclass(frozen=True)
class ElectionTie(Event):
    """The election is tied between ``players``: a runoff among them follows, without their
    votes (public, §6.1)."""

    type: ClassVar[str] = "election_tie"
    players: tuple[str, ...]


@dataclass(frozen=True)
class Secretary(Event):
    """``player`` is the Mayor's Secretary (public, §6.3)."""

    type: ClassVar[str] = "secretary"
    player: str


@dataclass(frozen=True)
class MayorLost(Event):
    """The Mayor ``player`` lost his post (public, §6.11)."""

    type: ClassVar[str] = "mayor_lost"
    player: str
    reason: str


@dataclass(frozen=True)
class SecretaryLost(Event):
    """The Secretary ``player`` lost her post (public, §6.11)."""

    type: ClassVar[str] = "secretary_lost"
    player: str
    reason: str


@dataclass(frozen=True)
class VoteStart(Event):
    """The result of ``pre_vote`` (public, §6.4)."""

    type: ClassVar[str] = "vote_start"
    kind: str
    vertical: str | None
    approvals: int
    needed: int
    drugged: tuple[str, ...] = ()
    defended: str | None = None
    shadow: str | None = None
    detonator: str | None = None


@dataclass(frozen=True)
class Lynch(Event):
    """The final result of a lynch-type vote (public, §6.5)."""

    type: ClassVar[str] = "lynch"
    player: str | None
    players: tuple[str, ...]
    totals: Mapping[str, int | float]
    ballots: Mapping[str, JsonValue]
    auto: tuple[str, ...]


@dataclass(frozen=True)
class Revote(Event):
    """A tie sends the vote to a ``revote`` among ``players`` (public, §6.7)."""

    type: ClassVar[str] = "revote"
    players: tuple[str, ...]
    totals: Mapping[str, int | float]
    ballots: Mapping[str, JsonValue]
    auto: tuple[str, ...]


@dataclass(frozen=True)
class Death(Event):
    """``player`` died of ``cause``; ``revealed`` are his roles as shown (§8.1).

    The cause of a night death is for the transcript only (``as_told`` drops it).
    """

    type: ClassVar[str] = "death"
    player: str
    cause: str | None
    revealed: Mapping[str, str]
    via: str | None = None

    @property
    def at_night(self) -> bool:
        """Whether it is a night death (which reveals no team, §8.1)."""
        return "team" not in self.revealed


@dataclass(frozen=True)
class PublicResult(Event):
    """The public line of a night role: ``hit``/``miss`` or the check's kind (§7.11)."""

    type: ClassVar[str] = "public_result"
    role: str
    result: str


@dataclass(frozen=True)
class Heal(_Private):
    """The Doctor's result (§7.6)."""

    type: ClassVar[str] = "heal"
    player: str
    targets: tuple[str, ...]
    result: str
    saved: tuple[str, ...]


@dataclass(frozen=True)
class Block(_Private):
    """The Blocker's result (§7.5): the roles he stopped or repelled on a hit."""

    type: ClassVar[str] = "block"
    player: str
    mode: str
    target: str
    result: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Blocked(_Private):
    """``player``'s move of ``role`` was stopped or failed (§7.3)."""

    type: ClassVar[str] = "blocked"
    player: str
    role: str


@dataclass(frozen=True)
class Check(_Private):
    """A colour check's private result (§7.8)."""

    type: ClassVar[str] = "check"
    player: str
    role: str
    target: str
    result: str
    colour: str | None
    false_black: bool | None
    shown: str | None


@dataclass(frozen=True)
class Verified(_Private):
    """A verification: ``target``'s true colour (§1.2, §7.8, §7.10)."""

    type: ClassVar[str] = "verified"
    player: str
    target: str
    colour: str


@dataclass(frozen=True)
class Track(_Private):
    """The Detective's tracking result (§7.9)."""

    type: ClassVar[str] = "track"
    player: str
    target: str
    result: str
    went_to: tuple[str, ...]
    team: str | None
    visitors: tuple[str, ...]
    blackened: str | None
    shown: Mapping[str, JsonValue] | None


@dataclass(frozen=True)
class RoleSeen(_Private):
    """The Detective's role check (§7.9); ``role`` is ``not_provided`` when it failed."""

    type: ClassVar[str] = "role_seen"
    player: str
    target: str
    role: str
    negative: str | None


@dataclass(frozen=True)
class RoleRequest(_Private):
    """A role request (§7.9, §7.10): night -> the players the role's holder visited."""

    type: ClassVar[str] = "role_request"
    player: str
    role: str
    result: str
    nights: Mapping[str, tuple[str, ...]]
    visitor_roles: tuple[str, ...] | None


@dataclass(frozen=True)
class Blackened(_Private):
    """A rumour was spread on the Detective ``player`` by ``side`` (§7.9)."""

    type: ClassVar[str] = "blackened"
    player: str
    side: str


@dataclass(frozen=True)
class KillConfirmed(_Private):
    """``target`` made a kill move on ``night`` (told one night later, §7.9)."""

    type: ClassVar[str] = "kill_confirmed"
    player: str
    target: str
    night: int


@dataclass(frozen=True)
class InvestigatorCopy(_Private):
    """A copy of a checker's result for the Investigator (§7.10)."""

    type: ClassVar[str] = "investigator_copy"
    player: str
    source: str
    target: str | None
    result: str
    colour: str | None
    went_to: tuple[str, ...] | None
    role: str | None
    nights: Mapping[str, tuple[str, ...]] | None


@dataclass(frozen=True)
class Attacked(_Private):
    """``player`` survived an attack or an attempt on him (§7.3)."""

    type: ClassVar[str] = "attacked"
    player: str


@dataclass(frozen=True)
class VictimTeam(Event):
    """The killer ``player`` (and his living ``partners``) learn ``target``'s team (§7.4.11)."""

    type: ClassVar[str] = "victim_team"
    player: str
    target: str
    team: str
    partners: tuple[str, ...] = ()

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player, *self.partners)


@dataclass(frozen=True)
class RoleChange(_Private):
    """``player`` inherits ``role`` from the dead ``from_`` with its ``history`` (§8.3).

    ``reason``: ``removed`` when the holder was removed by an admin (ruling 94: the removal
    counts as a death, and the heir's mail says which); in the transcript only when given (an
    optional field)."""

    type: ClassVar[str] = "role_change"
    player: str
    role: str
    from_player: str
    history: tuple[Mapping[str, JsonValue], ...]
    reason: str = ""

    def to_dict(self) -> dict[str, JsonValue]:
        """The transcript form names the dead holder ``from`` (a Python keyword)."""
        data = super().to_dict()
        data["from"] = data.pop("from_player")
        if not self.reason:
            del data["reason"]
        return data


@dataclass(frozen=True)
class Hacked(_Private):
    """``player``'s roles were hacked (blocked for a day-cycle, §15.5)."""

    type: ClassVar[str] = "hacked"
    player: str


@dataclass(frozen=True)
class HackResult(_Private):
    """The Hacker ``player`` learns ``target``'s peaceful ``role`` (§15.5)."""

    type: ClassVar[str] = "hack_result"
    player: str
    target: str
    role: str


@dataclass(frozen=True)
class Compare(_Private):
    """The Journalist's comparison of two players' colours (§15.7); ``verified``: a clean
    comparison of the last pair's true colours; ``colours``: a black Journalist's extra."""

    type: ClassVar[str] = "compare"
    player: str
    targets: tuple[str, ...]
    result: str
    verified: bool
    colours: Mapping[str, str] | None


@dataclass(frozen=True)
class RumourSeen(_Private):
    """A black Journalist learns that a red ``target`` he compared on ``night`` carried a rumour
    (one night later, §15.7)."""

    type: ClassVar[str] = "rumour_seen"
    player: str
    target: str
    night: int


@dataclass(frozen=True)
class SideRoleChange(RoleChange):
    """A negative role passes within the mafia side (§16.1: the Son of the Boss's successor);
    the side's living ``partners`` learn it too."""

    partners: tuple[str, ...] = ()

    @property
    def audience(self) -> Audience:
        return Audience.player(self.player, *self.partners)


@dataclass(frozen=True)
class LifeSpent(_Private):
    """The Immortal ``player``'s spare life was spent (§15.2)."""

    type: ClassVar[str] = "life_spent"
    player: str


@dataclass(frozen=True)
class LinkAttack(_Private):
    """The Immortal ``player`` learns that ``target`` (he or his linked player) was attacked."""

    type: ClassVar[str] = "link_attack"
    player: str
    target: str


@dataclass(frozen=True)
class Examination(_Private):
    """The Criminalist learns the ``role`` whose move killed ``target`` and his ``team``."""

    type: ClassVar[str] = "examination"
    player: str
    target: str
    role: str
    team: str


@dataclass(frozen=True)
class Samples(_Private):
    """The Criminalist's samples compared with ``corpse``: ``killer`` among them, or None."""

    type: ClassVar[str] = "samples"
    player: str
    corpse: str
    killer: str | None


@dataclass(frozen=True)
class VisitorNames(_Private):
    """The names of ``player``'s night visitors (the Criminalist, §15.22)."""

    type: ClassVar[str] = "visitor_names"
    player: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class GuardReport(_Private):
    """What a Bodyguard's night tells ``player`` (§15.3): the ``killer``'s name or ``role``, the
    ``original`` target; a black Bodyguard also the ``killer_team`` and the ``ward_team``."""

    type: ClassVar[str] = "guard_report"
    player: str
    killer: str | None
    role: str | None
    original: str | None
    killer_team: str | None = None
    ward_team: str | None = None


@dataclass(frozen=True)
class VisitorRoles(_Private):
    """The roles (scenario form, no names) of ``player``'s night visitors and of the players who
    made a move on themselves (the Politician §15.1, the Priest §15.11, the Hypnotist §15.18)."""

    type: ClassVar[str] = "visitor_roles"
    player: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Patronage(_Private):
    """The Politician's patronage of ``target`` (§15.1): the roles of ``target``'s visitors."""

    type: ClassVar[str] = "patronage"
    player: str
    target: str
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Explosion(Event):
    """The lynched Terrorist ``player``'s explosion blocks the roles of the players whose ballots
    named him (public, §15.6)."""

    type: ClassVar[str] = "explosion"
    player: str
    blocked: tuple[str, ...]


@dataclass(frozen=True)
class Detonator(Event):
    """The Terrorist ``player``'s detonator on ``target`` (public, §15.6): ``effect`` `killed`
    (both die) or `crippled` (the target lives, crippled)."""

    type: ClassVar[str] = "detonator"
    player: str
    target: str
    effect: str


@dataclass(frozen=True)
class Forgiven(Event):
    """The Priest ``player`` forgave ``target``, who is rescued from the lynch (public, §15.11);
    a priest revote follows."""

    type: ClassVar[str] = "forgiven"
    player: str
    target: str


@dataclass(frozen=True)
class HypnosisResult(_Private):
    """A killer the Hypnotist ``player`` redirected killed ``target`` (§15.18)."""

    type: ClassVar[str] = "hypnosis_result"
    player: str
    target: str


@dataclass(frozen=True)
class JokerCheck(_Private):
    """The Joker ``player``'s check of ``target`` (§16.2): the ``colour`` read, his peaceful
    ``role``, his ``negative`` role when he truly reads black, ``false_black`` for a rumoured
    red."""

    type: ClassVar[str] = "joker_check"
    player: str
    target: str
    colour: str
    role: str
    negative: str | None
    false_black: bool


@dataclass(frozen=True)
class JokerLate(_Private):
    """One night later (§16.2): a black ``target`` the Joker read `red` is black, with his
    ``negative`` role."""

    type: ClassVar[str] = "joker_late"
    player: str
    target: str
    colour: str
    negative: str | None


@dataclass(frozen=True)
class JokerInfo(_Private):
    """A killing side's member learns the Joker's result of the night (§16.2), without the
    target's peaceful role."""

    type: ClassVar[str] = "joker_info"
    player: str
    target: str
    colour: str
    negative: str | None


@dataclass(frozen=True)
class Captured(_Private):
    """``player`` was captured by the Executor: his peaceful role is blocked ("feels pain")."""

    type: ClassVar[str] = "captured"
    player: str


@dataclass(frozen=True)
class Interrogation(_Private):
    """The Executor ``player`` learns his captive's peaceful ``role`` and ``team`` (§16.4)."""

    type: ClassVar[str] = "interrogation"
    player: str
    target: str
    role: str
    team: str


@dataclass(frozen=True)
class CaptiveDecision(_Private):
    """The captive ``player`` learns the Executor's decision: `release` or `torture` (§16.4)."""

    type: ClassVar[str] = "captive_decision"
    player: str
    decision: str


@dataclass(frozen=True)
class Destroyed(Event):
    """The lynched Executor ``player`` destroys ``target``: crippled (public, §16.4)."""

    type: ClassVar[str] = "destroyed"
    player: str
    target: str


@dataclass(frozen=True)
class Katana(_Private):
    """The Geisha ``player`` takes the dead Maniac ``maniac``'s katana (§16.5): she is the
    maniac side from now on."""

    type: ClassVar[str] = "katana"
    player: str
    maniac: str


@dataclass(frozen=True)
class KillTaken(_Private):
    """The werewolf ``player`` takes the kill: both killing sides are gone (§7.4.7)."""

    type: ClassVar[str] = "kill_taken"
    player: str


@dataclass(frozen=True)
class AgentLeft(Event):
    """The Agent ``player`` leaves the game (public, §17.1): his ``side`` (a team id), or None
    when he sided by a player's name or not at all."""

    type: ClassVar[str] = "agent_left"
    player: str
    side: str | None


@dataclass(frozen=True)
class SideInfo(_Private):
    """The elite ``player`` who sided by ``target``'s name learns, when ``target`` dies at night,
    his ``team`` (§17)."""

    type: ClassVar[str] = "side_info"
    player: str
    target: str
    team: str


@dataclass(frozen=True)
class Slash(Event):
    """``player`` was slashed by the Faceless tonight (public, §16.6)."""

    type: ClassVar[str] = "slash"
    player: str


@dataclass(frozen=True)
class Slashed(_Private):
    """The slashed ``player`` learns her ``target``: his lynch gives her role back (§16.6)."""

    type: ClassVar[str] = "slashed"
    player: str
    target: str


@dataclass(frozen=True)
class SlashTarget(_Private):
    """``player`` is the target of a Faceless slash (§16.6)."""

    type: ClassVar[str] = "slash_target"
    player: str


@dataclass(frozen=True)
class SlashResult(_Private):
    """The Faceless ``player`` learns his victim ``target``'s peaceful ``role`` (§16.6)."""

    type: ClassVar[str] = "slash_result"
    player: str
    target: str
    role: str


@dataclass(frozen=True)
class FacelessLeft(Event):
    """The Faceless ``player`` leaves the game with ``outcome`` `win` (public, §16.6)."""

    type: ClassVar[str] = "faceless_left"
    player: str
    outcome: str


@dataclass(frozen=True)
class NightVisit(_Private):
    """``player`` was taken for the night by the Prostitute or the Geisha (§15.4, §16.5)."""

    type: ClassVar[str] = "night_visit"
    player: str


@dataclass(frozen=True)
class ClientRole(_Private):
    """The Prostitute (or the Geisha) ``player`` learns her client's peaceful ``role``."""

    type: ClassVar[str] = "client_role"
    player: str
    target: str
    role: str


@dataclass(frozen=True)
class Crippled(_Private):
    """``player`` is crippled by ``by`` (a role id, §8.4): his peaceful role is lost for good."""

    type: ClassVar[str] = "crippled"
    player: str
    by: str


@dataclass(frozen=True)
class Drugged(_Private):
    """``player`` was drugged tonight (a barrier at the next day's votes; dose untold, §15.15)."""

    type: ClassVar[str] = "drugged"
    player: str


@dataclass(frozen=True)
class HeroSave(Event):
    """The Hero saves ``target`` (public, §15.16): ``result`` `cancelled` (the lynch of ``target``
    is cancelled) or `joined` (the Hero is lynched with a black ``target``)."""

    type: ClassVar[str] = "hero_save"
    player: str
    target: str
    result: str


@dataclass(frozen=True)
class SavedTeam(_Private):
    """A black Hero learns the team of the player he saved (§15.16)."""

    type: ClassVar[str] = "saved_team"
    player: str
    target: str
    team: str


@dataclass(frozen=True)
class Favourite(_Private):
    """The Fanatic ``player``'s favourite ``target`` and his peaceful ``role`` (§15.17)."""

    type: ClassVar[str] = "favourite"
    player: str
    target: str
    role: str


@dataclass(frozen=True)
class FavouriteMoves(_Private):
    """Whom the Fanatic's favourite ``target`` visited with his peaceful role tonight (§15.17)."""

    type: ClassVar[str] = "favourite_moves"
    player: str
    target: str
    went_to: tuple[str, ...]


@dataclass(frozen=True)
class Revenge(_Private):
    """The Fanatic's night of revenge: ``avenged`` (it ends), ``again`` (no kill credited, he may
    try again) or ``go_on`` (he killed a teammate) (§15.17)."""

    type: ClassVar[str] = "revenge"
    player: str
    result: str


@dataclass(frozen=True)
class Watch(_Private):
    """The Bum's watch of ``target`` (§15.8): who visited the house, whether ``target`` went out
    (``left``), and who visited the Bum himself."""

    type: ClassVar[str] = "watch"
    player: str
    target: str
    visitors: tuple[str, ...]
    left: bool
    own_visitors: tuple[str, ...]


@dataclass(frozen=True)
class Inactive(_Private):
    """``player`` has missed ``missed`` day votes in a row (§5.5)."""

    type: ClassVar[str] = "inactive"
    player: str
    missed: int


@dataclass(frozen=True)
class Draw(Event):
    """The game ends in a draw (public, §9)."""

    type: ClassVar[str] = "draw"
    reason: str


EVENT_TYPES: Mapping[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Setup,
        RoleInfo,
        Mayor,
        NoMayor,
        ElectionTie,
        Secretary,
        MayorLost,
        SecretaryLost,
        VoteStart,
        Lynch,
        Revote,
        Removed,
        Death,
        PublicResult,
        Heal,
        Block,
        Blocked,
        Check,
        Verified,
        Track,
        RoleSeen,
        RoleRequest,
        Blackened,
        KillConfirmed,
        InvestigatorCopy,
        Attacked,
        VictimTeam,
        RoleChange,
        Hacked,
        HackResult,
        Compare,
        RumourSeen,
        LifeSpent,
        LinkAttack,
        Examination,
        Samples,
        VisitorNames,
        VisitorRoles,
        Patronage,
        Crippled,
        NightVisit,
        ClientRole,
        Explosion,
        Detonator,
        Forgiven,
        HypnosisResult,
        JokerCheck,
        JokerLate,
        JokerInfo,
        Captured,
        Interrogation,
        CaptiveDecision,
        Destroyed,
        Katana,
        KillTaken,
        AgentLeft,
        SideInfo,
        Slash,
        Slashed,
        SlashTarget,
        SlashResult,
        FacelessLeft,
        GuardReport,
        Drugged,
        HeroSave,
        SavedTeam,
        Favourite,
        FavouriteMoves,
        Revenge,
        Watch,
        Inactive,
        RejectedVote,
        Draw,
        Win,
    )
}
