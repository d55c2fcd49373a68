"""The strategy contract for one kind of event definition, and the subscription row."""

from __future__ import annotations

from collections.abc import Mapping

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.java_text import java_text
from bpmn_engine.model import EventDefinition, Expression, FlowNode
from bpmn_engine.records.lifecycle import STILL_WAITING, TimerState
from bpmn_engine.records.rows import Subscription, Timer
from bpmn_engine.runtime.step.context import Incident, StepContext


def addressed_name(names: Mapping[str, str], ref: str | None, event: FlowNode) -> str | None:
    """The name a message or signal is addressed by: its root element's name (`names`, by
    id), or without a ref the event's own name (as SpiffWorkflow reads both); None with
    neither (refused at load)."""
    if ref:
        return names.get(ref, ref)
    return event.name or None


def spoken(ctx: StepContext, kind: str, name: str, event: FlowNode) -> str:
    """The name a message or signal goes by where a token reaches its event: a name with an
    expression in it is evaluated now, over the token's variables (Camunda 7's
    `invoice-${id}`, Activiti's and Flowable's `messageExpression`, Zeebe's `=` FEEL); the
    others as written. A process's own start events keep theirs as written, as Camunda's."""
    text = name.strip()
    if not (text.startswith("=") or "${" in text or "#{" in text):
        return name
    value = ctx.evaluate(Expression(text, None, event.line), what=f"the {kind} name")
    try:
        spoken_name = java_text(value, f"the {kind} name {text!r}", "the engine")
    except ExpressionError as error:
        raise Incident(str(error), event.id) from None
    if not spoken_name:
        raise Incident(f"the {kind} name {text!r} (line {event.line}) is empty here", event.id)
    return spoken_name


class EventDefinitionKind:
    """How a catch of one kind waits and how a throw of it is sent.

    `arm` starts the wait of `event` (a catch event, a boundary event's activity, an
    event-based gateway or a listening event subprocess: `host`) as a row; `throw` sends it.
    Neither fires anything: what a wait does when it fires is in `trigger.py`.
    """

    kind = ""

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str
    ) -> Timer | Subscription:
        raise Incident(
            f"{self.kind} events (line {event.line}) cannot be waited for here", event.id
        )

    def awaited(self, ctx: StepContext, event: FlowNode, definition: EventDefinition) -> str:
        """The name a subscription of this kind waits for (its message, its signal...)."""
        raise Incident(f"{self.kind} events (line {event.line}) wait for no name", event.id)

    def throw(self, ctx: StepContext, definition: EventDefinition) -> None:
        raise Incident(
            f"{self.kind} {ctx.node.kind} (line {ctx.node.line}) cannot be thrown", ctx.node.id
        )


def waits_of(ctx: StepContext, element: str) -> list[Timer | Subscription]:
    """The timers and subscriptions the context's track still waits on for `element` (one
    per event definition of a multiple event)."""
    track = ctx.track.id
    found: list[Timer | Subscription] = [
        t
        for t in ctx.data.timers.values()
        if t.track == track and t.element == element and t.status is TimerState.WAITING
    ]
    found += [
        s
        for s in ctx.data.subscriptions.values()
        if s.track == track and s.element == element and s.status in STILL_WAITING
    ]
    return found


def subscribe(
    ctx: StepContext,
    event: FlowNode,
    host: str,
    kind: str,
    name: str,
    key: str | None = None,
) -> Subscription:
    """The track waits for a message, a signal or a condition: a subscription row."""
    subscription = ctx.step.new_subscription(
        ctx.track, event.id, host, kind=kind, name=name, key=key
    )
    if kind == "conditional":
        ctx.step.emit("condition.awaited", event.id, ctx.track.id)
    else:
        ctx.step.emit(f"{kind}.awaited", event.id, ctx.track.id, name=name, key=key)
    return subscription
