"""The token net of one scope: places (flows and virtual edges) and typed nodes.

The soundness analysis never looks at XML or at the engine's state: it plays a token game on
this small structure. A *place* is anything a token can sit on: a sequence flow, the virtual
edge from a host activity to one of its boundary events, the jump from a link throw event to
its link catch events, and the virtual edge in front of every start node. A *node* is a flow
node reduced to what the token game needs: its join/split behaviour (`kind`) and whether it
terminates the scope. The decomposition (`fragments.py`) later replaces whole fragments by a
single `task` node, so nodes are mutable and carry `path`, the element ids they stand for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from bpmn_engine.model import (
    Activity,
    BoundaryEvent,
    EndEvent,
    Event,
    FlowNode,
    FlowScope,
    StartEvent,
    SubProcess,
)

# node kinds of the token game
TASK, XOR, AND, OR, END, COMPLEX = "task", "xor", "and", "or", "end", "complex"
_GATEWAY_KINDS = {
    "exclusiveGateway": XOR,
    "eventBasedGateway": XOR,  # a choice made by whichever event comes first
    "parallelGateway": AND,
    "inclusiveGateway": OR,
    "complexGateway": COMPLEX,
}
# kinds a token passes without waiting (engine steps move through them at once)
_INSTANT = {"exclusiveGateway", "parallelGateway", "inclusiveGateway", "intermediateThrowEvent"}


@dataclass
class Node:
    id: str
    kind: str
    path: tuple[str, ...]  # the element ids this node stands for (one, or a block's path)
    terminate: bool = False
    instant: bool = False  # a gateway or throw event: no work, no wait


@dataclass
class Place:
    key: str
    src: str | None  # None for the virtual place in front of a start node
    dst: str
    role: str  # "flow", "boundary", "link" or "start"
    origin: str | None  # the element the place leaves in the original scope
    conditional: bool = False
    default: bool = False
    interrupting: bool = True  # boundary places only


@dataclass
class Net:
    """One scope as a token net. `entries` are the alternative initial markings."""

    scope: FlowScope
    nodes: dict[str, Node] = field(default_factory=dict)
    places: dict[str, Place] = field(default_factory=dict)
    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    entries: list[tuple[str, ...]] = field(default_factory=list)
    exempt: set[str] = field(default_factory=set)  # never started by flow: not dead either
    unknown: str | None = None  # why a token game is not possible here

    def add_place(self, place: Place) -> None:
        self.places[place.key] = place
        self.inputs[place.dst].append(place.key)
        if place.src is not None:
            self.outputs[place.src].append(place.key)

    def successors(self, node: str) -> Iterable[str]:
        return (self.places[k].dst for k in self.outputs[node])

    def predecessors(self, node: str) -> Iterable[str]:
        for key in self.inputs[node]:
            src = self.places[key].src
            if src is not None:
                yield src

    def start_nodes(self) -> set[str]:
        return {self.places[k].dst for entry in self.entries for k in entry}

    def reachable(self, roots: Iterable[str]) -> dict[str, str | None]:
        """Breadth-first reach from `roots`: node -> the node it was first reached from."""
        parent: dict[str, str | None] = dict.fromkeys(roots)
        queue = deque(parent)
        while queue:
            node = queue.popleft()
            for nxt in self.successors(node):
                if nxt not in parent:
                    parent[nxt] = node
                    queue.append(nxt)
        return parent

    def reach_avoiding(self, start: str, avoid: str, cache: dict) -> frozenset[str]:
        """Nodes reachable from `start` (itself included) on paths around `avoid` (OR-join)."""
        key = (start, avoid)
        if key not in cache:
            seen = {start}
            queue = deque([start])
            while queue:
                for nxt in self.successors(queue.popleft()):
                    if nxt != avoid and nxt not in seen:
                        seen.add(nxt)
                        queue.append(nxt)
            cache[key] = frozenset(seen)
        return cache[key]


def path_to(parent: dict[str, str | None], node: str) -> list[str]:
    """The path a `reachable` parent map records from a root to `node`."""
    path: list[str] = []
    current: str | None = node
    while current is not None:
        path.append(current)
        current = parent[current]
    return path[::-1]


def _is_exempt(node: FlowNode) -> bool:
    """Nodes no sequence flow is meant to start: event subprocesses, compensation."""
    if isinstance(node, SubProcess) and node.triggered_by_event:
        return True
    if isinstance(node, Activity) and node.is_for_compensation:
        return True
    return isinstance(node, BoundaryEvent) and "compensate" in node.definition_kinds


def _link_name(node: FlowNode) -> str | None:
    if isinstance(node, Event):
        for definition in node.definitions:
            if definition.kind == "link":
                return definition.ref or ""
    return None


def _node(spec: FlowNode) -> Node:
    kind = _GATEWAY_KINDS.get(spec.kind, TASK)
    terminate = False
    if isinstance(spec, EndEvent):
        kind = END
        # error and cancel ends end their scope too (the error leaves it through a boundary)
        terminate = bool({"terminate", "error", "cancel"} & set(spec.definition_kinds))
    return Node(spec.id, kind, (spec.id,), terminate, spec.kind in _INSTANT)


def build_net(scope: FlowScope) -> Net:
    net = Net(scope)
    for spec in scope.nodes.values():
        if _is_exempt(spec):
            net.exempt.add(spec.id)
            continue
        net.nodes[spec.id] = _node(spec)
        net.inputs[spec.id] = []
        net.outputs[spec.id] = []
        if net.nodes[spec.id].kind == COMPLEX:
            net.unknown = f"complex gateway {spec.id!r} (line {spec.line})"
    for flow in scope.flows.values():
        if flow.source not in net.nodes or flow.target not in net.nodes:
            continue
        source = scope.nodes[flow.source]
        default = flow.is_default or getattr(source, "default", None) == flow.id
        conditional = flow.condition is not None and not default
        net.add_place(
            Place(flow.id, flow.source, flow.target, "flow", flow.source, conditional, default)
        )
    _add_boundaries(net, scope)
    _add_links(net, scope)
    _add_entries(net, scope)
    return net


def _add_boundaries(net: Net, scope: FlowScope) -> None:
    for spec in scope.nodes.values():
        if isinstance(spec, BoundaryEvent) and spec.id in net.nodes:
            host = spec.attached_to
            if host not in net.nodes:
                continue
            interrupting = spec.cancel_activity or "error" in spec.definition_kinds
            key = f"{host} > {spec.id}"
            net.add_place(Place(key, host, spec.id, "boundary", host, interrupting=interrupting))


def _add_links(net: Net, scope: FlowScope) -> None:
    """A link throw event jumps to the link catch events of the same name."""
    catches: dict[str, list[str]] = {}
    for spec in scope.nodes.values():
        name = _link_name(spec)
        if name is not None and spec.kind == "intermediateCatchEvent" and spec.id in net.nodes:
            catches.setdefault(name, []).append(spec.id)
    for spec in scope.nodes.values():
        name = _link_name(spec)
        if name is None or spec.kind != "intermediateThrowEvent" or spec.id not in net.nodes:
            continue
        for target in catches.get(name, []):
            net.add_place(Place(f"{spec.id} -> {target}", spec.id, target, "link", spec.id))


def _add_entries(net: Net, scope: FlowScope) -> None:
    """The engine starts every none start event at once; each triggered start on its own.

    Without start events, every node with no incoming flow starts (implicit start), except
    boundary events and link catch events, which are reached through their host or throw.
    """
    starts = [s for s in scope.nodes.values() if isinstance(s, StartEvent) and s.id in net.nodes]
    groups: list[list[str]]
    if starts:
        plain = [s.id for s in starts if not s.definitions]
        groups = ([plain] if plain else []) + [[s.id] for s in starts if s.definitions]
    else:
        implicit = [
            n
            for n in net.nodes
            if not net.inputs[n]
            and not isinstance(scope.nodes[n], BoundaryEvent)
            and _link_name(scope.nodes[n]) is None
        ]
        groups = [implicit] if implicit else []
    for group in groups:
        keys = []
        for node in group:
            key = f"> {node}"
            if key not in net.places:
                net.add_place(Place(key, None, node, "start", None))
            keys.append(key)
        net.entries.append(tuple(keys))
