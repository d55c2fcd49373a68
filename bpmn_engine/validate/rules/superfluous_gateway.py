"""`superfluous-gateway`: a gateway with one incoming and one outgoing flow does nothing.

It neither decides nor synchronises; remove it and connect its neighbours directly.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import GATEWAYS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import issue, model


class SuperfluousGateway:
    id = "superfluous-gateway"
    levels = {"recommended": "warn", "all": "error"}
    summary = "A gateway does not have exactly one incoming and one outgoing flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for gateway in bpmn.of(GATEWAYS):
            if len(bpmn.incoming_of(gateway)) == 1 and len(bpmn.outgoing_of(gateway)) == 1:
                yield issue("Gateway is superfluous. It only has one source and target.", gateway)


RULE = SuperfluousGateway()
