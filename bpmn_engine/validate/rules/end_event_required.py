"""`end-event-required`: every process and subprocess has an end event.

An explicit end event says where the scope's work is done; without one, the reader must guess
which activity is the last (ad-hoc subprocesses are exempt: they have no flow order).
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    PROCESS_SCOPES,
    flow_elements,
    issue,
    local,
    model,
    scope_kind,
)


class EndEventRequired:
    id = "end-event-required"
    levels = {"recommended": "error", "all": "error"}
    summary = "A process or subprocess has an end event."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(PROCESS_SCOPES):
            if not any(local(e) == "endEvent" for e in flow_elements(scope)):
                yield issue(f"{scope_kind(scope)} is missing end event", scope)


RULE = EndEventRequired()
