"""`conditional-event`: a conditional event in an executable process has a condition.

An engine waits for a conditional event's condition to become true; without one the event
can never fire (or fires at once, depending on the engine).
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import EVENTS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    children,
    event_definitions,
    in_executable_process,
    issue,
    local,
    model,
)


class ConditionalEvent:
    id = "conditional-event"
    levels = {"correctness": "error", "all": "error"}
    summary = "A conditional event in an executable process has a non-empty condition."

    def check(self, document: Document) -> Iterator[Issue]:
        for event in model(document).of(EVENTS):
            definition = next(
                (d for d in event_definitions(event) if local(d) == "conditionalEventDefinition"),
                None,
            )
            if definition is None or not in_executable_process(event):
                continue
            conditions = children(definition, ("condition",))
            if not conditions or not (conditions[0].text or "").strip():
                yield issue("Conditional event is missing a condition", event)


RULE = ConditionalEvent()
