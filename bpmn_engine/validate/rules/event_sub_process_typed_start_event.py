"""`event-sub-process-typed-start-event`: an event subprocess starts on a typed event.

An event subprocess is started by a trigger (message, timer, error, ...); a blank start event
there has no trigger, so the subprocess could never start.
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


class EventSubProcessTypedStartEvent:
    id = "event-sub-process-typed-start-event"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "Start events of an event subprocess carry an event definition."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(SUB_PROCESSES):
            if not is_event_subprocess(scope):
                continue
            for element in flow_elements(scope):
                if local(element) == "startEvent" and not event_definitions(element):
                    yield issue("Start event is missing event definition", element)


RULE = EventSubProcessTypedStartEvent()
