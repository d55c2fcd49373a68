"""`conditional-flows`: once one outgoing flow is conditional (or default), all others are too.

A node that routes by condition takes only the flows whose condition holds; a plain flow next
to conditional ones is always taken, which is rarely what the modeller meant.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import FLOW_NODES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import condition, issue, model, reference


class ConditionalFlows:
    id = "conditional-flows"
    levels = {"recommended": "error", "all": "error"}
    summary = "Outgoing flows of a conditional fork are all conditional, or the default flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for node in bpmn.of(FLOW_NODES):
            outgoing = bpmn.outgoing_of(node)
            forking = reference(node, "default") is not None or any(
                condition(flow) is not None for flow in outgoing
            )
            if not forking:
                continue
            for flow in outgoing:
                if condition(flow) is None and not bpmn.is_default(node, flow):
                    yield issue("Sequence flow is missing condition", flow)


RULE = ConditionalFlows()
