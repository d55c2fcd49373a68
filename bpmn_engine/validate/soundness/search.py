"""Bounded state search over token markings, and how certain each problem found is.

A marking is a multiset of tokens on places, kept as a sorted tuple of `place * 2 + extra`:
`extra` marks a token the model means to be additional (it descends from a non-interrupting
boundary event), which can never be a lack of synchronisation. Data-blind: every decision
(exclusive/inclusive gateway, conditional flows out of an activity, event-based gateway,
boundary events) is explored both ways.

Certainty is a game between the scheduler and the data. A problem is *certain* (an error) when
from the initial marking some order of steps reaches it whatever every decision turns out to
be: there is a step, all of whose outcomes lead on to the problem (the attractor of the bad
states). Otherwise it needs particular decisions, which the data may rule out: a warning.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations, pairwise

import networkx as nx

from bpmn_engine.validate.soundness.net import AND, END, OR, Net

MAX_STATES = 20_000  # markings per search; past it the result is "unknown"
SCOPE_STATES = 100_000  # markings for all the searches of one scope together
MAX_DECISIONS = 8  # conditional flows of one node (2^n outcomes); more is "unknown"


class Unknown(Exception):
    """The search cannot conclude: the state bound, or semantics it does not model."""


@dataclass(frozen=True)
class Problem:
    rule: str
    element: str  # the element concerned (a join, a merge, ...)
    flows: tuple[str, ...]  # the places holding the tokens concerned
    missing: tuple[str, ...]  # deadlock: the inputs no token can reach
    trace: tuple[str, ...]
    certain: bool


Outcome = tuple[tuple[str, ...], tuple[str, ...]]  # (places for tokens, places for extras)


def outcomes(net: Net, node_id: str) -> list[Outcome]:
    """Every way the node may place tokens when it completes."""
    node = net.nodes[node_id]
    places = [net.places[k] for k in net.outputs[node_id]]
    normal = [p for p in places if p.role != "boundary"]
    if node.kind == END or not normal:
        regular: list[tuple[str, ...]] = [()]
    elif node.kind == "xor":
        regular = [(p.key,) for p in normal]
    elif node.kind == AND:
        regular = [tuple(p.key for p in normal)]
    else:
        # an inclusive gateway decides every flow (a missing condition is not modelled yet);
        # an activity always takes its unconditioned flows
        gateway = node.kind == OR
        always = tuple(p.key for p in normal if not (p.conditional or p.default or gateway))
        optional = [p.key for p in normal if (p.conditional or gateway) and not p.default]
        default = [p.key for p in normal if p.default]
        if len(optional) > MAX_DECISIONS:
            raise Unknown(f"{node_id!r} has {len(optional)} conditional flows")
        regular = []
        for size in range(len(optional) + 1):
            for chosen in combinations(optional, size):
                if always or chosen:
                    regular.append(always + chosen)
                elif default:
                    regular.append(tuple(default))
        regular = regular or [()]
    interrupting = [(p.key,) for p in places if p.role == "boundary" and p.interrupting]
    extras = [p.key for p in places if p.role == "boundary" and not p.interrupting]
    if len(extras) > MAX_DECISIONS // 2:
        raise Unknown(f"{node_id!r} has {len(extras)} non-interrupting boundary events")
    result: list[Outcome] = []
    for size in range(len(extras) + 1):
        for chosen in combinations(extras, size):
            result.extend((out, chosen) for out in [*regular, *interrupting])
    return result


class Search:
    """One bounded search over the markings of `nodes`: a fragment, or a whole scope.

    A fragment is entered by one token on its entry place; its exit place leads to a node
    outside `nodes`, so tokens there stay put: the fragment is done when all tokens are there.
    """

    def __init__(
        self, net: Net, nodes: set[str], limit: int | None = None, whole: bool = False
    ) -> None:
        self.net = net
        self.nodes = nodes
        # loops with no way out: judged here only where a terminate end may cut them short
        # (elsewhere the flow graph settles them, `structure.py`); a fragment's search cannot
        # see a terminate on a branch outside it, so only a search of the `whole` scope is sure
        self.livelocks = any(node.terminate for node in net.nodes.values())
        self.whole = whole
        self.limit = MAX_STATES if limit is None else limit
        self.keys = sorted({k for n in nodes for k in net.inputs[n] + net.outputs[n]})
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.dst = [net.places[k].dst for k in self.keys]
        # a plain end event only consumes: firing it at once commutes with every other step;
        # tokens in front of terminate ends are all alike (any of them empties the scope, none
        # enables or blocks anything), so one of them is kept
        ends = {
            i for i, node in enumerate(self.dst) if node in nodes and net.nodes[node].kind == END
        }
        self.stops = {i for i in ends if net.nodes[self.dst[i]].terminate}
        self.sinks = ends - self.stops
        self.outcomes = {n: outcomes(net, n) for n in nodes}
        self.reach_cache: dict = {}
        self.absorbing: dict[str, bool] = {}
        # the state graph: parent links for traces, steps (outcome lists) for certainty
        self.states: dict[tuple[int, ...], int] = {}
        self.markings: list[tuple[int, ...]] = []
        self.parent: list[tuple[int, str] | None] = []
        self.steps: list[list[list[int]]] = []
        self.fired: list[list[str]] = []  # the node of each step, beside `steps`
        self.bad: dict[tuple[str, str], set[int]] = {}
        self.first: dict[tuple[str, str], tuple[int, tuple[str, ...], tuple[str, ...]]] = {}

    def run(self, initial: Iterable[str]) -> list[Problem]:
        start = tuple(sorted(self.index[k] * 2 for k in initial if self.index[k] not in self.sinks))
        self._add(start, None)
        queue = deque([0])
        while queue:
            state = queue.popleft()
            marking = self.markings[state]
            if self._check_unsafe(state, marking):
                continue
            steps, fired_nodes = [], []
            for fired, consumed, extra in self._enabled(marking):
                successors = []
                for outcome in self.outcomes[fired]:
                    nxt = self._fire(marking, fired, consumed, extra, outcome)
                    if nxt not in self.states:
                        if len(self.states) >= self.limit:
                            raise Unknown(f"state bound reached ({self.limit} markings)")
                        queue.append(self._add(nxt, (state, fired)))
                    successors.append(self.states[nxt])
                steps.append(successors)
                fired_nodes.append(fired)
            self.steps[state] = steps
            self.fired[state] = fired_nodes
            if not steps:
                self._check_dead(state, marking)
        found = [self._problem(key) for key in self.first]
        return found + (self._livelocks() if self.livelocks else [])

    def _add(self, marking: tuple[int, ...], parent: tuple[int, str] | None) -> int:
        self.states[marking] = len(self.markings)
        self.markings.append(marking)
        self.parent.append(parent)
        self.steps.append([])
        self.fired.append([])
        return len(self.markings) - 1

    def _tokens(self, marking: tuple[int, ...]) -> dict[str, list[int]]:
        """Node -> the tokens waiting in front of it."""
        waiting: dict[str, list[int]] = {}
        for token in marking:
            waiting.setdefault(self.dst[token >> 1], []).append(token)
        return waiting

    def _enabled(self, marking: tuple[int, ...]) -> list[tuple[str, tuple[int, ...], bool]]:
        """(node, tokens consumed, output is extra) for every step possible in `marking`."""
        found = []
        for node, tokens in self._tokens(marking).items():
            if node not in self.nodes:
                continue
            kind, inputs = self.net.nodes[node].kind, self.net.inputs[node]
            if kind in (AND, OR) and len(inputs) > 1:
                full = {t >> 1: t for t in sorted(tokens, reverse=True)}  # normal first
                if kind == AND and len(full) < len(inputs):
                    continue
                if kind == OR and not self._or_enabled(node, full, marking):
                    continue
                chosen = tuple(full.values())
                found.append((node, chosen, all(t & 1 for t in chosen)))
            else:
                for token in set(tokens):
                    found.append((node, (token,), bool(token & 1)))
        return found

    def _or_enabled(self, join: str, full: dict[int, int], marking: tuple[int, ...]) -> bool:
        """The OR-join rule of the engine (runtime/step/joins.py) over this marking."""
        places = self.net.places
        sources = {k: places[k].src for k in self.net.inputs[join]}
        full_src = {sources[self.keys[i]] for i in full}
        empty_src = {s for k, s in sources.items() if self.index[k] not in full} - {None}
        for token in set(marking):
            where = self.dst[token >> 1]
            if where == join or where not in self.nodes:  # waiting here, or gone out
                continue
            reach = self.net.reach_avoiding(where, join, self.reach_cache)
            if reach & empty_src and not reach & full_src:
                return False
        return True

    def _fire(
        self,
        marking: tuple[int, ...],
        node: str,
        consumed: tuple[int, ...],
        extra: bool,
        outcome: Outcome,
    ) -> tuple[int, ...]:
        if self.net.nodes[node].terminate:
            return ()
        tokens = list(marking)
        for token in consumed:
            tokens.remove(token)
        regular, extras = outcome
        tokens.extend(self.index[k] * 2 + extra for k in regular)
        tokens.extend(self.index[k] * 2 + 1 for k in extras)
        kept = sorted(t for t in tokens if t >> 1 not in self.sinks)
        stopping = [t for t in kept if t >> 1 in self.stops]
        if len(stopping) > 1:
            kept = [t for t in kept if t >> 1 not in self.stops] + stopping[:1]
        return tuple(sorted(kept))

    def _flag(
        self, rule: str, node: str, state: int, flows: list[int], missing: Iterable[str] = ()
    ) -> None:
        key = (rule, node)
        self.bad.setdefault(key, set()).add(state)
        names = tuple(self.keys[p] for p in flows)
        self.first.setdefault(key, (state, names, tuple(missing)))

    def _check_unsafe(self, state: int, marking: tuple[int, ...]) -> bool:
        """Two tokens where one was meant: flag it and stop exploring past it."""
        unsafe = False
        for node, tokens in self._tokens(marking).items():
            normal = [t >> 1 for t in tokens if not t & 1]
            if len(normal) < 2:
                continue
            # `node` may lie behind the exit of a fragment: the node that would run twice
            kind, inputs = self.net.nodes[node].kind, self.net.inputs[node]
            if kind == END:
                continue
            if kind in (AND, OR) and len(inputs) > 1:
                if len(set(normal)) == len(normal):
                    continue
            elif self._absorbed(node):
                continue
            self._flag("lack-of-synchronization", node, state, normal)
            unsafe = True
        return unsafe

    def _absorbed(self, node: str) -> bool:
        """A gateway from which every path runs, without waiting, into a terminate end:
        the first token ends the scope before a second one can pass (engine steps)."""
        if node not in self.absorbing:
            self.absorbing[node] = False  # cycles are not absorbing
            spec = self.net.nodes[node]
            outputs = self.net.outputs[node]
            self.absorbing[node] = spec.terminate or (
                spec.instant
                and bool(outputs)
                and all(self._absorbed(self.net.places[k].dst) for k in outputs)
            )
        return self.absorbing[node]

    def _check_dead(self, state: int, marking: tuple[int, ...]) -> None:
        waiting = {n: t for n, t in self._tokens(marking).items() if n in self.nodes}
        for node, tokens in waiting.items():
            held = sorted({t >> 1 for t in tokens})
            names = {self.keys[p] for p in held}
            missing = [k for k in self.net.inputs[node] if k not in names]
            self._flag("deadlock", node, state, held, missing)

    def _trace(self, state: int) -> list[str]:
        fired: list[str] = []
        link = self.parent[state]
        while link is not None:
            state, node = link
            fired.append(node)
            link = self.parent[state]
        return [e for node in reversed(fired) for e in self.net.nodes[node].path]

    def _certain(self, bad: set[int]) -> bool:
        """Is the initial state in the attractor of `bad` (see module doc)?"""
        won = set(bad)
        pending: dict[tuple[int, int], int] = {}
        waiting_on: dict[int, list[tuple[int, int]]] = {}
        for state, steps in enumerate(self.steps):
            for number, successors in enumerate(steps):
                distinct = set(successors)
                pending[(state, number)] = len(distinct)
                for successor in distinct:
                    waiting_on.setdefault(successor, []).append((state, number))
        queue = deque(won)
        while queue:
            for state, number in waiting_on.get(queue.popleft(), ()):
                pending[(state, number)] -= 1
                if pending[(state, number)] == 0 and state not in won:
                    won.add(state)
                    queue.append(state)
        return 0 in won

    def _livelocks(self) -> list[Problem]:
        """Closed cycles of markings: once in one, no step leads out of it, so the scope can
        never complete (a finished marking has no step and so is never in a cycle)."""
        graph = nx.DiGraph()
        graph.add_nodes_from(range(len(self.markings)))
        for state, steps in enumerate(self.steps):
            for successors, node in zip(steps, self.fired[state], strict=True):
                for successor in successors:
                    graph.add_edge(state, successor, node=node)
        condensed = nx.condensation(graph)
        problems = []
        for component in condensed.nodes:
            members = condensed.nodes[component]["members"]
            looped = len(members) > 1 or any(graph.has_edge(m, m) for m in members)
            if condensed.out_degree(component) or not looped:
                continue
            entry = min(members)  # breadth-first: the first such marking met
            loop = sorted(
                {
                    element
                    for state, successor, node in graph.edges(members, data="node")
                    if successor in members
                    for element in self.net.nodes[node].path
                }
            )
            cycle = nx.shortest_path(
                graph.subgraph(members), entry, self._back(graph, entry, members)
            )
            around = [graph.edges[a, b]["node"] for a, b in pairwise([*cycle, entry])]
            way_in = self._trace(entry)
            # the finding is on the first element of the loop that the token met
            element = next((e for e in way_in if e in loop), self.net.nodes[around[0]].path[0])
            trace = (*way_in, *self._elements(around), self.net.nodes[around[0]].path[0])
            certain = self.whole and self._certain(set(members))
            problems.append(Problem("livelock", element, tuple(loop), (), trace, certain))
        return problems

    def _back(self, graph: nx.DiGraph, entry: int, members: set[int]) -> int:
        """A marking of the closed cycle with a step back to `entry` (itself for a self-loop)."""
        return next(p for p in graph.predecessors(entry) if p in members)

    def _elements(self, nodes: list[str]) -> list[str]:
        return [e for node in nodes for e in self.net.nodes[node].path]

    def _problem(self, key: tuple[str, str]) -> Problem:
        rule, node = key
        state, flows, missing = self.first[key]
        element = self.net.nodes[node].path[0]
        trace = (*self._trace(state), element)
        return Problem(rule, element, flows, missing, trace, self._certain(self.bad[key]))
