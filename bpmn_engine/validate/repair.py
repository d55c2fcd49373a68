"""The model `executable` and soundness check when the parser refuses a broken reference.

The parser refuses a whole file for a sequence flow whose end names no flow node of its
process or subprocess, for a `default` that is not an outgoing flow of its element, and for a
boundary event attached to nothing in its scope. The `references` layer reports each of them;
so that one broken reference does not hide every other finding of the file, the later layers
check a model compiled from a copy of the tree without them: the flow, the boundary event
(and the flows leaving it) and the `default` attribute are left out, the rest is as written.
What depended on them only (a flow's condition, a node reached only through it) is not checked.

The tests here are the parser's own (`parse/reader.py`'s `check_scope`: raw ids, one scope);
if the copy is still refused (a duplicate id, an element without an id), there is no model.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from lxml import etree

from bpmn_engine.errors import LoadError
from bpmn_engine.model import Definitions
from bpmn_engine.model.kinds import ACTIVITIES, BPMN, EVENTS, GATEWAYS, SUB_PROCESSES
from bpmn_engine.parse import compile_tree

# the elements the parser reads as the flow nodes of a scope
NODE_TAGS = frozenset(
    f"{{{BPMN}}}{kind}" for kind in ACTIVITIES | GATEWAYS | (EVENTS - {"implicitThrowEvent"})
)
SCOPE_TAGS = tuple(f"{{{BPMN}}}{kind}" for kind in ("process", *sorted(SUB_PROCESSES)))
SEQUENCE_FLOW = f"{{{BPMN}}}sequenceFlow"
BOUNDARY_EVENT = f"{{{BPMN}}}boundaryEvent"


@dataclass(frozen=True)
class Checkable:
    """A model compiled without the broken references. `left_out`: the ids of the flows and
    boundary events dropped, of the elements that lost their `default`, and of every node a
    dropped flow touched: a soundness finding there would only echo the broken reference."""

    definitions: Definitions
    left_out: frozenset[str]


def without_broken_references(root: etree._Element, source: bytes, file: str) -> Checkable | None:
    """The model of `root` with what the parser refuses left out; None if nothing was, or if
    the parser still refuses the rest."""
    tree = copy.deepcopy(root)  # the other layers read the document's own tree as written
    left_out: set[str] = set()
    for scope in tree.iter(*SCOPE_TAGS):
        _drop_broken(scope, left_out)
    if not left_out:
        return None
    try:
        definitions = compile_tree(tree, source, file)
    except LoadError:
        return None
    return Checkable(definitions, frozenset(left_out))


def _drop_broken(scope: etree._Element, left_out: set[str]) -> None:
    """Drop, from one scope, what `check_scope` would refuse; note what was touched."""
    nodes = {
        node_id: child for child in scope if child.tag in NODE_TAGS and (node_id := child.get("id"))
    }
    for node_id, node in list(nodes.items()):
        if node.tag == BOUNDARY_EVENT and _unprefixed(node.get("attachedToRef")) not in nodes:
            scope.remove(node)
            del nodes[node_id]
            left_out.add(node_id)
    sources: dict[str, str] = {}  # flow id -> the node it leaves
    for flow in list(scope.iterchildren(SEQUENCE_FLOW)):
        source, target = flow.get("sourceRef") or "", flow.get("targetRef") or ""
        if source in nodes and target in nodes:
            sources[flow.get("id") or ""] = source
            continue
        scope.remove(flow)
        left_out.update(ref for ref in (flow.get("id"), source, target) if ref)
    for node_id, node in nodes.items():
        default = node.get("default")
        if default and sources.get(default) != node_id:
            del node.attrib["default"]
            left_out.add(node_id)


def _unprefixed(value: str | None) -> str:
    """`tns:Task_1` -> `Task_1`, as the parser reads `attachedToRef`."""
    value = value or ""
    return value.split(":", 1)[1] if ":" in value and "://" not in value else value
