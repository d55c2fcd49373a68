"""`no-gateway-join-fork`: a gateway either joins or forks, not both.

A gateway that merges and splits at once hides two decisions in one symbol; two gateways
in a row say which semantics applies to which side.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import GATEWAYS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import issue, model


class NoGatewayJoinFork:
    id = "no-gateway-join-fork"
    levels = {"recommended": "error", "all": "error"}
    summary = "A gateway does not both join (several in) and fork (several out)."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for gateway in bpmn.of(GATEWAYS):
            if len(bpmn.incoming_of(gateway)) > 1 and len(bpmn.outgoing_of(gateway)) > 1:
                yield issue("Gateway forks and joins", gateway)


RULE = NoGatewayJoinFork()
