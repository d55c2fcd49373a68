"""What happens when a wait is over: a timer fell due, a message or a signal arrived.

One place for every trigger, so that catch events, receive tasks, boundary events and the
event-based gateway behave alike whatever woke them.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.model import (
    BoundaryEvent,
    EventDefinition,
    Expression,
    FlowNode,
    StartEvent,
    Task,
)
from bpmn_engine.records.rows import Sent, Subscription
from bpmn_engine.runtime.boundaries import branch_off, interrupt
from bpmn_engine.runtime.context import Incident, StepContext


def trigger(ctx: StepContext, element: str, **data: Any) -> None:
    """The event `element` fired for the context's track."""
    from bpmn_engine.runtime.behaviours import behaviour_for

    event = ctx.definitions.node_scopes[element].nodes[element]
    if isinstance(event, StartEvent):  # held by a scope's listening track
        from bpmn_engine.runtime import event_subprocesses

        event_subprocesses.fired(ctx, event, **data)
        return
    if isinstance(event, BoundaryEvent):
        if event.cancel_activity:
            interrupt(ctx, ctx.track, event, **data)
        else:
            branch_off(ctx, ctx.track, event, **data)
        return
    track = ctx.track
    if track.element != element:  # an event-based gateway: the first event wins
        gateway = ctx.scope_model.nodes[track.element]
        ctx.completed()
        flow = next(f for f in ctx.scope_model.outgoing(gateway) if f.target == element)
        ctx.step.emit("flow.taken", gateway.id, track.id, flow=flow.id, target=element)
        ctx.step.touch_track(track)
        track.element, track.via = element, flow.id
        ctx = ctx.for_track(track)
        ctx.emit("element.activated", type=event.kind, name=event.name)
    behaviour_for(event).complete(ctx)


def subscribe(
    ctx: StepContext, event: FlowNode, definition: EventDefinition | None, host: str
) -> Subscription:
    """Wait for the message, signal or condition of an event definition (or a receive task).

    A conditional subscription is named after its event: the condition is read from the
    model whenever variables change (`condition_holds`).
    """
    if definition is None:  # a receive task names its message itself
        assert isinstance(event, Task)
        kind, ref = "message", event.message_ref
    else:
        kind, ref = definition.kind, definition.ref
    if kind == "conditional":
        if definition is None or definition.condition is None:
            raise Incident(f"conditional event (line {event.line}) has no condition", event.id)
        subscription = ctx.step.new_subscription(
            ctx.track, event.id, host, kind=kind, name=event.id
        )
        ctx.step.emit("condition.awaited", event.id, ctx.track.id)
        return subscription
    names = ctx.definitions.messages if kind == "message" else ctx.definitions.signals
    name = names.get(ref or "", ref)
    if not name:
        raise Incident(f"{event.kind} (line {event.line}) names no {kind} to wait for", event.id)
    key = correlation_key(ctx, ref, event.line) if kind == "message" else None
    subscription = ctx.step.new_subscription(
        ctx.track, event.id, host, kind=kind, name=name, key=key
    )
    ctx.step.emit(f"{kind}.awaited", event.id, ctx.track.id, name=name, key=key)
    return subscription


def correlation_key(ctx: StepContext, ref: str | None, line: int) -> str | None:
    """The message's correlation key over the track's variables (None: the message has none)."""
    expression = ctx.definitions.correlation_keys.get(ref or "")
    if not expression:
        return None
    value = ctx.evaluate(Expression(expression, None, line), what="the correlation key")
    return None if value is None else str(value)


def deliver(ctx: StepContext, subscription: Subscription, variables: dict[str, Any]) -> None:
    """A message or signal reached a subscription: its variables, then the trigger."""
    ctx.step.touch_subscription(subscription).status = "fired"
    ctx.step.emit(
        f"{subscription.kind}.received",
        subscription.element,
        ctx.track.id,
        name=subscription.name,
        key=subscription.key,
    )
    if variables:
        ctx.set_variables(variables)
    trigger(ctx, subscription.element, trigger=subscription.kind)


def throw_message(ctx: StepContext, ref: str | None) -> None:
    """Send a message to whoever waits for it, once the step is committed (message flows
    between the pools of one collaboration are delivered this way, inside the engine).

    The key is the message's correlation key evaluated over the sender's variables; a sender
    that lacks them sends without a key."""
    name = ctx.definitions.messages.get(ref or "", ref)
    if not name:
        raise Incident(f"{ctx.node.kind} (line {ctx.node.line}) names no message", ctx.node.id)
    try:
        key = correlation_key(ctx, ref, ctx.node.line)
    except Incident:
        key = None
    ctx.step.sent.append(Sent("message", name, key))
    ctx.emit("message.sent", name=name, key=key)


def condition_holds(ctx: StepContext, subscription: Subscription) -> bool:
    """Evaluate a conditional subscription's condition over its track's variables."""
    event = ctx.definitions.node_scopes[subscription.element].nodes[subscription.element]
    definition = next(d for d in getattr(event, "definitions", ()) if d.kind == "conditional")
    assert definition.condition is not None
    return bool(ctx.evaluate(definition.condition, what="the condition"))


def fire_condition(ctx: StepContext, subscription: Subscription) -> None:
    """A conditional event whose condition became true: it fires (if it still holds)."""
    if subscription.status == "waiting" and condition_holds(ctx, subscription):
        deliver(ctx, subscription, {})


def deliver_buffered(ctx: StepContext, subscriptions: list[Subscription]) -> bool:
    """A message published before anyone waited: the first subscription that matches takes it."""
    for subscription in subscriptions:
        if subscription.kind != "message":
            continue
        found = ctx.engine.store.buffered_message(
            subscription.name, subscription.key, ctx.engine.clock.now().isoformat()
        )
        if found is not None:
            message_id, variables = found
            ctx.step.claimed_messages.append(message_id)
            deliver(ctx, subscription, variables)
            return True
    return False
