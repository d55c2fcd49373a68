"""The registry of event-definition strategies, by kind."""

from __future__ import annotations

from bpmn_engine.model import EventDefinition, FlowNode
from bpmn_engine.runtime.events.by_api import BY_API
from bpmn_engine.runtime.events.conditional import CONDITIONAL
from bpmn_engine.runtime.events.definition import EventDefinitionKind
from bpmn_engine.runtime.events.link import LINK
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.signal import SIGNAL
from bpmn_engine.runtime.events.timer import TIMER

KINDS: dict[str, EventDefinitionKind] = {
    k.kind: k for k in (TIMER, MESSAGE, SIGNAL, CONDITIONAL, LINK)
}
WAITABLE = ("timer", "message", "signal", "conditional")  # kinds whose catch waits for a row


def kind_of(name: str) -> EventDefinitionKind | None:
    return KINDS.get(name)


def arming(event: FlowNode, definition: EventDefinition) -> EventDefinitionKind:
    """The strategy that arms `definition` of a catch `event`: its kind's, or the API's
    when the event names nothing to wait for (`events/by_api.py`)."""
    return BY_API if getattr(event, "awaits_trigger", False) else KINDS[definition.kind]
