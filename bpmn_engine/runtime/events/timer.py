"""Timer events: a catch waits for a due time (a timer row, its value evaluated when armed);
a cycle on a non-interrupting boundary or event subprocess start arms its next firing."""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.model import EventDefinition, Expression, FlowNode
from bpmn_engine.records.rows import Timer
from bpmn_engine.runtime.events.definition import EventDefinitionKind
from bpmn_engine.runtime.events.timers import (
    TimerValueError,
    is_timer_expression,
    later,
    next_time,
    schedule,
)
from bpmn_engine.runtime.step.context import Incident, StepContext


class TimerKind(EventDefinitionKind):
    kind = "timer"

    def arm(
        self, ctx: StepContext, event: FlowNode, definition: EventDefinition, host: str
    ) -> Timer:
        """Create the timer row for a timer event definition, its value evaluated now."""
        kind, text = definition.timer or ("", "")
        if not kind or not text:
            raise Incident(
                f"timer event {event.id!r} (line {event.line}) has no timer value", event.id
            )
        text = _text(ctx, definition)
        now = ctx.engine.clock.now()
        try:
            plan = schedule(kind, text, now)
        except TimerValueError as error:
            raise Incident(
                f"timer event {event.id!r} (line {event.line}): {error}", event.id
            ) from None
        interval = plan.interval.total_seconds() if plan.interval else None
        timer = ctx.step.new_timer(
            ctx.track,
            event.id,
            host,
            due=plan.due.isoformat(),
            repeat=plan.repeat,
            interval=interval,
        )
        ctx.step.emit("timer.scheduled", event.id, ctx.track.id, due=timer.due, timer=timer.id)
        return timer

    def rearm(self, ctx: StepContext, event: FlowNode, timer: Timer) -> Timer | None:
        """A cycle's next firing after `timer` (None when it has fired its last)."""
        if timer.repeat == 0:
            return None
        previous = datetime.fromisoformat(timer.due)
        if timer.interval:
            due = later(previous, timer.interval)
        else:  # cron, or calendar months and years: the next time is read from the text
            definition = next(d for d in getattr(event, "definitions", ()) if d.kind == "timer")
            due = next_time(_text(ctx, definition), previous)
        if due is None:  # the cycle names no more times (its end, or the year 9999)
            return None
        return ctx.step.new_timer(
            ctx.track,
            timer.element,
            timer.host,
            due=due.isoformat(),
            repeat=timer.repeat - 1 if timer.repeat > 0 else -1,
            interval=timer.interval,
        )


def _text(ctx: StepContext, definition: EventDefinition) -> str:
    """The timer value; an expression (in the diagram's language) evaluated now."""
    text = (definition.timer or ("", ""))[1]
    if is_timer_expression(text):
        expression = Expression(text.strip(), definition.timer_language, definition.line)
        text = str(ctx.evaluate(expression, what="the timer value"))
    return text


TIMER = TimerKind()
