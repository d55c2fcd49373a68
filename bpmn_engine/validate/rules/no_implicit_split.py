"""`no-implicit-split`: an activity or event does not fork on plain outgoing flows.

Several unconditional flows out of a task all fire at once, a parallel split that the
diagram does not show. Model it with a parallel gateway, or make the flows conditional.
"""

from __future__ import annotations

from collections.abc import Iterator

from bpmn_engine.model.kinds import ACTIVITIES, EVENTS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import condition, issue, model


class NoImplicitSplit:
    id = "no-implicit-split"
    levels = {"recommended": "error", "all": "error"}
    summary = "An activity or event has at most one unconditional, non-default outgoing flow."

    def check(self, document: Document) -> Iterator[Issue]:
        bpmn = model(document)
        for node in bpmn.of(ACTIVITIES | EVENTS):
            plain = [
                flow
                for flow in bpmn.outgoing_of(node)
                if condition(flow) is None and not bpmn.is_default(node, flow)
            ]
            if len(plain) > 1:
                yield issue("Flow splits implicitly", node)


RULE = NoImplicitSplit()
