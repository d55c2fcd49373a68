"""Timer events: a catch waits for a due time (a timer row, its value evaluated when armed);
a cycle on a non-interrupting boundary or event subprocess start arms its next firing."""

from __future__ import annotations

from datetime import datetime, timedelta

from bpmn_engine.model import EventDefinition, Expression, FlowNode
from bpmn_engine.records.rows import Timer
from bpmn_engine.runtime.context import Incident, StepContext
from bpmn_engine.runtime.events.definition import EventDefinitionKind
from bpmn_engine.runtime.events.timers import TimerValueError, cron_next, schedule

EXPRESSION_PREFIXES = ("${", "#{", "=")


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
        if text.strip().startswith(EXPRESSION_PREFIXES):
            text = str(
                ctx.evaluate(Expression(text, None, definition.line), what="the timer value")
            )
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
            due = previous + timedelta(seconds=timer.interval)
        else:  # a cron cycle: its next time is read from the expression
            definition = next(d for d in getattr(event, "definitions", ()) if d.kind == "timer")
            due = cron_next((definition.timer or ("", ""))[1], previous)
        return ctx.step.new_timer(
            ctx.track,
            timer.element,
            timer.host,
            due=due.isoformat(),
            repeat=timer.repeat - 1 if timer.repeat > 0 else -1,
            interval=timer.interval,
        )


TIMER = TimerKind()
