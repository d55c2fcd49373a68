"""What bpmnlint's rules need to know about a BPMN tree, read from lxml.

bpmnlint lints the full moddle tree (lanes, participants, artifacts, DI), which the compiled
model does not keep, so the rules read the XML. The element-type sets (model/kinds.py)
mirror the BPMN metamodel's inheritance (a `userTask` *is a* `Task`, *is an* `Activity`, *is
a* `FlowNode`) so that each rule can ask bpmnlint's `is(node, 'bpmn:Activity')` with a set
lookup.

Incoming and outgoing flows come from `sourceRef`/`targetRef`, never from the optional
`<incoming>`/`<outgoing>` children, which exporters often leave stale or omit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from lxml import etree

from bpmn_engine.model.kinds import ACTIVITIES, BPMN, FLOW_NODES, SUB_PROCESSES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue

BPMNDI = "http://www.omg.org/spec/BPMN/20100524/DI"
DC = "http://www.omg.org/spec/DD/20100524/DC"

_PREFIX = f"{{{BPMN}}}"

FLOW_ELEMENTS = FLOW_NODES | {
    "sequenceFlow",
    "dataObject",
    "dataObjectReference",
    "dataStoreReference",
}
# bpmnlint's `bpmn:FlowElementsContainer`
CONTAINERS = SUB_PROCESSES | {"process", "choreography", "subChoreography"}
# what `start-event-required` and `end-event-required` look into
PROCESS_SCOPES = frozenset({"process", "subProcess", "transaction"})


def local(element: etree._Element) -> str | None:
    """The local name of a BPMN-namespace element; None for anything else (DI, vendor, comments)."""
    tag = element.tag
    if isinstance(tag, str) and tag.startswith(_PREFIX):
        return tag[len(_PREFIX) :]
    return None


def bpmn(name: str) -> str:
    """The Clark-notation tag of a BPMN element (`{namespace}name`)."""
    return f"{_PREFIX}{name}"


def children(element: etree._Element, names: Iterable[str] | None = None) -> list[etree._Element]:
    """Direct BPMN children, optionally only those with one of the given local names."""
    wanted = None if names is None else set(names)
    return [
        child
        for child in element
        if (name := local(child)) is not None and (wanted is None or name in wanted)
    ]


def flow_elements(scope: etree._Element) -> list[etree._Element]:
    """The flow elements a process or subprocess directly contains, in document order."""
    return children(scope, FLOW_ELEMENTS)


def event_definitions(event: etree._Element) -> list[etree._Element]:
    """Inline event definitions (`messageEventDefinition`, ...), not `eventDefinitionRef`s."""
    return [child for child in event if (name := local(child)) and name.endswith("EventDefinition")]


def has_definition(event: etree._Element, name: str) -> bool:
    """Whether an event carries an inline definition of the given local name."""
    return any(local(d) == name for d in event_definitions(event))


def has_only_definitions(event: etree._Element, name: str) -> bool:
    """Whether an event has definitions, all of the given local name (bpmnlint's "is a link
    event", "is a compensation event")."""
    definitions = event_definitions(event)
    return bool(definitions) and all(local(d) == name for d in definitions)


def condition(flow: etree._Element) -> etree._Element | None:
    """A sequence flow's `conditionExpression` element, if any (its body may be empty)."""
    found = children(flow, ("conditionExpression",))
    return found[0] if found else None


def name_of(element: etree._Element) -> str:
    """The element's `name`, stripped; empty when missing."""
    return (element.get("name") or "").strip()


def is_true(element: etree._Element, attribute: str, default: bool = False) -> bool:
    """An `xsd:boolean` attribute (`true`/`1`), with the metamodel's default when absent."""
    value = element.get(attribute)
    if value is None:
        return default
    return value.strip() in ("true", "1")


def is_event_subprocess(element: etree._Element) -> bool:
    return local(element) in SUB_PROCESSES and is_true(element, "triggeredByEvent")


def is_for_compensation(element: etree._Element) -> bool:
    return local(element) in ACTIVITIES and is_true(element, "isForCompensation")


def off_the_flow(element: etree._Element) -> bool:
    """Started by something other than a sequence flow, so exempt from the flow rules (as in
    bpmnlint): an event subprocess, a compensation handler, an ad-hoc subprocess's activity."""
    if is_event_subprocess(element) or is_for_compensation(element):
        return True
    return local(element) in ACTIVITIES and parent_local(element) == "adHocSubProcess"


def parent_local(element: etree._Element) -> str | None:
    parent = element.getparent()
    return None if parent is None else local(parent)


def in_executable_process(element: etree._Element) -> bool:
    """bpmnlint's `isInExecutableProcess`: the nearest enclosing process is executable."""
    for ancestor in element.iterancestors(bpmn("process")):
        return is_true(ancestor, "isExecutable")
    return False


def reference(element: etree._Element, attribute: str) -> str | None:
    """An id-valued attribute, without a namespace prefix (`tns:Message_1` -> `Message_1`)."""
    value = (element.get(attribute) or "").strip()
    if not value:
        return None
    prefix, colon, rest = value.partition(":")
    if colon and prefix in (element.nsmap or {}):
        return rest
    return value


def issue(message: str, element: etree._Element) -> Issue:
    """An Issue at an element: its id and the line libxml2 read it on."""
    return Issue(message, element=element.get("id"), line=element.sourceline)


def scope_kind(scope: etree._Element) -> str:
    """`Process` or `Sub process`, the words bpmnlint's messages use."""
    return "Sub process" if local(scope) in SUB_PROCESSES else "Process"


@dataclass
class Model:
    """A document's BPMN elements, indexed once and shared by all 27 rules."""

    elements: list[etree._Element]
    by_id: dict[str, etree._Element]
    by_local: dict[str, list[etree._Element]] = field(default_factory=dict)
    outgoing: dict[str, list[etree._Element]] = field(default_factory=dict)
    incoming: dict[str, list[etree._Element]] = field(default_factory=dict)

    def of(self, names: Iterable[str]) -> list[etree._Element]:
        """Every element with one of these local names, in document order."""
        wanted = set(names)
        return [e for e in self.elements if local(e) in wanted]

    def outgoing_of(self, node: etree._Element) -> list[etree._Element]:
        node_id = node.get("id")
        return self.outgoing.get(node_id, []) if node_id else []

    def incoming_of(self, node: etree._Element) -> list[etree._Element]:
        node_id = node.get("id")
        return self.incoming.get(node_id, []) if node_id else []

    def is_default(self, node: etree._Element, flow: etree._Element) -> bool:
        """Whether `flow` is the `default` flow of its gateway or activity."""
        default = reference(node, "default")
        return default is not None and default == flow.get("id")


def model(document: Document) -> Model:
    """The indexed BPMN elements of a document, built on first use and kept in its memo."""
    cached = document.memo.get(__name__)
    if isinstance(cached, Model):
        return cached
    elements = document.bpmn_elements()
    built = Model(elements=elements, by_id=document.elements_by_id)
    for element in elements:
        name = local(element)
        if name is None:
            continue
        built.by_local.setdefault(name, []).append(element)
        if name == "sequenceFlow":
            source = element.get("sourceRef")
            target = element.get("targetRef")
            if source:
                built.outgoing.setdefault(source.strip(), []).append(element)
            if target:
                built.incoming.setdefault(target.strip(), []).append(element)
    document.memo[__name__] = built
    return built


# --- diagram interchange (BPMNDI) ------------------------------------------------------------


@dataclass(frozen=True)
class Bounds:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Shape:
    """What bpmnlint's DI rules read from a `BPMNShape` (or edge)."""

    bounds: Bounds | None
    is_expanded: bool


def plane_elements(root: etree._Element) -> Iterator[etree._Element]:
    """Every DI element placed on a diagram's plane (shapes and edges), in document order."""
    for diagram in root.iterchildren(f"{{{BPMNDI}}}BPMNDiagram"):
        for plane in diagram.iterchildren(f"{{{BPMNDI}}}BPMNPlane"):
            yield from (e for e in plane if isinstance(e.tag, str))


def bounds_of(shape: etree._Element) -> Bounds | None:
    """A shape's `dc:Bounds`, or None when missing or not numeric."""
    for element in shape.iterchildren(f"{{{DC}}}Bounds"):
        try:
            x, y, width, height = (float(element.get(k, "")) for k in ("x", "y", "width", "height"))
        except ValueError:
            return None
        return Bounds(x, y, width, height)
    return None


def shapes(document: Document) -> dict[str, Shape]:
    """DI shape per BPMN element id; a later diagram wins, as in bpmnlint's DI lookup."""
    key = f"{__name__}.shapes"
    cached = document.memo.get(key)
    if isinstance(cached, dict):
        return cached
    found: dict[str, Shape] = {}
    if document.root is not None:
        for element in plane_elements(document.root):
            target = reference(element, "bpmnElement")
            if target is None:
                continue
            found[target] = Shape(
                bounds=bounds_of(element),
                is_expanded=is_true(element, "isExpanded"),
            )
    document.memo[key] = found
    return found
