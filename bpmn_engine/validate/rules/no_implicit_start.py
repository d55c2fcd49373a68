"""`no-implicit-start`: every flow node other than a start event has an incoming flow.

A node without incoming flow is started implicitly when its scope starts, a second start the
diagram does not show. Start events, boundary events, link catch events, event subprocesses,
compensation activities and the activities of an ad-hoc subprocess are started otherwise.
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
)


def _started_otherwise(node: etree._Element) -> bool:
    kind = local(node)
    if kind in ("startEvent", "boundaryEvent") or off_the_flow(node):
        return True
    return kind == "intermediateCatchEvent" and has_only_definitions(node, "linkEventDefinition")


class NoImplicitStart:
    id = "no-implicit-start"
    levels = {"recommended": "error", "all": "error"}
    summary = "Every flow node other than a start event has an incoming flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for node in bpmn.of(ACTIVITIES | EVENTS | GATEWAYS):
            if not bpmn.incoming_of(node) and not _started_otherwise(node):
                yield issue("Element is an implicit start", node)


RULE = NoImplicitStart()
