"""`no-complex-gateway`: complex gateways are not used.

A complex gateway's behaviour lives in an expression few readers (or engines) understand;
exclusive, inclusive and parallel gateways say the same more plainly.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import issue, model


class NoComplexGateway:
    id = "no-complex-gateway"
    levels = {"recommended": "error", "all": "error"}
    summary = "The diagram uses no complex gateway."

    def check(self, document: Document) -> Iterator[Issue]:
        for gateway in model(document).by_local.get("complexGateway", []):
            yield issue("Element type <bpmn:ComplexGateway> is discouraged", gateway)


RULE = NoComplexGateway()
