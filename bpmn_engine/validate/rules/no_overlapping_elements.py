"""`no-overlapping-elements`: shapes do not overlap, and stay inside their pool or subprocess.

Overlapping shapes hide each other (and the flows between them), and a shape outside its
container looks as if it belonged elsewhere. Boundary events may overlap their host, and
children lie on their parent by design.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import SUB_PROCESSES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    Bounds,
    Shape,
    children,
    flow_elements,
    issue,
    local,
    reference,
    shapes,
)


def _collide(a: Bounds, b: Bounds) -> bool:
    """Whether two rectangles touch or overlap (edges count, as in bpmnlint)."""
    return (
        a.x + a.width >= b.x
        and b.x + b.width >= a.x
        and a.y + a.height >= b.y
        and b.y + b.height >= a.y
    )


def _inside(child: Bounds, parent: Bounds) -> bool:
    return (
        child.x >= parent.x
        and child.y >= parent.y
        and child.x + child.width <= parent.x + parent.width
        and child.y + child.height <= parent.y + parent.height
    )


def _attached(a: etree._Element, b: etree._Element) -> bool:
    """A boundary event and its host may overlap."""
    return reference(a, "attachedToRef") == b.get("id") or reference(b, "attachedToRef") == a.get(
        "id"
    )


class _Checker:
    """Collects overlapping and outside elements, each once, in the order bpmnlint reports."""

    def __init__(self, di: dict[str, Shape]) -> None:
        self.di = di
        self.overlapping: dict[str, etree._Element] = {}
        self.outside: dict[str, etree._Element] = {}

    def bounds(self, element: etree._Element) -> Bounds | None:
        shape = self.di.get(element.get("id") or "")
        return None if shape is None else shape.bounds

    def siblings(self, elements: list[etree._Element]) -> None:
        """Pairwise overlap among elements drawn side by side (sweep along x)."""
        drawn = [(b, e) for e in elements if (b := self.bounds(e)) is not None]
        drawn.sort(key=lambda pair: pair[0].x)
        for i, (first, a) in enumerate(drawn):
            for second, b in drawn[i + 1 :]:
                if second.x > first.x + first.width:
                    break
                if not _attached(a, b) and _collide(first, second):
                    self.overlapping.setdefault(a.get("id") or "", a)
                    self.overlapping.setdefault(b.get("id") or "", b)

    def scope(self, scope: etree._Element, parent: Bounds | None) -> None:
        """A process (parent: its pool) or subprocess (parent: itself, when expanded)."""
        elements = [e for e in flow_elements(scope) if self.bounds(e) is not None]
        self.siblings(elements)
        for element in elements:
            bounds = self.bounds(element)
            if (
                parent is not None
                and bounds is not None
                and local(element) != "dataStoreReference"
                and not _inside(bounds, parent)
            ):
                self.outside.setdefault(element.get("id") or "", element)
        for sub in children(scope, SUB_PROCESSES):
            shape = self.di.get(sub.get("id") or "")
            self.scope(sub, shape.bounds if shape is not None and shape.is_expanded else None)


class NoOverlappingElements:
    id = "no-overlapping-elements"
    levels = {"recommended": "warn", "all": "error"}
    summary = "Diagram shapes do not overlap, and stay inside their pool or subprocess."

    def check(self, document: Document) -> Iterator[Issue]:
        root = document.root
        if root is None:
            return
        checker = _Checker(shapes(document))
        pools: dict[str, Bounds | None] = {}
        for collaboration in children(root, ("collaboration",)):
            participants = children(collaboration, ("participant",))
            checker.siblings(participants)
            for participant in participants:
                process = reference(participant, "processRef")
                if process is not None:
                    pools[process] = checker.bounds(participant)
        for process in children(root, ("process",)):
            checker.scope(process, pools.get(process.get("id") or ""))
        for element in checker.overlapping.values():
            yield issue("Element overlaps with other element", element)
        for element in checker.outside.values():
            yield issue("Element is outside of parent boundary", element)


RULE = NoOverlappingElements()
