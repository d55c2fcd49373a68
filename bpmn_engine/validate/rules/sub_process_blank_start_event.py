"""`sub-process-blank-start-event`: an ordinary subprocess starts on a blank start event.

An embedded subprocess starts when its parent's flow reaches it; a trigger on its start
event (message, timer, ...) is never used (BPMN 2.0, 10.5.2).
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import SUB_PROCESSES
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    event_definitions,
    flow_elements,
    is_event_subprocess,
    issue,
    local,
    model,
)


class SubProcessBlankStartEvent:
    id = "sub-process-blank-start-event"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "Start events of an ordinary subprocess carry no event definition."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(SUB_PROCESSES):
            if is_event_subprocess(scope):
                continue
            for element in flow_elements(scope):
                if local(element) == "startEvent" and event_definitions(element):
                    yield issue("Start event must be blank", element)


RULE = SubProcessBlankStartEvent()
