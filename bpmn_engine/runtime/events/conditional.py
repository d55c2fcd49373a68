"""Conditional events: a catch waits until its condition over the variables holds.

The subscription is named after its event: the condition is read from the model whenever
variables change (the scheduler asks `holds` only then)."""

from __future__ import annotations

from bpmn_engine.model import EventDefinition, FlowNode
from bpmn_engine.records.rows import Subscription
from bpmn_engine.runtime.events.definition import EventDefinitionKind, subscribe
from bpmn_engine.runtime.step.context import Incident, StepContext


class ConditionalKind(EventDefinitionKind):
    kind = "conditional"

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition) -> str:
        return event.id  # the condition is read from the event whenever variables change

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str
    ) -> Subscription:
        if definition.condition is None:
            raise Incident(f"conditional event (line {event.line}) has no condition", event.id)
        return subscribe(ctx, event, host, "conditional", self.awaited(ctx, event, definition))

    def holds(self, ctx: StepContext, subscription: Subscription) -> bool:
        """Evaluate the subscription's condition over its track's variables."""
        event = ctx.definitions.node_scopes[subscription.element].nodes[subscription.element]
        definition = next(d for d in getattr(event, "definitions", ()) if d.kind == "conditional")
        assert definition.condition is not None
        return bool(ctx.evaluate(definition.condition, what="the condition"))


CONDITIONAL = ConditionalKind()
