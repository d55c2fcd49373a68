"""`start-event-required`: every process and subprocess has a start event.

An explicit start event says where the scope begins; without one every element without an
incoming flow starts at once (ad-hoc subprocesses are exempt: they have no flow order).
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


class StartEventRequired:
    id = "start-event-required"
    levels = {"recommended": "error", "all": "error"}
    summary = "A process or subprocess has a start event."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(PROCESS_SCOPES):
            if not any(local(e) == "startEvent" for e in flow_elements(scope)):
                yield issue(f"{scope_kind(scope)} is missing start event", scope)


RULE = StartEventRequired()
