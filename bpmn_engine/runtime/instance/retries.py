"""Retrying a failed job: the same token, again, after a backoff timer.

A handler that raises (anything but `BpmnError`, which is an answer, and `PermanentError`,
which says trying again cannot help) has failed transiently: if the task has tries left,
its token waits (`RETRY`) on a durable timer at the task and tries again when it is due;
when none are left, it is an incident. No new token is made and nothing is lost or done
twice across a crash: the wait, the timer and the attempt count are rows of the step that
recorded the failure (docs/operations.md).

The wait before retry n (n = 1 after the first try) is the task's own (`model/retries.py`),
else the engine's backoff: `base * 2**(n-1)`, at most an hour, within ±10 % so that jobs
that failed together do not come back together. The spread is drawn from the token's own
identity, so that a run replayed (the virtual clock, a test) waits exactly as long again.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from bpmn_engine.errors import PermanentError
from bpmn_engine.model import Task
from bpmn_engine.model.retries import MAX_BACKOFF, Backoff, RetryPolicy
from bpmn_engine.records.lifecycle import TimerState, TrackState
from bpmn_engine.records.rows import RETRY, Timer
from bpmn_engine.runtime.step.context import StepContext

JITTER = 0.10


def policy_of(task: Task, default: Backoff) -> RetryPolicy:
    return task.retry if task.retry is not None else RetryPolicy(default.tries)


def retry_at(
    error: BaseException,
    task: Task,
    attempt: int,
    default: Backoff,
    now: datetime,
    token: str,
) -> datetime | None:
    """When to try the job again after try number `attempt` failed with `error`, or None:
    an incident now (a permanent error, or no tries left). `token` names the token (the
    instance and track) for the spread."""
    if isinstance(error, PermanentError):
        return None
    policy = policy_of(task, default)
    if attempt >= policy.tries:
        return None
    fixed = policy.delay(attempt)
    if fixed is not None:
        return now + timedelta(seconds=fixed)
    wait = min(default.base * 2 ** (attempt - 1), MAX_BACKOFF)
    digest = hashlib.blake2b(f"{token}/{attempt}".encode(), digest_size=8).digest()
    spread = (int.from_bytes(digest, "big") / 2**64 * 2 - 1) * JITTER  # -10 % .. +10 %
    return now + timedelta(seconds=wait * (1 + spread))


def tries_of(task: Task, default: Backoff) -> int:
    return policy_of(task, default).tries


def wait_for_retry(ctx: StepContext, due: datetime, error: str) -> None:
    """The step that records a failed try: the token waits at its task for the timer."""
    attempt = ctx.track.attempt
    tries = tries_of(_task(ctx), ctx.engine.backoff)
    ctx.wait(RETRY, attempt=attempt, tries=tries, error=error, due=due.isoformat())
    timer = ctx.step.new_timer(ctx.track, ctx.node.id, ctx.node.id, due=due.isoformat())
    ctx.step.emit(
        "job.failed",
        ctx.node.id,
        ctx.track.id,
        attempt=attempt,
        tries=tries,
        error=error,
        retry_at=timer.due,
        timer=timer.id,
    )


def try_again(ctx: StepContext, timer: Timer) -> None:
    """The retry timer is due: the token runs its task's job again (the next attempt)."""
    ctx.step.touch_timer(timer).move(TimerState.FIRED)
    ctx.step.emit("timer.fired", timer.element, ctx.track.id, due=timer.due, timer=timer.id)
    ctx.step.touch_track(ctx.track).move(TrackState.EXECUTING)
    ctx.track.wait = None
    ctx.behaviour(ctx.node).execute(ctx)


def exhausted(task: Task, default: Backoff, attempt: int, error: BaseException) -> str:
    """What the incident adds to the handler's failure: how many tries were made."""
    if isinstance(error, PermanentError) or tries_of(task, default) == 1:
        return ""
    return f" (try {attempt} of {tries_of(task, default)}: no tries left)"


def _task(ctx: StepContext) -> Task:
    node = ctx.node
    assert isinstance(node, Task)
    return node
