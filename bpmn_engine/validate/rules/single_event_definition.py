"""`single-event-definition`: an event carries at most one event definition.

Several definitions make a "multiple" event whose meaning (any of them? all?) depends on
catch or throw and is supported by few tools; model separate events instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import EVENTS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import event_definitions, issue, model


class SingleEventDefinition:
    id = "single-event-definition"
    levels = {"recommended": "error", "all": "error"}
    summary = "An event has at most one event definition."

    def check(self, document: Document) -> Iterator[Issue]:
        for event in model(document).of(EVENTS):
            if len(event_definitions(event)) > 1:
                yield issue("Event has multiple event definitions", event)


RULE = SingleEventDefinition()
