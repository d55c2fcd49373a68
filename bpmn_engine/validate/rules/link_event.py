"""`link-event`: link events are named and paired within their scope.

A link is a "go to" inside one process level: each throw needs exactly one catch with the
same link name in the same scope (several throws may share it), or the token is lost.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from bpmn_engine.model.kinds import CATCH_EVENTS, EVENTS, THROW_EVENTS
from bpmn_engine.validate.document import Document
from bpmn_engine.validate.findings import Issue
from bpmn_engine.validate.rules._bpmn import (
    CONTAINERS,
    event_definitions,
    flow_elements,
    issue,
    local,
    model,
)


def _link_name(event: etree._Element) -> str | None:
    """The name of the event's link definition; None if the event is no link event."""
    for definition in event_definitions(event):
        if local(definition) == "linkEventDefinition":
            return definition.get("name") or ""
    return None


class LinkEvent:
    id = "link-event"
    levels = {"recommended": "error", "correctness": "error", "all": "error"}
    summary = "Link events have a link name, and each throw has one matching catch in scope."

    def check(self, document: Document) -> Iterator[Issue]:
        for scope in model(document).of(CONTAINERS):
            by_name: dict[str, list[etree._Element]] = {}
            for event in flow_elements(scope):
                if local(event) not in EVENTS or (name := _link_name(event)) is None:
                    continue
                if not name:
                    yield issue("Link event is missing link name", event)
                    continue
                by_name.setdefault(name, []).append(event)
            for name, events in by_name.items():
                yield from self._pairing(name, events)

    @staticmethod
    def _pairing(name: str, events: list[etree._Element]) -> Iterator[Issue]:
        if len(events) == 1:
            missing = "catch" if local(events[0]) in THROW_EVENTS else "throw"
            yield issue(f"Link {missing} event with link name <{name}> missing in scope", events[0])
            return
        catches = [e for e in events if local(e) in CATCH_EVENTS]
        if len(catches) > 1:
            for event in catches:
                yield issue(f"Duplicate link catch event with link name <{name}> in scope", event)
        elif not catches:
            for event in events:
                yield issue(f"Link catch event with link name <{name}> missing in scope", event)


RULE = LinkEvent()
