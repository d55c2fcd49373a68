"""A picture for a diagram that has none: flow nodes in layers, left to right.

Files written by hand or by tools without a modeller (SpiffWorkflow tests, generated
processes) often carry no BPMN DI. Each process is laid out on its own: a node's layer is its
longest distance from a start along the sequence flows (back edges of loops ignored), nodes of
a layer stacked top to bottom; subprocesses are drawn collapsed. Good enough to see the flow;
the modeller's own layout is always preferred when the file has one.
"""

from __future__ import annotations

from bpmn_engine.diagram.di import Bounds, Drawing, Edge, Element, Plane, Shape
from bpmn_engine.diagram.svg import ACTIVITIES, EVENTS, GATEWAYS
from bpmn_engine.model import deferred  # networkx, when a diagram without DI is laid out

LAYER, ROW = 170.0, 110.0
SIZES = {"event": (36.0, 36.0), "gateway": (50.0, 50.0), "activity": (100.0, 80.0)}


def _size(kind: str) -> tuple[float, float]:
    if kind in EVENTS:
        return SIZES["event"]
    if kind in GATEWAYS:
        return SIZES["gateway"]
    return SIZES["activity"]


def laid_out(drawing: Drawing) -> Drawing:
    """`drawing` with one plane per process, placed automatically (its own planes dropped)."""
    elements = drawing.elements
    processes = [e for e in elements.values() if e.kind == "process"]
    planes = [_plane(process, elements) for process in processes]
    return Drawing(drawing.path, tuple(p for p in planes if p.shapes), elements)


def _plane(process: Element, elements: dict[str, Element]) -> Plane:
    nodes = [
        e
        for e in elements.values()
        if e.parent == process.id
        and (e.kind in EVENTS or e.kind in GATEWAYS or e.kind in ACTIVITIES)
        and e.kind != "boundaryEvent"
    ]
    ids = {n.id for n in nodes}
    flows = [
        e
        for e in elements.values()
        if e.kind == "sequenceFlow"
        and e.parent == process.id
        and e.source in ids
        and e.target in ids
    ]
    graph = deferred.nx.DiGraph()
    graph.add_nodes_from(ids)
    graph.add_edges_from((f.source, f.target) for f in flows)
    acyclic = deferred.nx.DiGraph(graph)
    starts = [n for n in ids if graph.in_degree(n) == 0] or sorted(ids)[:1]
    for start in starts:  # drop the edges that close loops, found from the starts
        for u, v, kind in deferred.nx.dfs_labeled_edges(graph, start):
            if kind == "nontree" and acyclic.has_edge(u, v) and deferred.nx.has_path(acyclic, v, u):
                acyclic.remove_edge(u, v)
    while not deferred.nx.is_directed_acyclic_graph(acyclic):  # loops no start reaches
        u, v, *_ = deferred.nx.find_cycle(acyclic)[0]
        acyclic.remove_edge(u, v)
    layer = {n: 0 for n in ids}
    for node in deferred.nx.topological_sort(acyclic):
        for successor in acyclic.successors(node):
            layer[successor] = max(layer[successor], layer[node] + 1)
    rows: dict[int, int] = {}
    shapes: dict[str, Shape] = {}
    order = sorted(nodes, key=lambda n: (layer[n.id], n.id))
    for node in order:
        row = rows.get(layer[node.id], 0)
        rows[layer[node.id]] = row + 1
        width, height = _size(node.kind)
        x = layer[node.id] * LAYER + (100 - width) / 2
        y = row * ROW + (80 - height) / 2
        shapes[node.id] = Shape(node, Bounds(x, y, width, height), expanded=False)
    edges = [Edge(f, _route(shapes[f.source].bounds, shapes[f.target].bounds)) for f in flows]
    return Plane(f"auto-{process.id}", process.id, tuple(shapes.values()), tuple(edges))


def _route(a: Bounds, b: Bounds) -> tuple[tuple[float, float], ...]:
    """Out of the source's right side, into the target's left, with right angles."""
    (ax, ay), (bx, by) = a.centre, b.centre
    start, end = (a.x + a.width, ay), (b.x, by)
    if b.x <= a.x:  # a loop back: over the top
        top = min(a.y, b.y) - 20
        return ((ax, a.y), (ax, top), (bx, top), (bx, b.y))
    if ay == by:
        return (start, end)
    middle = (start[0] + end[0]) / 2
    return (start, (middle, ay), (middle, by), end)
