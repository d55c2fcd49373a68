"""Signal events: a catch waits for a signal by name; a throw broadcasts it through the
outbox once its step is committed."""

from __future__ import annotations

from bpmn_engine.model import Definitions, EventDefinition, FlowNode
from bpmn_engine.records.rows import Sent, Subscription
from bpmn_engine.runtime.events.definition import (
    EventDefinitionKind,
    addressed_name,
    spoken,
    subscribe,
)
from bpmn_engine.runtime.events.payloads import thrown
from bpmn_engine.runtime.step.context import Incident, StepContext


def signal_name(definitions: Definitions, ref: str | None, event: FlowNode) -> str | None:
    """The name a signal goes by: its `signal`'s name, or without a `signalRef` the event's
    own name (as SpiffWorkflow reads it); None with neither (refused at load)."""
    return addressed_name(definitions.signals, ref, event)


class SignalKind(EventDefinitionKind):
    kind = "signal"

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition) -> str:
        name = signal_name(ctx.definitions, definition.ref, event)
        if not name:
            raise Incident(
                f"{event.kind} (line {event.line}) names no signal to wait for", event.id
            )
        return name

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str
    ) -> Subscription:
        name = spoken(ctx, "signal", self.awaited(ctx, event, definition), event)
        return subscribe(ctx, event, host, "signal", name)

    def throw(self, ctx: StepContext, definition: EventDefinition) -> None:
        name = signal_name(ctx.definitions, definition.ref, ctx.node)
        if not name:
            raise Incident(f"signal throw (line {ctx.node.line}) names no signal", ctx.node.id)
        name = spoken(ctx, "signal", name, ctx.node)
        ctx.step.sent.append(Sent("signal", name, None, thrown(ctx, definition)))
        ctx.emit("signal.thrown", name=name)


SIGNAL = SignalKind()
