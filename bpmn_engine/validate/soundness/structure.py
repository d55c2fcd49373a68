"""Graph-only findings: dead elements and loops with no way out.

Both are properties of the flow graph alone, whatever the joins do, so they are checked on the
net before any state search and are structural certainties; except a loop in a scope with a
terminate end, which a concurrent terminate may end: the state search judges those.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from bpmn_engine.validate.soundness.net import Net, path_to
from bpmn_engine.validate.soundness.search import Problem


def dead_elements(net: Net, reached: dict[str, str | None]) -> list[Problem]:
    """Nodes no path from a start reaches; the trace runs from where the dead part begins."""
    dead = [n for n in net.nodes if n not in reached]
    return [Problem("dead-element", n, (), (), _dead_trace(net, n, set(dead)), True) for n in dead]


def _dead_trace(net: Net, node: str, dead: set[str]) -> tuple[str, ...]:
    """Back from `node` to a dead node with no predecessor (or the farthest one)."""
    child: dict[str, str | None] = {node: None}
    queue = deque([node])
    last = node
    while queue:
        last = queue.popleft()
        preds = [p for p in net.predecessors(last) if p in dead]
        if not preds:
            break
        for prev in preds:
            if prev not in child:
                child[prev] = last
                queue.append(prev)
    return tuple(path_to(child, last))


def livelocks(net: Net, reached: dict[str, str | None]) -> list[Problem]:
    """Reachable loops from which no end (a node with no way on) can be reached.

    Only where no terminate end is reachable: a terminate firing on a concurrent branch
    removes the looping token, which the flow graph cannot tell, so such a scope's loops are
    judged on its state space (`search.py`) instead.
    """
    if any(net.nodes[n].terminate for n in reached):
        return []
    ending = {n for n in reached if not net.outputs[n]}
    can_end = set(ending)
    queue = deque(ending)
    while queue:
        for prev in net.predecessors(queue.popleft()):
            if prev not in can_end:
                can_end.add(prev)
                queue.append(prev)
    stuck = [n for n in reached if n not in can_end]
    if not stuck:
        return []
    graph = nx.DiGraph()
    graph.add_nodes_from(stuck)
    graph.add_edges_from((n, m) for n in stuck for m in net.successors(n) if m in graph)
    order = {n: i for i, n in enumerate(reached)}  # breadth-first: nearest to a start first
    problems = []
    for component in nx.strongly_connected_components(graph):
        if len(component) == 1 and not graph.has_edge(*(2 * tuple(component))):
            continue
        entry = min(component, key=order.__getitem__)
        loop = _cycle(graph, component, entry)
        trace = (*path_to(reached, entry), *loop)
        problems.append(Problem("livelock", entry, tuple(sorted(component)), (), trace, True))
    return problems


def _cycle(graph: nx.DiGraph, component: set[str], entry: str) -> list[str]:
    """A shortest way around the loop, from `entry` back to it."""
    parent: dict[str, str] = {}
    queue = deque([entry])
    while queue:
        node = queue.popleft()
        for nxt in graph.successors(node):
            if nxt == entry:
                chain = [node]
                while chain[-1] != entry:
                    chain.append(parent[chain[-1]])
                return [*reversed(chain[:-1]), entry]
            if nxt in component and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return []
