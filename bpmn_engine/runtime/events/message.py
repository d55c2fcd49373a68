"""Message events: a catch waits for a message by name and correlation key; a throw sends
one through the outbox once its step is committed."""

from __future__ import annotations

from bpmn_engine.model import Definitions, EventDefinition, Expression, FlowNode, Task
from bpmn_engine.records.rows import Sent, Subscription
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.events.definition import EventDefinitionKind, subscribe


def correlation_key(ctx: StepContext, ref: str | None, line: int) -> str | None:
    """The message's correlation key over the track's variables (None: the message has none)."""
    expression = ctx.definitions.correlation_keys.get(ref or "")
    if not expression:
        return None
    value = ctx.evaluate(Expression(expression, None, line), what="the correlation key")
    return None if value is None else str(value)


def message_name(definitions: Definitions, ref: str | None, event: FlowNode) -> str | None:
    """The name a message is addressed by: its `message`'s name, or without a `messageRef`
    the event's own name (as SpiffWorkflow does); None with neither (refused at load)."""
    if ref:
        return definitions.messages.get(ref, ref)
    return event.name or None


def _ref(event: FlowNode, definition: EventDefinition | None) -> str | None:
    if definition is None:
        assert isinstance(event, Task)
        return event.message_ref
    return definition.ref


class MessageKind(EventDefinitionKind):
    kind = "message"

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition | None) -> str:
        """The message's name (a receive task names its message itself: no definition)."""
        name = message_name(ctx.definitions, _ref(event, definition), event)
        if not name:
            raise Incident(
                f"{event.kind} (line {event.line}) names no message to wait for", event.id
            )
        return name

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition | None, host: str
    ) -> Subscription:
        name = self.awaited(ctx, event, definition)
        key = correlation_key(ctx, _ref(event, definition), event.line)
        return subscribe(ctx, event, host, "message", name, key)

    def throw(self, ctx: StepContext, definition: EventDefinition | None) -> None:
        self.send(ctx, definition.ref if definition is not None else None)

    def send(self, ctx: StepContext, ref: str | None) -> None:
        """Send to whoever waits for it, once the step is committed (message flows between
        the pools of one collaboration are delivered this way, inside the engine).

        The key is the message's correlation key evaluated over the sender's variables; a
        sender that lacks them sends without a key."""
        name = message_name(ctx.definitions, ref, ctx.node)
        if not name:
            raise Incident(f"{ctx.node.kind} (line {ctx.node.line}) names no message", ctx.node.id)
        try:
            key = correlation_key(ctx, ref, ctx.node.line)
        except Incident:
            key = None
        ctx.step.sent.append(Sent("message", name, key))
        ctx.emit("message.sent", name=name, key=key)


MESSAGE = MessageKind()
