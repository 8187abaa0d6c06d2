"""Night moves and what happens to them (§7.3): sending, visits, stop reasons, attacks."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rules.core.rng import draw_from
from rules.mafia import status
from rules.mafia.ids import Stop
from rules.mafia.state import GameState

CLIENT_EXEMPT = frozenset({"executor", "drug_dealer", "journalist"})
"""The roles whose moves on the Prostitute's client do not fail (§15.4)."""


@dataclass(frozen=True)
class Move:
    """A sent night move at its slot (§7.2).

    ``role``: the role that makes it (a peaceful or negative role id); ``side``/``shot``: the
    side's shot a kill move spends (an insurance carries the insured shot).
    """

    owner: str
    role: str
    action: str
    targets: tuple[str, ...]
    slot: int
    negative: bool = False
    kill: bool = False
    side: str | None = None
    shot: int | None = None
    insurance: bool = False
    stays_home: bool = False

    @property
    def target(self) -> str:
        """The first (for kill moves: the only) target."""
        return self.targets[0]


@dataclass
class Night:
    """Everything one night's resolution has decided so far.

    It is created by :func:`rules.mafia.night.resolve_night` for one resolution and never
    escapes it; the stages add to it in slot order, which is why it is not frozen.
    """

    state: GameState
    number: int
    rumours: dict[str, str] = field(default_factory=dict)
    hack: Move | None = None
    arrested: str | None = None
    protected: str | None = None
    block: tuple[str, str] | None = None
    visits: list[Move] = field(default_factory=list)
    stopped: list[tuple[Move, Stop]] = field(default_factory=list)
    repelled: list[Move] = field(default_factory=list)
    attacks: list[Move] = field(default_factory=list)
    attacked: set[str] = field(default_factory=set)
    went_out: set[str] = field(default_factory=set)
    healed: tuple[str, ...] = ()
    doctor_healed: tuple[str, ...] = ()
    heal: Move | None = None
    checks: dict[str, Move] = field(default_factory=dict)
    void_shots: dict[str, int] = field(default_factory=dict)
    kamikaze_suicide: Move | None = None
    gained_shots: dict[str, int] = field(default_factory=dict)
    deaths: dict[str, Move] = field(default_factory=dict)
    life_spent: bool = False
    link_attacks: list[str] = field(default_factory=list)
    guard: Move | None = None
    guard_black: bool = False
    guard_faceless: bool = False
    guard_allows: bool = False
    moved: list[tuple[Move, str]] = field(default_factory=list)
    retargeted: dict[str, str] = field(default_factory=dict)
    watch: Move | None = None
    shot_at_drunk: bool = False
    sent: list[Move] = field(default_factory=list)
    patron: Move | None = None
    client: str | None = None
    client_safe: bool = False
    taker: Move | None = None
    failed: list[Move] = field(default_factory=list)
    hypnotist: str | None = None
    hypnotized: dict[str, str] = field(default_factory=dict)
    redirected: dict[str, tuple[str, ...]] = field(default_factory=dict)
    hypnosis_subject: str | None = None
    skipped_kills: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Black shooters whose kill the Hypnotist made them skip (halted, or sent back onto the
    shooter): their original targets; a stopped shot for the insurances (ruling 88)."""
    fire: Move | None = None
    fire_all: bool = False
    joker: Move | None = None
    capture: Move | None = None
    geisha: Move | None = None
    slash: tuple[str, str, str] | None = None
    geisha_clients: tuple[str, ...] = ()
    geisha_taken: tuple[str, ...] | None = None
    decision: str | None = None
    flipped: set[str] = field(default_factory=set)
    poison: Move | None = None
    poison_deaths: list[Move] = field(default_factory=list)
    cured: list[str] = field(default_factory=list)
    cripples: list[tuple[str, str]] = field(default_factory=list)

    def stop_reason(self, owner: str, *, peaceful: bool, kill: bool, exempt: bool) -> Stop | None:
        """The first stop reason that holds for ``owner``'s move now (§7.3); ``exempt``: the
        move is not stopped by an earlier attack (the Doctor healing only himself)."""
        pain = not peaceful and self.state.get(owner).negative == "executor"  # §16.4
        if owner in self.attacked and not exempt and not pain:
            return Stop.ATTACKED
        if self.state.is_role_blocked(owner, negative=not peaceful):
            return Stop.ROLE_BLOCKED
        if owner == self.client or (owner in self.geisha_clients and peaceful):
            return Stop.CLIENT  # the Geisha's client keeps his negative moves (§16.5)
        if owner == self.arrested:
            return Stop.ARREST
        if owner == self.protected and peaceful and not kill:
            return Stop.HOME
        if self.fire is not None and (peaceful or self.fire_all):
            return Stop.FIRE  # §15.20: every peaceful move after N13 (§16.6: every move)
        return None

    def send(self, move: Move, *, exempt: bool = False) -> bool:
        """Send ``move``: record its visits; return whether it happens (not stopped)."""
        reason = self.stop_reason(
            move.owner, peaceful=not move.negative, kill=move.kill, exempt=exempt
        )
        self.sent.append(move)
        visits = not move.stays_home and any(t != move.owner for t in move.targets)
        if reason is not Stop.HOME and visits:
            self.visits.append(move)
        if reason is not None:
            self.stopped.append((move, reason))
            return False
        if move.kill and move.negative:
            self.went_out.add(move.owner)
        return True

    def fails_at(self, name: str, role: str = "", *, negative: bool = False) -> bool:
        """Whether ``role``'s moves aimed at ``name`` fail: on the drunk Bum as on a corpse
        (§15.8); on the Prostitute's client except the Executor's, the Drug dealer's and the
        Journalist's (§15.4); on the Geisha's client except negative moves, the Drug dealer's
        and the Journalist's (§16.5)."""
        if name == self.client and role not in CLIENT_EXEMPT:
            return True
        if name in self.geisha_clients and role not in CLIENT_EXEMPT and not negative:
            return True
        return name == status.drunk_bum(self.state)

    def strike(self, move: Move) -> None:
        """A kill move that happens reaches its target (§7.3): on the drunk Bum it fails (§15.8);
        a red Bodyguard's ward passes it to the Bodyguard (§15.3); a black Bodyguard's ward
        cannot be protected; else the Blocker's protection repels it, or it is an attack."""
        if self.fails_at(move.target, negative=move.negative):
            self.shot_at_drunk = self.shot_at_drunk or move.target != self.client
            return
        if self._is_geisha_void(move):
            return
        guard = self.guard
        if (
            guard is not None
            and not self.guard_faceless  # §15.3: nothing is moved to a Faceless Bodyguard
            and move.target == guard.target
            and move.action != "suicide"
            and move.owner != guard.owner
        ):
            if not self.guard_black:
                if move.target == self.protected:
                    self.repelled.append(move)  # both trigger: the Blocker counts it (§15.3)
                moved = replace(move, targets=(guard.owner,))
                self.moved.append((moved, move.target))
                self._hit(moved)
                return
            if not self.guard_allows:
                self.attacks.append(move)
                self.attacked.add(move.target)
                return
        self._hit(move)

    def _company_reached(self, move: Move) -> tuple[str, ...]:
        """§16.5: the clients a kill on the Geisha reaches: her non-black client; of two (her
        Prostitute-held double company) a red rather than the Faceless, of two reds one drawn
        with the seed (once a night)."""
        geisha = self.geisha
        if geisha is None or move.target != geisha.owner or move.action == "suicide":
            return ()
        if self.geisha_taken is None:
            state = self.state
            company = [
                c for c in self.geisha_clients if c != geisha.owner and not state.get(c).is_black
            ]
            if len(company) == 2:
                reds = [c for c in company if not state.get(c).faceless]
                if len(reds) == 2:
                    reds = [draw_from(state.seed, state.draws, reds)]
                    self.state = replace(state, draws=state.draws + 1)
                company = reds
            self.geisha_taken = tuple(company)
        return self.geisha_taken

    def _is_geisha_void(self, move: Move) -> bool:
        """§16.5: a black killer's move on the Geisha's black client, or her black client's kill
        on her, is void."""
        geisha = self.geisha
        if geisha is None:
            return False
        for client in self.geisha_clients:
            if client == geisha.owner or not self.state.get(client).is_black:
                continue
            if (move.negative and move.target == client) or (
                move.owner == client and move.target == geisha.owner
            ):
                return True
        return False

    def _hit(self, move: Move) -> None:
        # The Blocker's protection repels kill moves, not the Madman's fire (§15.20).
        if move.target == self.protected and move.role != "madman":
            self.repelled.append(move)
            return
        self.attacks.append(move)
        self.attacked.add(move.target)
        for company in self._company_reached(move):  # §16.5: and a red client of hers
            self.attacks.append(replace(move, targets=(company,)))
            self.attacked.add(company)
        taker = self.taker
        client = self.client
        spreads = not self.client_safe and move.action != "suicide"
        if taker is not None and move.target == taker.owner and client is not None and spreads:
            # §15.4: a kill that reaches her reaches her client alike; a Geisha client passes it
            # on to her own red client (§16.5).
            passed = replace(move, targets=(client,))
            self.attacks.append(passed)
            self.attacked.add(client)
            for company in self._company_reached(passed):
                self.attacks.append(replace(move, targets=(company,)))
                self.attacked.add(company)

    def is_unsavable(self, name: str) -> bool:
        """Whether a heal cannot save ``name`` tonight: a black Bodyguard guards him without
        `allow` (§15.3)."""
        guard = self.guard
        return (
            guard is not None
            and self.guard_black
            and not self.guard_allows
            and guard.target == name
        )

    def evening(self, move: Move) -> bool:
        """An evening move (§7.2): no visit, stopped only by a role block; whether it happens."""
        if self.state.is_role_blocked(move.owner, negative=move.negative):
            self.stopped.append((move, Stop.ROLE_BLOCKED))
            return False
        return True

    def stops_of(self, owner: str) -> list[tuple[Move, Stop]]:
        """The stopped moves of ``owner``."""
        return [(move, reason) for move, reason in self.stopped if move.owner == owner]

    def visitors_of(self, name: str) -> tuple[str, ...]:
        """The players who visited ``name`` tonight, in slot order (§7.3)."""
        found: list[str] = []
        for move in self.visits:
            if name in move.targets and move.owner != name and move.owner not in found:
                found.append(move.owner)
        return tuple(found)

    def went_to(self, name: str) -> tuple[str, ...]:
        """Whom ``name`` visited, in slot order; only his negative role's visits when he made
        visits with both roles (§7.9)."""
        own = [move for move in self.visits if move.owner == name]
        if any(m.negative for m in own) and any(not m.negative for m in own):
            own = [m for m in own if m.negative]
        found: list[str] = []
        for move in own:
            for target in move.targets:
                if target != name and target not in found:
                    found.append(target)
        return tuple(found)

    def self_movers(self) -> tuple[str, ...]:
        """The players who sent a night move aimed at themselves tonight, in slot order."""
        found: list[str] = []
        for move in self.sent:
            if move.owner in move.targets and move.owner not in found:
                found.append(move.owner)
        return tuple(found)

    def is_stopped(self, move: Move) -> bool:
        """Whether ``move`` was stopped."""
        return any(m is move for m, _ in self.stopped)
