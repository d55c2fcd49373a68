"""Timer events at run time: arming a due time as a row, and firing it.

A timer belongs to a track and a host element (see `state.Timer`); `Step` cancels it as soon as
the track leaves the host, whichever way. Firing is a step of its own, chosen by the scheduler
when the timer is due (a virtual clock jumps there when nothing else can happen).
"""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.model import BoundaryEvent, EventDefinition, Expression, FlowNode, StartEvent
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.state import Timer
from bpmn_engine.runtime.timers import TimerValueError, later, next_time, schedule
from bpmn_engine.runtime.triggers import trigger

EXPRESSION_PREFIXES = ("${", "#{", "=")


def arm(ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str) -> Timer:
    """Create the timer row for a timer event definition, its value evaluated now."""
    kind, text = definition.timer or ("", "")
    if not kind or not text:
        raise Incident(f"timer event {event.id!r} (line {event.line}) has no timer value", event.id)
    text = _text(ctx, definition)
    now = ctx.engine.clock.now()
    try:
        plan = schedule(kind, text, now)
    except TimerValueError as error:
        raise Incident(f"timer event {event.id!r} (line {event.line}): {error}", event.id) from None
    interval = plan.interval.total_seconds() if plan.interval else None
    timer = ctx.step.new_timer(
        ctx.track, event.id, host, due=plan.due.isoformat(), repeat=plan.repeat, interval=interval
    )
    ctx.step.emit("timer.scheduled", event.id, ctx.track.id, due=timer.due, timer=timer.id)
    return timer


def fire(ctx: StepContext, timer: Timer) -> None:
    """The timer is due: trigger its event; a cycle on a boundary event schedules again."""
    ctx.step.touch_timer(timer).status = "fired"
    ctx.step.emit("timer.fired", timer.element, ctx.track.id, due=timer.due, timer=timer.id)
    event = ctx.definitions.node_scopes[timer.element].nodes[timer.element]
    trigger(ctx, timer.element, trigger="timer")
    repeating = (isinstance(event, BoundaryEvent) and not event.cancel_activity) or (
        isinstance(event, StartEvent) and not event.interrupting
    )
    if repeating and ctx.track.live and timer.repeat != 0:
        previous = datetime.fromisoformat(timer.due)
        if timer.interval:
            due = later(previous, timer.interval)
        else:  # cron, or calendar months and years: the next time is read from the text
            definition = next(d for d in event.definitions if d.kind == "timer")
            due = next_time(_text(ctx, definition), previous)
        if due is None:  # the cycle names no more times (its end, or the year 9999)
            return
        ctx.step.new_timer(
            ctx.track,
            timer.element,
            timer.host,
            due=due.isoformat(),
            repeat=timer.repeat - 1 if timer.repeat > 0 else -1,
            interval=timer.interval,
        )


def _text(ctx: StepContext, definition: EventDefinition) -> str:
    """The timer value, an expression evaluated now."""
    text = (definition.timer or ("", ""))[1]
    if text.strip().startswith(EXPRESSION_PREFIXES):
        text = str(ctx.evaluate(Expression(text, None, definition.line), what="the timer value"))
    return text
