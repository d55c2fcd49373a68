"""The registry of event-definition strategies, by kind."""

from __future__ import annotations

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
