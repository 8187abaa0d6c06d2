"""The Mafia game state: players with their role overlay, titles, the kill ledger, the day."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from rules.core.codec import StateCodec
from rules.core.model import Settings
from rules.mafia.ids import ELITE_ROLES, SIDE_OF_ROLE, Side, Team

RULESET_ID = "mafia"
STATE_VERSION = 1


@dataclass(frozen=True)
class Player:
    """One main player: his peaceful role, his negative role (blacks only), life, missed votes;
    ``crippled``: he lost his peaceful role's moves, effects and colour for good (§8.4);
    ``katana``: a Geisha who took the dead Maniac's katana: the maniac side (§16.5);
    ``faceless``: the grey Faceless on top of his peaceful role (§16.6)."""

    name: str
    peaceful: str
    negative: str | None = None
    gender: str | None = None
    alive: bool = True
    cause: str | None = None
    missed: int = 0
    crippled: bool = False
    katana: bool = False
    faceless: bool = False

    @property
    def team(self) -> Team:
        """``black`` for a player with a negative role, ``grey`` for the Faceless, else ``red``
        (§1.1)."""
        if self.faceless:
            return Team.GREY
        return Team.BLACK if self.negative is not None else Team.RED

    @property
    def is_red(self) -> bool:
        """Whether he is a red main player (no negative role, not the Faceless)."""
        return self.negative is None and not self.faceless and not self.is_elite

    @property
    def is_elite(self) -> bool:
        """Whether he is an elite player (§17): outside every count, untouchable."""
        return self.peaceful in ELITE_ROLES

    @property
    def is_black(self) -> bool:
        """Whether the player has a negative role."""
        return self.negative is not None

    @property
    def side(self) -> Side | None:
        """The killing side of a black (§1.1; a Geisha with the katana: the maniac side, §16.5),
        None for a red."""
        if self.katana:
            return Side.MANIAC
        return SIDE_OF_ROLE.get(self.negative) if self.negative is not None else None

    @property
    def role(self) -> str:
        """The scenario form of his roles: ``peaceful`` or ``peaceful+negative`` (§13.1)."""
        if self.faceless:
            return f"{self.peaceful}+faceless"
        return f"{self.peaceful}+{self.negative}" if self.negative else self.peaceful


@dataclass(frozen=True)
class RoleMemory:
    """What a peaceful role remembers; it passes with the role to an heir (§8.3).

    ``last_heal``/``last_heal_night``: the Doctor's last heal that took place (§5.4, §7.6).
    ``passed``: players on whom the role got a passed Commissar result (the Commissar's own
    checks, the Investigator's copies) and may verify.  ``vigilante_done``: the Investigator's
    shot right ended (§7.10).  ``history``: the role's earlier private results (JSON texts).
    ``weight``: the Judge's ballot weight (§15.14).  ``pair``/``pair_night``: the Journalist's
    last pair with a `same`/`different` result and its night (§15.7).  ``life_spent``,
    ``linked``, ``link_used``: the Immortal's spare life and link (§15.2).  ``corpse``,
    ``corpse_day``: the Criminalist's examination and its day (§15.22).  ``last_guard``,
    ``last_guard_night``: the Bodyguard's last guard that took place (§15.3, §5.4).  ``bank``,
    ``bought``: the Drug dealer's bank and the votes he bought for today (§15.15).
    ``passed_black``: the players of ``passed`` whose check read `black` (the Advocate, §15.9).
    ``burns``: player -> the night the Inquisitor may burn him; ``verified_black``: his verified
    blacks (his death-time kill); ``burned_true_black``, ``reads_red``: a black Inquisitor's
    burn of a true black, and his red reading after burning a black (§15.10).  The Hero's
    (§15.16): ``save_used``; ``saved_on``: saved player -> day; ``cancelled_red``: he cancelled
    a red's lynch; ``inherited``: an heir holds the role (night information only); ``spared``: the
    red a black Hero saved (he reads red while that red lives); ``no_kill``/``no_kill_night``:
    the black Hero and the black he saved make no kill move that night.  The Fanatic's
    (§15.17): ``favourite``; ``avenged``: his revenge ended; ``killed_mate``: he killed a
    teammate while avenging.  The Bum's (§15.8): ``watched``/``watched_night``: his chosen
    watch (repeated automatically the next night); ``drank_night``; ``no_drink``: a kill was
    aimed at him while drunk.  The Cultist's (§15.21): ``soul_targets``; ``souls`` (to spend)
    and ``souls_gained`` (ever); ``devoured``: his one devour is done; ``cult_life``: a spare
    life from a devoured teammate; ``self_heal_night``: his last heal of himself.  The
    Politician's (§15.1): ``support_cap``, how many supporters he may name.  The Terrorist's
    (§15.6): ``detonator_used``.  The Priest's (§15.11): ``priest_barrier``.  The
    Hypnotist's (§15.18): ``hypnosis_kill_night``, the one night his hypnosis took kill moves.
    ``kamikaze_done``: the Kamikaze killed a black (§15.19); ``madman_done``: the Madman's fire
    burned (§15.20).  ``self_company_night``: the Geisha's last company of herself (§16.5).
    ``lost_kill_night``: the night a Joker, Poisoner or Executor loses his kill for killing
    through his peaceful role (§16; kept under his negative role).
    """

    last_heal: tuple[str, ...] = ()
    last_heal_night: int = 0
    passed: tuple[str, ...] = ()
    vigilante_done: bool = False
    history: tuple[str, ...] = ()
    weight: int = 6
    pair: tuple[str, ...] = ()
    pair_night: int = 0
    life_spent: bool = False
    linked: str | None = None
    link_used: bool = False
    corpse: str | None = None
    corpse_day: int = 0
    last_guard: tuple[str, ...] = ()
    last_guard_night: int = 0
    bank: float = 0
    bought: float = 0
    passed_black: tuple[str, ...] = ()
    burns: Mapping[str, int] = field(default_factory=dict)
    verified_black: tuple[str, ...] = ()
    burned_true_black: bool = False
    reads_red: bool = False
    save_used: bool = False
    saved_on: Mapping[str, int] = field(default_factory=dict)
    cancelled_red: bool = False
    inherited: bool = False
    spared: str | None = None
    no_kill: tuple[str, ...] = ()
    no_kill_night: int = 0
    favourite: str | None = None
    avenged: bool = False
    killed_mate: bool = False
    watched: str | None = None
    watched_night: int = 0
    drank_night: int = 0
    no_drink: bool = False
    soul_targets: tuple[str, ...] = ()
    souls: int = 0
    souls_gained: int = 0
    devoured: bool = False
    cult_life: bool = False
    self_heal_night: int = 0
    support_cap: int = 2
    detonator_used: bool = False
    priest_barrier: int = 3
    hypnosis_kill_night: int = 0
    kamikaze_done: bool = False
    madman_done: bool = False
    self_company_night: int = 0
    lost_kill_night: int = 0


@dataclass(frozen=True)
class StoredVote:
    """A vote in force: ``player``'s vote for ``action`` (of move group ``group``)."""

    player: str
    group: str
    action: str
    targets: tuple[str, ...]


@dataclass(frozen=True)
class Ballot:
    """A counted day ballot (§6.6); ``auto``: an auto-vote against oneself (§6.5)."""

    voter: str
    targets: tuple[str, ...]
    auto: bool = False
    weight: float = 1
    hidden: bool = False


@dataclass(frozen=True)
class Pending:
    """A lynch-type vote whose result waits for the vote-time moves (§6.9): its step, the players
    asked, those who had a vote in force, and the ballots (auto-votes last)."""

    kind: str
    asked: tuple[str, ...]
    voters: tuple[str, ...]
    ballots: tuple[Ballot, ...]
    auto: tuple[str, ...]


@dataclass(frozen=True)
class Day:
    """What the current day remembers between its steps.

    ``vertical``: the player nobody may vote against today (§6.4).  ``hunt``: today's main vote
    is a hunt.  ``candidates``: runoff/revote targets, or the Secretary's eligible players.
    ``tied_asked``/``tied_ballots``: the asked players and ballots of the vote that tied.
    ``election``: the election's ballots (for the runoff and the Secretary).
    ``revote_empty``: today's vote ended in a revote that lynched nobody (§6.12).
    ``vouched``: the players the Witness vouched for today (§15.12).  ``pending``: the vote
    whose result waits for `vote_moves` (§6.9).  ``defended``: the Advocate's legal protection
    of today (§15.9).  ``last_movers``: the lynched players asked in `last_moves` (§6.9);
    ``takeable``: whom a lynched Hero may take (the voters against him).  ``extra_done``: today's
    extra vote was held (§6.10); ``hero_cancelled``: the Hero cancelled a lynch today (§6.12).
    ``supporters``, ``shadow``: the Politician's supporters and shadow vertical of today (§15.1).
    ``armed``: the Terrorist whose detonator decides today's main vote (§15.6).  ``rescued``: the
    player the Priest's forgiveness rescued: the current revote is a priest revote (§15.11).
    """

    vertical: str | None = None
    hunt: bool = False
    candidates: tuple[str, ...] = ()
    tied_asked: tuple[str, ...] = ()
    tied_ballots: tuple[Ballot, ...] = ()
    election: tuple[Ballot, ...] = ()
    revote_empty: bool = False
    vouched: tuple[str, ...] = ()
    pending: Pending | None = None
    defended: str | None = None
    last_movers: tuple[str, ...] = ()
    takeable: tuple[str, ...] = ()
    lynched: tuple[str, ...] = ()
    extra_done: bool = False
    hero_cancelled: bool = False
    supporters: tuple[str, ...] = ()
    shadow: str | None = None
    armed: str | None = None
    rescued: str | None = None


@dataclass(frozen=True)
class Ledger:
    """The black kill ledger (§7.4.2): owed shots per side, tonight's usable shots.

    ``no_due``: the next night gives no new shot (a hunt lynched two blacks).
    ``black_killed``: an Extended night 1/2 black already died by a black's kill (§7.4.8).
    """

    owed: Mapping[str, int] = field(default_factory=lambda: {"mafia": 0, "maniac": 0})
    shots: Mapping[str, int] = field(default_factory=lambda: {"mafia": 0, "maniac": 0})
    no_due: bool = False
    black_killed: bool = False


@dataclass(frozen=True)
class RoleBlock:
    """A timed role block (§8.5): ``player``'s peaceful (or negative) role is blocked until the
    ``night`` step of night ``ends`` opens."""

    player: str
    negative: bool
    ends: int


@dataclass(frozen=True)
class Confirm:
    """Information due one night later (§7.9, §7.10): a kill confirmation or a blackened copy."""

    kind: str
    player: str
    target: str
    night: int
    side: str | None = None


@dataclass(frozen=True)
class Captive:
    """The Executor's captive (§16.4): captured on ``night``; ``told``: the interrogation is
    done; ``others``: the second name of an Extended night-1/2 capture."""

    executor: str
    target: str
    night: int
    told: bool = False
    others: tuple[str, ...] = ()

    @property
    def targets(self) -> tuple[str, ...]:
        """Every player the capture holds."""
        return (self.target, *self.others)


@dataclass(frozen=True)
class GameState:
    """A whole game at one moment; immutable.  ``step`` is None once the game is over.

    ``votes``: the votes in force in arrival order.  ``peaceful_roles``: the distribution's
    peaceful roles (what a role request may name, §7.9).  ``heirs``: the Active citizens in
    their drawn order.  ``visits``: role -> night -> players its holder visited (requests).
    ``post_over``: the Mayor's post has ended for the game (§6.11).  ``successor``: the Son of
    the Boss's named successor (§16.1).  ``killers``: a night victim -> (the role whose move was
    credited with his death, its owner) (§15.22).  ``drugged``: player -> dose, from the morning
    until the next night opens (§15.15).  ``wolf_kills``: the werewolves who have a credited kill
    (they read `black`, §16).  ``poisoned``: a Poisoner's victim -> the night of the poisoning
    (§16.3).  ``captive``: the Executor's captive (§16.4).  ``sides``: an elite
    player -> the team id or the player's name he sided with (§17).  The Faceless's (§16.6):
    ``slashed`` victim -> target; ``slash_targets``, everyone ever a target; ``recovered``
    victims; ``faceless_left``: he left the game victorious; ``faceless_wait``: the T-th death
    came from his own peaceful kill, so he leaves only after one more (§16.6 outcome 1);
    ``reds_deadline``: the day by the end of which the reds must lynch him; ``blacks_ahead``:
    the black win waits one night for him.
    ``final``: the outcome of each player when the Faceless shaped the end (§16.6).
    """

    settings: Settings
    players: tuple[Player, ...]
    format: str
    peaceful_roles: tuple[str, ...]
    step: str | None = None
    night: int = 0
    day: int = 0
    votes: tuple[StoredVote, ...] = ()
    draws: int = 0
    mayor: str | None = None
    secretary: str | None = None
    post_over: bool = False
    red_lynched: bool = False
    hunt_held: bool = False
    today: Day = field(default_factory=Day)
    ledger: Ledger = field(default_factory=Ledger)
    memory: Mapping[str, RoleMemory] = field(default_factory=dict)
    heirs: tuple[str, ...] = ()
    visits: Mapping[str, Mapping[int, tuple[str, ...]]] = field(default_factory=dict)
    confirms: tuple[Confirm, ...] = ()
    blocks: tuple[RoleBlock, ...] = ()
    successor: str | None = None
    killers: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    drugged: Mapping[str, int] = field(default_factory=dict)
    wolf_kills: tuple[str, ...] = ()
    poisoned: Mapping[str, int] = field(default_factory=dict)
    captive: Captive | None = None
    sides: Mapping[str, str] = field(default_factory=dict)
    slashed: Mapping[str, str] = field(default_factory=dict)
    slash_targets: tuple[str, ...] = ()
    recovered: tuple[str, ...] = ()
    faceless_left: bool = False
    faceless_wait: bool = False
    dead_count: int = 0
    reds_deadline: int = 0
    blacks_ahead: bool = False
    final: Mapping[str, str] = field(default_factory=dict)
    stalemate: tuple[str, ...] | None = None
    winners: tuple[str, ...] = ()
    teams: tuple[str, ...] = ()
    draw: bool = False

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.step is None

    @property
    def seed(self) -> int:
        """The game's seed."""
        return self.settings.seed

    @property
    def living(self) -> tuple[Player, ...]:
        """The living main players (elite players aside, §17), in seat order."""
        return tuple(p for p in self.players if p.alive and not p.is_elite)

    def find(self, name: str) -> Player | None:
        """Return the player called ``name``, or None."""
        for player in self.players:
            if player.name == name:
                return player
        return None

    def get(self, name: str) -> Player:
        """Return the player called ``name``; raises KeyError when there is none."""
        player = self.find(name)
        if player is None:
            raise KeyError(name)
        return player

    def holder(self, role: str) -> Player | None:
        """Return the living holder of the peaceful ``role`` (one per game, §1.1), or None."""
        for player in self.living:
            if player.peaceful == role:
                return player
        return None

    def partners(self, name: str) -> tuple[str, ...]:
        """The other members of ``name``'s mafia side, living or dead (§7.4.5)."""
        player = self.get(name)
        if player.side is not Side.MAFIA:
            return ()
        return tuple(p.name for p in self.players if p.side is Side.MAFIA and p.name != player.name)

    def side_members(self, side: Side) -> tuple[Player, ...]:
        """The living members of ``side``."""
        return tuple(p for p in self.living if p.side is side)

    def vote_of(self, player: str, group: str) -> StoredVote | None:
        """Return ``player``'s vote in force for move group ``group``, or None."""
        for vote in self.votes:
            if vote.player == player and vote.group == group:
                return vote
        return None

    def votes_by(self, player: str) -> Iterator[StoredVote]:
        """Yield ``player``'s votes in force."""
        return (vote for vote in self.votes if vote.player == player)

    def mayor_in_office(self) -> str | None:
        """The Mayor while he holds his post (§6.11), else None."""
        return None if self.post_over else self.mayor

    def secretary_in_office(self) -> str | None:
        """The Secretary while she holds her post, else None."""
        return None if self.post_over else self.secretary

    def is_role_blocked(self, name: str, *, negative: bool = False) -> bool:
        """Whether ``name``'s peaceful (``negative``: negative) role is blocked now (§8.5); a
        crippled player's peaceful role is blocked for good (§8.4)."""
        if not negative:
            player = self.find(name)
            if player is not None and (player.crippled or name in self.slashed):
                return True
        return any(b.player == name and b.negative == negative for b in self.blocks)

    def memory_of(self, role: str) -> RoleMemory:
        """Return the memory of the peaceful ``role``."""
        return self.memory.get(role, RoleMemory())


CODEC: StateCodec[GameState] = StateCodec(
    GameState, ruleset=RULESET_ID, version=STATE_VERSION, header_last=True
)
"""The state to and from its stored JSON form (sparse, see rules/core/codec.py; the full form
stored before loads the same)."""
