"""`label-required`: flow nodes, pools, lanes and conditional flows are named.

A diagram is read by people: an unnamed task or pool says nothing. Exempt, as in bpmnlint:
parallel and event-based gateways, joining gateways, subprocesses (their content speaks) and
sequence flows without a condition.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import FLOW_NODES, GATEWAYS, SUB_PROCESSES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import Model, condition, issue, local, model, name_of

_LABELLED = FLOW_NODES | {"sequenceFlow", "participant", "lane"}


def _exempt(bpmn: Model, element: etree._Element) -> bool:
    kind = local(element)
    if kind in ("parallelGateway", "eventBasedGateway") or kind in SUB_PROCESSES:
        return True
    if kind in GATEWAYS and len(bpmn.outgoing_of(element)) <= 1:
        return True
    return kind == "sequenceFlow" and condition(element) is None


class LabelRequired:
    id = "label-required"
    levels = {"recommended": "error", "all": "error"}
    summary = "Flow nodes, participants, lanes and conditional flows have a name."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for element in bpmn.of(_LABELLED):
            if not name_of(element) and not _exempt(bpmn, element):
                yield issue("Element is missing label/name", element)


RULE = LabelRequired()
