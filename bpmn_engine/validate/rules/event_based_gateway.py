"""`event-based-gateway`: an event-based gateway has two or more unconditional outgoing flows.

The gateway waits for whichever following event happens first; with one path there is no
race, and a condition on a flow is meaningless (BPMN 2.0, 10.5.6).
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import condition, issue, model


class EventBasedGateway:
    id = "event-based-gateway"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "An event-based gateway has at least two outgoing flows, none of them conditional."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for gateway in bpmn.by_local.get("eventBasedGateway", []):
            outgoing = bpmn.outgoing_of(gateway)
            if len(outgoing) < 2:
                yield issue(
                    "An <Event-based Gateway> must have at least 2 outgoing <Sequence Flows>",
                    gateway,
                )
            for flow in outgoing:
                if condition(flow) is not None:
                    yield issue(
                        "A <Sequence Flow> outgoing from an <Event-based Gateway> must not be "
                        "conditional",
                        flow,
                    )


RULE = EventBasedGateway()
