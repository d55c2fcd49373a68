"""`superfluous-termination`: a terminate end event where nothing else could be running.

Terminating kills every other token of the scope; when the only other ends are interrupting
event subprocesses, there is nothing to kill and a plain end event says the same. Like
bpmnlint, only this basic case is detected, without flow analysis.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import FLOW_NODES, SUB_PROCESSES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    flow_elements,
    has_definition,
    is_event_subprocess,
    is_true,
    issue,
    local,
    model,
)


def _is_terminate_end(node: etree._Element) -> bool:
    return local(node) == "endEvent" and has_definition(node, "terminateEventDefinition")


def _is_interrupting_event_subprocess(node: etree._Element) -> bool:
    return is_event_subprocess(node) and any(
        local(e) == "startEvent" and is_true(e, "isInterrupting", default=True)
        for e in flow_elements(node)
    )


class SuperfluousTermination:
    id = "superfluous-termination"
    levels = {"recommended": "warn", "all": "error"}
    summary = "A terminate end event is not the only way a scope ends."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for scope in bpmn.of(SUB_PROCESSES | {"process"}):
            ends = [
                e
                for e in flow_elements(scope)
                if local(e) in FLOW_NODES and not bpmn.outgoing_of(e)
            ]
            terminates = [e for e in ends if _is_terminate_end(e)]
            if len(terminates) != 1:
                continue
            if all(_is_terminate_end(e) or _is_interrupting_event_subprocess(e) for e in ends):
                yield issue("Termination is superfluous.", terminates[0])


RULE = SuperfluousTermination()
