"""BPMN DI: where the modeller drew each element (shapes, edges, labels), read for drawing.

The engine's compiled model keeps no geometry: it is read here from the same file, through
the same safe XML reader, together with what the picture needs of the semantics (the kind of
element, its event definitions, loop characteristics, attributes that change a marker).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from bpmn_engine.errors import LoadError
from bpmn_engine.parse.xml import parse_xml, read_source

BPMN = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI = "http://www.omg.org/spec/BPMN/20100524/DI"
DC = "http://www.omg.org/spec/DD/20100524/DC"
DI = "http://www.omg.org/spec/DD/20100524/DI"


@dataclass(frozen=True)
class Bounds:
    x: float
    y: float
    width: float
    height: float

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class Element:
    """What drawing needs of one semantic element."""

    id: str
    kind: str  # the BPMN tag without namespace: task, startEvent, exclusiveGateway...
    name: str = ""
    definitions: tuple[str, ...] = ()  # event definition kinds: timer, message...
    attributes: dict[str, str] = field(default_factory=dict)
    loop: str | None = None  # standard, parallel, sequential
    conditional: bool = False  # a sequence flow with a condition
    default: bool = False  # a gateway's or activity's default flow
    source: str | None = None
    target: str | None = None
    parent: str | None = None  # the process or subprocess it is in


@dataclass(frozen=True)
class Shape:
    element: Element
    bounds: Bounds
    label: Bounds | None = None
    expanded: bool | None = None
    horizontal: bool = True
    marker_visible: bool = False


@dataclass(frozen=True)
class Edge:
    element: Element
    waypoints: tuple[tuple[float, float], ...]
    label: Bounds | None = None


@dataclass(frozen=True)
class Plane:
    id: str
    element: str | None  # the process, collaboration or subprocess drawn
    shapes: tuple[Shape, ...]
    edges: tuple[Edge, ...]


@dataclass(frozen=True)
class Drawing:
    """A file's diagrams, and its elements by id (also those no diagram shows)."""

    path: str
    planes: tuple[Plane, ...]
    elements: dict[str, Element]


def _local(node: etree._Element) -> str:
    return etree.QName(node).localname


def _bounds(node: etree._Element | None, file: str) -> Bounds | None:
    if node is None:
        return None
    try:
        values = [float(node.get(name, "")) for name in ("x", "y", "width", "height")]
    except ValueError:
        raise LoadError(
            "DI bounds need numbers for x, y, width and height", file=file, line=node.sourceline
        ) from None
    return Bounds(*values)


def _element(node: etree._Element) -> Element:
    kind = _local(node)
    definitions = tuple(
        _local(child).removesuffix("EventDefinition")
        for child in node
        if isinstance(child.tag, str) and _local(child).endswith("EventDefinition")
    ) + tuple("ref" for child in node if _local_or(child) == "eventDefinitionRef")
    loop = None
    for child in node:
        if _local_or(child) == "standardLoopCharacteristics":
            loop = "standard"
        elif _local_or(child) == "multiInstanceLoopCharacteristics":
            loop = "sequential" if child.get("isSequential") == "true" else "parallel"
    conditional = any(_local_or(child) == "conditionExpression" for child in node)
    attributes = {k: v for k, v in node.attrib.items() if isinstance(k, str) and "}" not in k}
    if kind == "textAnnotation":  # its text is a child element
        text = node.find(f"{{{BPMN}}}text")
        attributes["text"] = (text.text or "") if text is not None else ""
    return Element(
        id=node.get("id", ""),
        kind=kind,
        name=node.get("name", "") or "",
        definitions=definitions,
        attributes=attributes,
        loop=loop,
        conditional=conditional,
        source=node.get("sourceRef"),
        target=node.get("targetRef"),
        parent=node.getparent().get("id") if node.getparent() is not None else None,
    )


def _local_or(node: etree._Element) -> str:
    return _local(node) if isinstance(node.tag, str) else ""


def read_drawing(path: str | Path, source: bytes | None = None) -> Drawing:
    """The diagrams of one BPMN file (or of `source`, the text of the file at `path`, as the
    store keeps it); a LoadError (file:line) for XML or DI it cannot read."""
    file = str(path)
    root = parse_xml(read_source(path) if source is None else source, file)
    if etree.QName(root).namespace != BPMN or _local(root) != "definitions":
        raise LoadError("not a BPMN 2.0 file (no bpmn:definitions root)", file=file)
    elements: dict[str, Element] = {}
    defaults: set[str] = set()
    for node in root.iter():
        if not isinstance(node.tag, str) or etree.QName(node).namespace != BPMN:
            continue
        if node.get("id"):
            elements[node.get("id", "")] = _element(node)
        if node.get("default"):
            defaults.add(node.get("default", ""))
    for flow in defaults & set(elements):
        old = elements[flow]
        elements[flow] = Element(**{**old.__dict__, "default": True})
    planes = []
    for diagram in root.iter(f"{{{BPMNDI}}}BPMNDiagram"):
        for plane in diagram.iter(f"{{{BPMNDI}}}BPMNPlane"):
            planes.append(_plane(plane, elements, file))
    return Drawing(file, tuple(planes), elements)


def _plane(plane: etree._Element, elements: dict[str, Element], file: str) -> Plane:
    shapes: list[Shape] = []
    edges: list[Edge] = []
    for node in plane:
        if not isinstance(node.tag, str):
            continue
        ref = node.get("bpmnElement", "")
        element = elements.get(ref)
        if element is None:
            continue  # DI of an element the file does not define: nothing to draw
        label = node.find(f"{{{BPMNDI}}}BPMNLabel")
        label_bounds = _bounds(label.find(f"{{{DC}}}Bounds"), file) if label is not None else None
        if _local(node) == "BPMNShape":
            bounds = _bounds(node.find(f"{{{DC}}}Bounds"), file)
            if bounds is None:
                raise LoadError("a BPMNShape without Bounds", file=file, line=node.sourceline)
            expanded = node.get("isExpanded")
            shapes.append(
                Shape(
                    element,
                    bounds,
                    label_bounds,
                    expanded=None if expanded is None else expanded == "true",
                    horizontal=node.get("isHorizontal", "true") != "false",
                    marker_visible=node.get("isMarkerVisible") == "true",
                )
            )
        elif _local(node) == "BPMNEdge":
            points = []
            for waypoint in node.iter(f"{{{DI}}}waypoint"):
                try:
                    points.append((float(waypoint.get("x", "")), float(waypoint.get("y", ""))))
                except ValueError:
                    raise LoadError(
                        "a waypoint needs numbers for x and y", file=file, line=waypoint.sourceline
                    ) from None
            edges.append(Edge(element, tuple(points), label_bounds))
    return Plane(plane.get("id", ""), plane.get("bpmnElement"), tuple(shapes), tuple(edges))
