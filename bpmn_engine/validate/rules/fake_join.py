"""`fake-join`: a task or event with several incoming flows does not join them.

Each arriving token starts the task again (an uncontrolled merge); readers often take it for
a synchronising join. Model the join with a parallel (or exclusive) gateway instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import ACTIVITIES, EVENTS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import issue, model


class FakeJoin:
    id = "fake-join"
    levels = {"recommended": "warn", "all": "error"}
    summary = "An activity or event has at most one incoming flow (no implicit join)."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for node in bpmn.of(ACTIVITIES | EVENTS):
            if len(bpmn.incoming_of(node)) > 1:
                yield issue("Incoming flows do not join", node)


RULE = FakeJoin()
