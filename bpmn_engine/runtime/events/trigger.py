"""What happens when a wait is over: a timer fell due, a message, a signal or a condition.

One place for every trigger, so that catch events, receive tasks, boundary events, event
subprocess starts and the event-based gateway behave alike whatever woke them.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.model import BoundaryEvent, FlowNode, StartEvent
from bpmn_engine.records.lifecycle import SubscriptionState, TimerState
from bpmn_engine.records.rows import Subscription, Timer
from bpmn_engine.runtime.events import subprocesses, waiting_starts
from bpmn_engine.runtime.events.boundaries import branch_off, interrupt
from bpmn_engine.runtime.events.conditional import CONDITIONAL
from bpmn_engine.runtime.events.definition import waits_of
from bpmn_engine.runtime.events.message import MESSAGE
from bpmn_engine.runtime.events.payloads import caught
from bpmn_engine.runtime.events.timer import TIMER
from bpmn_engine.runtime.step.context import StepContext
from bpmn_engine.runtime.step.triggers import TRIGGER


def trigger(ctx: StepContext, element: str, **data: Any) -> None:
    """The event `element` fired for the context's track (a parallel multiple event: once
    every one of its definitions has; until then each arrival is only recorded). A
    non-interrupting boundary event or event subprocess start then listens again."""
    event = ctx.definitions.node_scopes[element].nodes[element]
    if getattr(event, "parallel_multiple", False) and waits_of(ctx, element):
        return
    if isinstance(event, StartEvent) and waiting_starts.is_process_start(ctx, event):
        waiting_starts.fired(ctx, event)  # an instance created waiting at its starts
        return
    if isinstance(event, StartEvent):  # held by a scope's listening track
        subprocesses.fired(ctx, event, **data)
    elif isinstance(event, BoundaryEvent):
        if event.cancel_activity:
            interrupt(ctx, ctx.track, event, **data)
        else:
            branch_off(ctx, ctx.track, event, **data)
    if isinstance(event, (StartEvent, BoundaryEvent)):
        if repeats(event) and ctx.track.live:
            listen_again(ctx, event)
        return
    if ctx.track.element != element:  # an event-based gateway: the first event wins
        ctx = won(ctx, element)
    ctx.behaviour(event).complete(ctx)


def won(ctx: StepContext, element: str) -> StepContext:
    """The event `element` after the event-based gateway the track waits at fired first (or
    the API chose it: `Instance.trigger`): the token moves to it, and the context there.
    The gateway's other waits end with the step (`Step.cancel_stale_waits`)."""
    track = ctx.track
    gateway = ctx.scope_model.nodes[track.element]
    event = ctx.scope_model.nodes[element]
    ctx.completed()
    flow = next(f for f in ctx.scope_model.outgoing(gateway) if f.target == element)
    ctx.step.emit("flow.taken", gateway.id, track.id, flow=flow.id, target=element)
    ctx.engine.listen(ctx, "take", flow)
    ctx.step.touch_track(track)
    track.element, track.via = element, flow.id
    ctx = ctx.for_track(track)
    ctx.emit("element.activated", type=event.kind, name=event.name)
    ctx.engine.listen(ctx, "start", event)
    return ctx


def repeats(event: FlowNode) -> bool:
    """A non-interrupting boundary event or event subprocess start: it fires for as long as
    its activity or scope is active, not once."""
    if isinstance(event, BoundaryEvent):
        return not event.cancel_activity
    return isinstance(event, StartEvent) and not event.interrupting


def listen_again(ctx: StepContext, event: BoundaryEvent | StartEvent) -> None:
    """A non-interrupting event fired: each of its subscriptions that fired waits again.

    The same row (its name and correlation key as when the activity or scope started, as
    Zeebe keeps a subscription; a signal's receipt names it, so a delivery repeated after a
    crash finds it received); the latest row per trigger, so a parallel multiple event's
    earlier arrivals listen again too. A condition that still holds is `held`: it fires
    again only after a step made it false (`Instance._commit`). Timer cycles re-arm in
    `fire_timer`.
    """
    latest: dict[tuple[str, str], Subscription] = {}
    for subscription in ctx.data.subscriptions.values():
        if subscription.track == ctx.track.id and subscription.element == event.id:
            found = latest.get((subscription.kind, subscription.name))
            if found is None or subscription.id > found.id:
                latest[(subscription.kind, subscription.name)] = subscription
    for subscription in latest.values():
        if subscription.status is not SubscriptionState.FIRED:
            continue
        held = subscription.kind == "conditional" and CONDITIONAL.holds(ctx, subscription)
        again = SubscriptionState.HELD if held else SubscriptionState.WAITING
        ctx.step.touch_subscription(subscription).move(again)
        if subscription.kind == "conditional":
            ctx.step.emit("condition.awaited", event.id, ctx.track.id)
        else:
            name, key = subscription.name, subscription.key
            ctx.step.emit(
                f"{subscription.kind}.awaited", event.id, ctx.track.id, name=name, key=key
            )


def deliver(ctx: StepContext, subscription: Subscription, variables: dict[str, Any]) -> None:
    """A message or signal reached a subscription: its variables, then the trigger."""
    ctx.step.touch_subscription(subscription).move(SubscriptionState.FIRED)
    ctx.step.emit(
        f"{subscription.kind}.received",
        subscription.element,
        ctx.track.id,
        name=subscription.name,
        key=subscription.key,
    )
    if subscription.kind == "message":
        variables = MESSAGE.received(ctx, subscription.element, variables)
    else:  # a signal's or the API's variables, or nothing (a condition): what the event
        # makes of them
        event = ctx.definitions.node_scopes[subscription.element].nodes[subscription.element]
        came = variables if subscription.kind in ("signal", TRIGGER) else None
        variables = caught(ctx, event, came)
    if variables:
        ctx.set_variables(variables)
    trigger(ctx, subscription.element, trigger=subscription.kind)


def fire_timer(ctx: StepContext, timer: Timer) -> None:
    """The timer is due: trigger its event; a cycle on a non-interrupting boundary event or
    event subprocess start schedules its next firing."""
    ctx.step.touch_timer(timer).move(TimerState.FIRED)
    ctx.step.emit("timer.fired", timer.element, ctx.track.id, due=timer.due, timer=timer.id)
    event = ctx.definitions.node_scopes[timer.element].nodes[timer.element]
    ctx.set_variables(caught(ctx, event, None))  # its output mappings: a timer brings nothing
    trigger(ctx, timer.element, trigger="timer")
    if repeats(event) and ctx.track.live:
        TIMER.rearm(ctx, event, timer)


def fire_condition(ctx: StepContext, subscription: Subscription) -> None:
    """A conditional event whose condition became true: it fires (if it still holds)."""
    if subscription.status is SubscriptionState.WAITING and CONDITIONAL.holds(ctx, subscription):
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


def settle(ctx: StepContext, waits: list[Subscription | Timer]) -> None:
    """Right after arming: a condition already true fires, a buffered message is taken."""
    subscriptions = [w for w in waits if isinstance(w, Subscription)]
    for subscription in subscriptions:
        if subscription.kind == "conditional" and CONDITIONAL.holds(ctx, subscription):
            deliver(ctx, subscription, {})
            return
    deliver_buffered(ctx, subscriptions)
