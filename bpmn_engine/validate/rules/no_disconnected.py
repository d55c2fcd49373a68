"""`no-disconnected`: every task, gateway, subprocess and event is connected by a flow.

An element with neither incoming nor outgoing flow can never run (or ends at once) and is
usually a leftover. Event subprocesses, compensation handlers and boundary events, and the
activities of an ad-hoc subprocess are connected otherwise; artifacts and data are not
flow nodes and are not checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import EVENTS, GATEWAYS, SUB_PROCESSES, TASKS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    event_definitions,
    issue,
    local,
    model,
    off_the_flow,
)

# bpmnlint checks `bpmn:Task`, `bpmn:Gateway`, `bpmn:SubProcess` and `bpmn:Event`
# (call activities are not among them)
_CHECKED = TASKS | GATEWAYS | SUB_PROCESSES | EVENTS


def _connected_otherwise(node: etree._Element) -> bool:
    if off_the_flow(node):
        return True
    if local(node) == "boundaryEvent":
        definitions = event_definitions(node)
        return len(definitions) == 1 and local(definitions[0]) == "compensateEventDefinition"
    return False


class NoDisconnected:
    id = "no-disconnected"
    levels = {"recommended": "error", "all": "error"}
    summary = "Every task, gateway, subprocess and event has an incoming or outgoing flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for node in bpmn.of(_CHECKED):
            if bpmn.incoming_of(node) or bpmn.outgoing_of(node):
                continue
            if not _connected_otherwise(node):
                yield issue("Element is not connected", node)


RULE = NoDisconnected()
