"""`single-blank-start-event`: a scope has at most one blank start event.

Blank start events cannot be told apart by their trigger; with two, a caller cannot say
which one it means, and both paths start together.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    CONTAINERS,
    event_definitions,
    flow_elements,
    issue,
    local,
    model,
    scope_kind,
)


class SingleBlankStartEvent:
    id = "single-blank-start-event"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "A process or subprocess has at most one blank start event."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(CONTAINERS):
            blank = [
                e
                for e in flow_elements(scope)
                if local(e) == "startEvent" and not event_definitions(e)
            ]
            if len(blank) > 1:
                yield issue(f"{scope_kind(scope)} has multiple blank start events", scope)


RULE = SingleBlankStartEvent()
