"""Blocks, kidnaps and contradictions (§6.1): the "would block" graph solved component by
component, fewest contradictions first, the rest drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush

from rules.lupus.dice import Dice
from rules.lupus.intake import Action

OK = "ok"
BLOCKED = "blocked"
CONTRADICTION = "contradiction"

BLOCKERS = frozenset({"sequestratore", "stregone", "esorcista", "sciamano", "occultamento"})

# Beyond this many actions in one strongly connected component, the exact search (2**k
# assignments) gives way to a greedy one in seat order; the trace says so.  Such a component
# needs more than a dozen blockers all acting on each other in one night.
EXACT_LIMIT = 14


@dataclass(frozen=True)
class BlockResult:
    """Each action's status (``ok``/``blocked``/``contradiction``) and the kidnapped ones."""

    status: Mapping[int, str]
    kidnapped: frozenset[int]


def would_block(blocker: Action, action: Action) -> bool:
    """Whether ``blocker`` would block ``action`` if it succeeds (§6.1)."""
    if blocker.index == action.index:
        return False
    target = blocker.first
    if blocker.power == "sequestratore":
        return action.user == target
    if blocker.power == "stregone":
        return not action.ghost and action.user != blocker.user and action.first == target
    if blocker.power == "esorcista":
        return action.ghost and action.first == target
    if blocker.power == "sciamano":
        return action.ghost and action.user == target
    if blocker.power == "occultamento":
        return (
            action.power != "esorcista" and action.user != blocker.user and action.first == target
        )
    return False


def block_graph(actions: Sequence[Action]) -> dict[int, list[int]]:
    """Return blocker index -> the indexes of the actions it would block."""
    by_user: dict[str, list[Action]] = {}
    by_first: dict[str, list[Action]] = {}
    for action in actions:
        by_user.setdefault(action.user, []).append(action)
        by_first.setdefault(action.first, []).append(action)
    edges: dict[int, list[int]] = {}
    for blocker in actions:
        if blocker.power not in BLOCKERS:
            continue
        pool = by_user if blocker.power in ("sequestratore", "sciamano") else by_first
        edges[blocker.index] = [
            a.index for a in pool.get(blocker.first, ()) if would_block(blocker, a)
        ]
    return edges


def _components(nodes: Sequence[int], edges: Mapping[int, list[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components (iterative), each sorted."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    result: list[list[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = edges.get(node, [])
            if child < len(successors):
                work.append((node, child + 1))
                nxt = successors[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component: list[int] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                result.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return result


def _ordered(actions: Sequence[Action], edges: Mapping[int, list[int]]) -> list[list[int]]:
    """The components in topological order; unordered ones by the lowest seat of their users."""
    components = _components([a.index for a in actions], edges)
    where = {member: number for number, comp in enumerate(components) for member in comp}
    key = [min(actions[m].seat for m in comp) for comp in components]
    after: dict[int, set[int]] = {number: set() for number in range(len(components))}
    waiting = [0] * len(components)
    for blocker, blocked in edges.items():
        for target in blocked:
            a, b = where[blocker], where[target]
            if a != b and b not in after[a]:
                after[a].add(b)
                waiting[b] += 1
    ready: list[tuple[int, int]] = []
    for number in range(len(components)):
        if waiting[number] == 0:
            heappush(ready, (key[number], number))
    order: list[list[int]] = []
    while ready:
        _, number = heappop(ready)
        order.append(components[number])
        for nxt in sorted(after[number]):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heappush(ready, (key[nxt], nxt))
    return order


def solve_blocks(actions: Sequence[Action], dice: Dice) -> tuple[BlockResult, list[str]]:
    """Return every action's status and the kidnapped ones, with trace lines (§6.1)."""
    edges = block_graph(actions)
    blockers_of: dict[int, list[int]] = {a.index: [] for a in actions}
    for blocker, blocked in edges.items():
        for target in blocked:
            blockers_of[target].append(blocker)
    status: dict[int, str] = {}
    trace: list[str] = []
    for component in _ordered(actions, edges):
        members = set(component)
        outside = {
            m: any(status.get(b) == OK for b in blockers_of[m] if b not in members)
            for m in component
        }
        if len(component) == 1:
            status[component[0]] = BLOCKED if outside[component[0]] else OK
            continue
        chosen, exact = _solve_component(component, outside, blockers_of, dice)
        status.update(chosen)
        users = ", ".join(f"{actions[m].user}:{actions[m].power}={chosen[m]}" for m in component)
        how = "" if exact else " (greedy: component too large for the exact search)"
        trace.append(f"cycle {users}{how}")
    kidnapped = frozenset(
        a.index
        for a in actions
        if status[a.index] == BLOCKED
        and any(
            status.get(b) == OK and actions[b].power == "sequestratore"
            for b in blockers_of[a.index]
        )
    )
    for action in actions:
        if status[action.index] != OK:
            erased = " (kidnapped: erased)" if action.index in kidnapped else ""
            trace.append(f"{action.user}:{action.power} {status[action.index]}{erased}")
    return BlockResult(status=status, kidnapped=kidnapped), trace


def _solve_component(
    component: Sequence[int],
    outside: Mapping[int, bool],
    blockers_of: Mapping[int, list[int]],
    dice: Dice,
) -> tuple[dict[int, str], bool]:
    """Return the statuses of one cyclic component: the consistent assignment with the fewest
    contradictions (drawn among equals), and whether the search was exact."""
    members = list(component)
    inside = {m: [b for b in blockers_of[m] if b in component] for m in members}

    def assignment(succeeding: set[int]) -> dict[int, str] | None:
        result: dict[int, str] = {}
        for m in members:
            blocked = outside[m] or any(b in succeeding for b in inside[m])
            if m in succeeding:
                if blocked:
                    return None
                result[m] = OK
            else:
                result[m] = BLOCKED if blocked else CONTRADICTION
        return result

    if len(members) <= EXACT_LIMIT:
        best: list[dict[int, str]] = []
        fewest = len(members) + 1
        for mask in range(1 << len(members)):
            succeeding = {m for bit, m in enumerate(members) if mask >> bit & 1}
            found = assignment(succeeding)
            if found is None:
                continue
            contradictions = sum(1 for value in found.values() if value == CONTRADICTION)
            if contradictions < fewest:
                best, fewest = [found], contradictions
            elif contradictions == fewest:
                best.append(found)
        return dice.pick(best), True
    greedy_set: set[int] = set()
    for m in members:
        trial = greedy_set | {m}
        if assignment(trial) is not None:
            greedy_set = trial
    greedy = assignment(greedy_set)
    assert greedy is not None  # the empty set and each accepted step stay consistent
    return greedy, False
