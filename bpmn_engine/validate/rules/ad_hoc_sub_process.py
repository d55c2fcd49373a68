"""`ad-hoc-sub-process`: an ad-hoc subprocess has no start or end events.

Its activities run in any order the performer chooses, so a start or end event means nothing
there (BPMN 2.0, 10.3.5); a catch event without an outgoing flow would be a dead end.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import flow_elements, issue, local, model


class AdHocSubProcess:
    id = "ad-hoc-sub-process"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "An ad-hoc subprocess has no start or end events; its catch events lead somewhere."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for scope in bpmn.by_local.get("adHocSubProcess", []):
            for element in flow_elements(scope):
                kind = local(element)
                if kind == "startEvent":
                    yield issue("A <Start Event> is not allowed in <Ad Hoc Sub Process>", element)
                elif kind == "endEvent":
                    yield issue("An <End Event> is not allowed in <Ad Hoc Sub Process>", element)
                elif kind == "intermediateCatchEvent" and not bpmn.outgoing_of(element):
                    yield issue(
                        "An intermediate catch event inside <Ad Hoc Sub Process> must have an "
                        "outgoing sequence flow",
                        element,
                    )


RULE = AdHocSubProcess()
