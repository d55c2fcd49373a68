"""`no-implicit-end`: every flow node other than an end event has an outgoing flow.

A node without outgoing flow ends its path silently, so the reader cannot tell a deliberate
end from a forgotten connection. End events, link throw events, event subprocesses,
compensation handlers and the activities of an ad-hoc subprocess are exempt.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import ACTIVITIES, EVENTS, GATEWAYS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    has_only_definitions,
    issue,
    local,
    model,
    off_the_flow,
    reference,
)


class NoImplicitEnd:
    id = "no-implicit-end"
    levels = {"recommended": "error", "all": "error"}
    summary = "Every flow node other than an end event has an outgoing flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        # compensation boundary events are tied to their handler by an association
        associated = {
            source
            for association in bpmn.by_local.get("association", [])
            if (source := reference(association, "sourceRef"))
        }
        for node in bpmn.of(ACTIVITIES | EVENTS | GATEWAYS):
            if bpmn.outgoing_of(node) or self._ends_otherwise(node, associated):
                continue
            yield issue("Element is an implicit end", node)

    @staticmethod
    def _ends_otherwise(node: etree._Element, associated: set[str]) -> bool:
        kind = local(node)
        if kind == "endEvent" or off_the_flow(node):
            return True
        if kind == "intermediateThrowEvent" and has_only_definitions(node, "linkEventDefinition"):
            return True
        return (
            kind == "boundaryEvent"
            and has_only_definitions(node, "compensateEventDefinition")
            and node.get("id") in associated
        )


RULE = NoImplicitEnd()
