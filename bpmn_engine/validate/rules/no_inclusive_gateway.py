"""`no-inclusive-gateway`: inclusive gateways are discouraged.

An inclusive join waits for every token that may still arrive, a non-local rule that is hard
to read and that not every engine implements the same way.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import issue, model


class NoInclusiveGateway:
    id = "no-inclusive-gateway"
    levels = {"recommended": "warn", "all": "error"}
    summary = "The diagram uses no inclusive gateway."

    def check(self, document: Document) -> Iterator[Issue]:
        for gateway in model(document).by_local.get("inclusiveGateway", []):
            yield issue("Element type <bpmn:InclusiveGateway> is discouraged", gateway)


RULE = NoInclusiveGateway()
