"""A deployed process's start timers, which fire with no instance yet: their text (no
variables to read), their next due time after a firing, and the id of the instance a firing
starts (the same for every worker, so a firing starts one instance)."""

from __future__ import annotations

import hashlib
from datetime import datetime

from bpmn_engine.expressions import compile_expression
from bpmn_engine.runtime.events.timers import is_cron, is_timer_expression, later, next_time


def timer_text(text: str, language: str | None = None) -> str:
    """A start timer has no instance yet: an expression may use no variables."""
    if not is_timer_expression(text):
        return text
    return str(compile_expression(text.strip(), language).evaluate({}))


def next_firing(
    due: datetime, repeat: int, interval: float | None, now: datetime, cron: str | None = None
) -> tuple[datetime, int] | None:
    """After a start timer fired at `due`, its next due time and the firings left after that.

    Firings a stopped worker missed are skipped, each counting against `Rn`: a worker that
    comes back after three days starts one instance for an hourly cycle, not seventy-two.
    A cron cycle's next time is the first the expression names after now; `cron` is also
    the text of a cycle counted in calendar months or years (it has no fixed `interval`).
    """
    if cron is not None and is_cron(cron):
        following = next_time(cron, max(due, now))
        return None if following is None else (following, -1)
    if (not interval and cron is None) or repeat == 0:
        return None
    left, following = repeat, due
    while True:
        if left == 0:
            return None
        step = later(following, interval) if interval else next_time(cron or "", following)
        if step is None:  # the cycle names no more times
            return None
        following = step
        left = left - 1 if left > 0 else -1
        if following > now:
            return following, left


def firing_id(deployment: int, element: str, due: str) -> str:
    """The instance id of one firing of a start timer: the same for every worker, so two
    workers firing it at once create it once (the second insert fails)."""
    return "t" + hashlib.sha256(f"{deployment}/{element}/{due}".encode()).hexdigest()[:11]
