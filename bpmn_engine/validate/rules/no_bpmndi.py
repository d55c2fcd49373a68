"""`no-bpmndi`: every element that is drawn has a shape or edge in the diagram.

Without DI a modeller cannot show the element: it vanishes from the picture while it still
runs. Data objects are not drawn (their references are) and need none.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    FLOW_ELEMENTS,
    children,
    issue,
    local,
    reference,
)
from bpmn_engine.validate.rules._bpmn import plane_elements as di_elements

_ARTIFACTS = ("textAnnotation", "association", "group")


def _drawn(container: etree._Element) -> Iterator[etree._Element]:
    """What bpmnlint expects DI for inside one container: flow elements (nested too),
    participants, artifacts, the lanes of the first lane set, and message flows."""
    flow = children(container, FLOW_ELEMENTS)
    yield from flow
    for element in flow:
        yield from _drawn(element) if children(element, FLOW_ELEMENTS) else ()
    yield from children(container, ("participant",))
    yield from children(container, _ARTIFACTS)
    lane_sets = children(container, ("laneSet", "childLaneSet"))
    if lane_sets:
        lanes = children(lane_sets[0], ("lane",))
        yield from lanes
        for lane in lanes:
            yield from _drawn(lane) if children(lane, ("childLaneSet",)) else ()
    yield from children(container, ("messageFlow",))


class NoBpmnDi:
    id = "no-bpmndi"
    levels = {"recommended": "error", "all": "error"}
    summary = "Every element that is drawn has a BPMNDI shape or edge."

    def check(self, document: Document) -> Iterator[Issue]:
        root = document.root
        if root is None or local(root) != "definitions":
            return
        drawn = {ref for e in di_elements(root) if (ref := reference(e, "bpmnElement")) is not None}
        for container in children(root):
            for element in _drawn(container):
                element_id = element.get("id")
                if local(element) == "dataObject" or not element_id:
                    continue
                if element_id not in drawn:
                    yield issue("Element is missing bpmndi", element)


RULE = NoBpmnDi()
