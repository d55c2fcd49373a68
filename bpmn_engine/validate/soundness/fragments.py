"""Single-entry single-exit fragments: find them, recognise structured ones, collapse them.

A fragment is bounded by two places, `entry` and `exit`: every token that enters its interior
comes through `entry` and every token that leaves it goes through `exit`. Two places bound a
fragment when the entry dominates the exit, the exit post-dominates the entry and the two are
*cycle equivalent* (every cycle through one passes through the other; Johnson, Pearson and
Pingali, PLDI 1994). Why this way: it finds every canonical fragment in near-linear time, so a
model of thousands of nodes is cut into pieces of a handful of nodes each.

- Dominance comes from `networkx.immediate_dominators` on the graph with places split into
  nodes of their own (edge dominance); within one cycle-equivalence class the places are
  totally ordered by dominance, so consecutive ones bound the canonical fragments.
- Cycle equivalence is computed on the undirected graph closed by a virtual end -> start edge:
  each non-tree edge of a spanning tree gets a random 64-bit label, each tree edge the XOR of
  the labels of the non-tree edges that span it; equal labels mean cycle equivalent (with a
  collision chance of about 2^-64 per pair, and every fragment is re-checked anyway).
- Fragments are processed innermost first; once analysed, a fragment is replaced by one
  `task` node, so the enclosing fragment sees it as a single activity.
"""

from __future__ import annotations

import random
from collections import deque
from itertools import pairwise

import networkx as nx

from bpmn_engine.validate.soundness.net import AND, END, OR, TASK, XOR, Net, Node

_SOURCE, _SINK = "\x00source", "\x00sink"


def _core(net: Net) -> set[str]:
    """Nodes on some path from a start to an end: the only ones a fragment may hold."""
    forward = set(net.reachable(net.start_nodes()))
    sinks = [n for n in net.nodes if not net.outputs[n]]
    backward = set(sinks)
    queue = deque(sinks)
    while queue:
        for prev in net.predecessors(queue.popleft()):
            if prev not in backward:
                backward.add(prev)
                queue.append(prev)
    return forward & backward


def _edges(net: Net, core: set[str]) -> list[tuple[str, str, str]]:
    """(key, source, target) of the closed graph: places, plus virtual edges to close it."""
    edges: list[tuple[str, str, str]] = []
    for key, place in net.places.items():
        if place.dst not in core:
            continue
        if place.src is None:
            edges.append((key, _SOURCE, place.dst))
        elif place.src in core:
            edges.append((key, place.src, place.dst))
    edges.extend((f"\x00end {n}", n, _SINK) for n in core if not net.outputs[n])
    edges.append(("\x00close", _SINK, _SOURCE))
    return edges


def _cycle_classes(edges: list[tuple[str, str, str]]) -> dict[str, int]:
    """Edge key -> a label shared exactly by cycle-equivalent edges (see module doc)."""
    adjacency: dict[str, list[tuple[int, str]]] = {}
    for index, (_, u, v) in enumerate(edges):
        adjacency.setdefault(u, []).append((index, v))
        adjacency.setdefault(v, []).append((index, u))
    rng = random.Random(0x50D)
    tree_edge: dict[str, int] = {}
    order: list[str] = []
    seen = {_SOURCE}
    stack = [_SOURCE]
    while stack:
        node = stack.pop()
        order.append(node)
        for index, other in adjacency.get(node, ()):
            if other not in seen:
                seen.add(other)
                tree_edge[other] = index
                stack.append(other)
    in_tree = set(tree_edge.values())
    label: dict[int, int] = {}
    acc: dict[str, int] = dict.fromkeys(seen, 0)
    for index, (_, u, v) in enumerate(edges):
        if index not in in_tree and u in seen:
            label[index] = rng.getrandbits(64)
            acc[u] ^= label[index]
            acc[v] ^= label[index]
    for node in reversed(order):
        if node in tree_edge:
            index = tree_edge[node]
            label[index] = acc[node]
            _, u, v = edges[index]
            acc[u if v == node else v] ^= acc[node]
    return {edges[i][0]: lab for i, lab in label.items()}


def _dominance_depth(edges: list[tuple[str, str, str]]) -> dict[str, int]:
    """Depth of each edge in the dominator tree of the edge-split graph."""
    graph = nx.DiGraph()
    for key, u, v in edges:
        if key != "\x00close":
            graph.add_edge(u, ("e", key))
            graph.add_edge(("e", key), v)
    idom = nx.immediate_dominators(graph, _SOURCE)
    depth: dict[object, int] = {_SOURCE: 0}

    def depth_of(node: object) -> int:
        chain = []
        while node not in depth:
            chain.append(node)
            node = idom[node]
        base = depth[node]
        for item in reversed(chain):
            base += 1
            depth[item] = base
        return base

    return {key: depth_of(("e", key)) for key, _, _ in edges if ("e", key) in idom}


def candidate_fragments(net: Net) -> list[tuple[str, str]]:
    """(entry, exit) place pairs of the canonical fragments, innermost first."""
    core = _core(net)
    if not core:
        return []
    edges = _edges(net, core)
    labels = _cycle_classes(edges)
    depth = _dominance_depth(edges)
    classes: dict[int, list[str]] = {}
    for key, _, _ in edges:
        if key in depth and key in labels and key in net.places:
            classes.setdefault(labels[key], []).append(key)
    pairs: list[tuple[int, str, str]] = []
    for members in classes.values():
        members.sort(key=depth.__getitem__)
        for entry, exit_ in pairwise(members):
            if net.places[entry].role != "start" and depth[entry] < depth[exit_]:
                pairs.append((depth[entry], entry, exit_))
    pairs.sort(key=lambda item: -item[0])
    return [(entry, exit_) for _, entry, exit_ in pairs]


def interior(net: Net, entry: str, exit_: str) -> set[str] | None:
    """The nodes between `entry` and `exit_` if they really form a fragment, else None."""
    first = net.places[entry].dst
    last = net.places[exit_].src
    if first not in net.nodes or last not in net.nodes:
        return None
    inside = {first}
    queue = deque([first])
    while queue:
        node = queue.popleft()
        if not net.outputs[node] or net.nodes[node].kind == END:
            return None  # an end inside: tokens could leave without passing the exit
        for key in net.outputs[node]:
            if key == exit_:
                continue
            nxt = net.places[key].dst
            if nxt not in inside:
                inside.add(nxt)
                queue.append(nxt)
    if last not in inside:
        return None
    for node in inside:
        for key in net.inputs[node]:
            src = net.places[key].src
            if key != entry and (src is None or src not in inside):
                return None
        for key in net.outputs[node]:
            if key != exit_ and net.places[key].dst not in inside:
                return None
    if not _all_reach(net, inside, last):
        return None  # a loop inside with no way to the exit: one token in, but none out
    return inside


def _all_reach(net: Net, inside: set[str], last: str) -> bool:
    """Can every node of `inside` reach `last`? A token caught in a loop with no exit never
    leaves, and a terminate outside may still end it: the enclosing search must see it."""
    seen = {last}
    queue = deque([last])
    while queue:
        for prev in net.predecessors(queue.popleft()):
            if prev in inside and prev not in seen:
                seen.add(prev)
                queue.append(prev)
    return seen == inside


def representative_path(net: Net, inside: set[str], entry: str, exit_: str) -> tuple[str, ...]:
    """A shortest path of element ids through the fragment, for counterexample traces."""
    first, last = net.places[entry].dst, net.places[exit_].src
    parent: dict[str, str | None] = {first: None}
    queue = deque([first])
    while queue and last not in parent:
        node = queue.popleft()
        for nxt in net.successors(node):
            if nxt in inside and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    chain: list[str] = []
    current: str | None = last if last in parent else None
    while current is not None:
        chain.append(current)
        current = parent[current]
    return tuple(e for node in reversed(chain) for e in net.nodes[node].path)


def collapse(net: Net, inside: set[str], entry: str, exit_: str) -> str:
    """Replace the fragment by one plain task node; returns its id."""
    path = representative_path(net, inside, entry, exit_)
    instant = all(net.nodes[n].instant for n in inside)
    block = f"[{entry}..{exit_}]"
    for node in inside:
        for key in net.outputs[node]:
            if key != exit_:
                del net.places[key]
        del net.nodes[node], net.inputs[node], net.outputs[node]
    net.nodes[block] = Node(block, TASK, path, instant=instant)
    net.inputs[block] = [entry]
    net.outputs[block] = [exit_]
    net.places[entry].dst = block
    exit_place = net.places[exit_]
    exit_place.src = block
    exit_place.conditional = exit_place.default = False
    return block


def _plain(net: Net, node: str) -> bool:
    """A node that passes one token from its one input to its one output, unconditionally."""
    outputs = net.outputs[node]
    return (
        len(net.inputs[node]) == 1
        and len(outputs) == 1
        and net.places[outputs[0]].role != "boundary"
        and not net.places[outputs[0]].conditional
        and net.nodes[node].kind in (TASK, XOR, AND, OR)
    )


def _split_type(net: Net, node: Node) -> str | None:
    outputs = [net.places[k] for k in net.outputs[node.id]]
    if any(p.role == "boundary" for p in outputs):
        return None
    if node.kind in (XOR, AND, OR):
        return node.kind
    if node.kind == TASK:
        return OR if any(p.conditional or p.default for p in outputs) else AND
    return None


def _join_type(node: Node) -> str | None:
    return XOR if node.kind == TASK else node.kind if node.kind in (XOR, AND, OR) else None


def _follow(net: Net, key: str, inside: set[str], stops: set[str], seen: set[str]) -> str:
    """From place `key`, walk the plain nodes of the fragment (collecting them) up to the
    first other node."""
    node = net.places[key].dst
    while node in inside and node not in stops and node not in seen and _plain(net, node):
        seen.add(node)
        node = net.places[net.outputs[node][0]].dst
    return node


def is_structured(net: Net, inside: set[str], entry: str, exit_: str) -> bool:
    """Sound at once: a chain of plain nodes, a split and a matching join joined by chains of
    plain nodes, or a loop: an exclusive merge and an exclusive split joined by two chains."""
    first, last = net.places[entry].dst, net.places[exit_].src
    seen: set[str] = set()
    if _follow(net, entry, inside, set(), seen) == net.places[exit_].dst and seen == inside:
        return True
    if first == last:
        return False
    stops = {first, last}
    seen = set()
    if len(net.inputs[first]) == 1 and len(net.outputs[last]) == 1:
        split_type = _split_type(net, net.nodes[first])
        ends = {_follow(net, k, inside, stops, seen) for k in net.outputs[first]}
        return (
            ends == {last}
            and seen | stops == inside
            and split_type is not None
            and split_type == _join_type(net.nodes[last])
        )
    loop_back = [k for k in net.outputs[last] if k != exit_]
    return (
        len(net.inputs[first]) == 2
        and _join_type(net.nodes[first]) == XOR
        and len(net.outputs[first]) == 1
        and net.places[net.outputs[first][0]].role == "flow"
        and net.nodes[last].kind == XOR
        and len(loop_back) == 1
        and _follow(net, net.outputs[first][0], inside, stops, seen) == last
        and _follow(net, loop_back[0], inside, stops, seen) == first
        and seen | stops == inside
    )
