"""Catches the API triggers: a boundary event or an event subprocess start whose one
definition names nothing to wait for, in a file drawn for no engine (`Event.awaits_trigger`).

bpmn-js-token-simulation fires such an event when it is clicked, and bpmn-engine when its
host program signals it; here it waits as a subscription of kind `trigger`, named by the
event's id, which `Instance.trigger` (`bpmn trigger INSTANCE EVENT`) delivers. Whatever
definition the event carries decides nothing: no message, signal, clock or condition could
ever fire it.
"""

from __future__ import annotations

from bpmn_engine.model import EventDefinition, FlowNode
from bpmn_engine.records.rows import Subscription
from bpmn_engine.runtime.events.definition import EventDefinitionKind, subscribe
from bpmn_engine.runtime.step.context import StepContext
from bpmn_engine.runtime.step.triggers import TRIGGER


class ApiTriggered(EventDefinitionKind):
    kind = TRIGGER

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition) -> str:
        return event.id

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str
    ) -> Subscription:
        return subscribe(ctx, event, host, TRIGGER, event.id)


BY_API = ApiTriggered()
