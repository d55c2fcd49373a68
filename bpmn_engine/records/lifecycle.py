"""Lifecycles as data (seeds 000 and 001): every state change is checked against these tables.

A track is a thread of execution; its token is the projection of its position and state
(`TOKEN_STATE`). An instance is `active` while any track lives; waiting is not an instance
state but a projection: an active instance whose live tracks all wait.

Every record with a status has its states here as a `StrEnum` (the values are the text
stored in its column) and its moves as a table; each record's `move` (records/rows.py)
checks its table, so a wrong move is a `LifecycleError`, never a silently wrong row. A job
(a service task's handler call) and an incident have no row of their own: a job is its
track (`waiting` for a handler, `executing` while claimed) and an incident is a `failed`
track of a `failed` instance, so the track and instance tables check their moves.
"""

from __future__ import annotations

from enum import StrEnum


class InstanceState(StrEnum):
    CREATED = "created"
    ACTIVE = "active"
    COMPLETED = "completed"
    TERMINATING = "terminating"
    TERMINATED = "terminated"
    FAILED = "failed"


class TrackState(StrEnum):
    READY = "ready"
    EXECUTING = "executing"
    WAITING = "waiting"
    COMPLETED = "completed"
    MERGED = "merged"
    FAILED = "failed"
    TERMINATED = "terminated"


INSTANCE_TRANSITIONS: dict[InstanceState, frozenset[InstanceState]] = {
    InstanceState.CREATED: frozenset({InstanceState.ACTIVE}),
    InstanceState.ACTIVE: frozenset(
        {InstanceState.COMPLETED, InstanceState.TERMINATING, InstanceState.FAILED}
    ),
    InstanceState.TERMINATING: frozenset({InstanceState.TERMINATED}),
    # A failed instance is kept, not thrown away: `resume` retries its failed tracks.
    InstanceState.FAILED: frozenset({InstanceState.ACTIVE, InstanceState.TERMINATING}),
    InstanceState.COMPLETED: frozenset(),
    InstanceState.TERMINATED: frozenset(),
}

TRACK_TRANSITIONS: dict[TrackState, frozenset[TrackState]] = {
    TrackState.READY: frozenset(
        {TrackState.EXECUTING, TrackState.TERMINATED, TrackState.WAITING, TrackState.FAILED}
    ),
    TrackState.EXECUTING: frozenset(
        {
            TrackState.READY,  # moved on to the next node
            TrackState.WAITING,
            TrackState.COMPLETED,
            TrackState.MERGED,
            TrackState.FAILED,
            TrackState.TERMINATED,
        }
    ),
    TrackState.WAITING: frozenset(
        {
            TrackState.READY,
            TrackState.EXECUTING,
            TrackState.COMPLETED,
            TrackState.MERGED,
            TrackState.FAILED,
            TrackState.TERMINATED,
        }
    ),
    # READY: a retry re-enters the element; WAITING: a call activity whose called instance
    # failed waits for it again once that instance is resumed
    TrackState.FAILED: frozenset({TrackState.READY, TrackState.WAITING, TrackState.TERMINATED}),
    TrackState.COMPLETED: frozenset(),
    TrackState.MERGED: frozenset(),
    TrackState.TERMINATED: frozenset(),
}


class ScopeState(StrEnum):
    """A process, subprocess or inner-instance activation; or, for a completed activity that
    could be compensated, its snapshot (`runtime/events/compensation.py`)."""

    ACTIVE = "active"
    COMPLETED = "completed"
    TERMINATED = "terminated"
    CANCELLED = "cancelled"  # a transaction left by its cancel end event
    COMPENSABLE = "compensable"  # a snapshot: what a compensate throw would undo
    COMPENSATING = "compensating"  # its handler runs
    COMPENSATED = "compensated"


class TaskState(StrEnum):
    """A user task: it waits for `complete`, or is cancelled with its track."""

    WAITING = "waiting"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


class TimerState(StrEnum):
    """A timer row: a cycle's next firing is a new row, so a fired timer stays fired."""

    WAITING = "waiting"
    FIRED = "fired"
    CANCELLED = "cancelled"


class SubscriptionState(StrEnum):
    """A message, signal or condition subscription. A non-interrupting event that fired
    waits again on the same row, or for a condition that still holds is `held` until a step
    leaves it false (one firing per change)."""

    WAITING = "waiting"
    HELD = "held"
    FIRED = "fired"
    CANCELLED = "cancelled"


SCOPE_TRANSITIONS: dict[ScopeState, frozenset[ScopeState]] = {
    ScopeState.ACTIVE: frozenset(
        {ScopeState.COMPLETED, ScopeState.TERMINATED, ScopeState.CANCELLED}
    ),
    # a snapshot is born compensable; a subprocess whose inner activities had nothing to
    # compensate goes straight to compensated
    ScopeState.COMPENSABLE: frozenset({ScopeState.COMPENSATING, ScopeState.COMPENSATED}),
    ScopeState.COMPENSATING: frozenset({ScopeState.COMPENSATED}),
    ScopeState.COMPLETED: frozenset(),
    ScopeState.TERMINATED: frozenset(),
    ScopeState.CANCELLED: frozenset(),
    ScopeState.COMPENSATED: frozenset(),
}

TASK_TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    TaskState.WAITING: frozenset({TaskState.COMPLETED, TaskState.CANCELLED}),
    TaskState.COMPLETED: frozenset(),
    TaskState.CANCELLED: frozenset(),
}

TIMER_TRANSITIONS: dict[TimerState, frozenset[TimerState]] = {
    TimerState.WAITING: frozenset({TimerState.FIRED, TimerState.CANCELLED}),
    TimerState.FIRED: frozenset(),
    TimerState.CANCELLED: frozenset(),
}

SUBSCRIPTION_TRANSITIONS: dict[SubscriptionState, frozenset[SubscriptionState]] = {
    SubscriptionState.WAITING: frozenset({SubscriptionState.FIRED, SubscriptionState.CANCELLED}),
    # a held condition waits again in the step that leaves it false
    SubscriptionState.HELD: frozenset({SubscriptionState.WAITING, SubscriptionState.CANCELLED}),
    # a non-interrupting event listens again on the same row, in the step that fired it
    SubscriptionState.FIRED: frozenset({SubscriptionState.WAITING, SubscriptionState.HELD}),
    SubscriptionState.CANCELLED: frozenset(),
}

# a subscription that still waits (`Step.cancel_stale_waits` ends it with its track)
STILL_WAITING = frozenset({SubscriptionState.WAITING, SubscriptionState.HELD})
# the states of a scope that records a completed compensable activity
SNAPSHOT_STATES = frozenset(
    {ScopeState.COMPENSABLE, ScopeState.COMPENSATING, ScopeState.COMPENSATED}
)


class StartTimerState(StrEnum):
    """A deployed process's timer start (`start_timers`, moved by the store with a
    compare-and-set on `waiting`): a cycle's next firing stays `waiting` with a later due."""

    WAITING = "waiting"
    DONE = "done"  # it fired its last time
    CANCELLED = "cancelled"  # its deployment was replaced


START_TIMER_TRANSITIONS: dict[StartTimerState, frozenset[StartTimerState]] = {
    StartTimerState.WAITING: frozenset({StartTimerState.DONE, StartTimerState.CANCELLED}),
    StartTimerState.DONE: frozenset(),
    StartTimerState.CANCELLED: frozenset(),
}

# Not an instance state: what `Instance.outcome` reports for an active instance none of
# whose tracks can move now (its live tracks all wait).
INSTANCE_WAITING = "waiting"

FINAL_TRACK_STATES = frozenset(s for s, nxt in TRACK_TRANSITIONS.items() if not nxt)
FINAL_INSTANCE_STATES = frozenset(s for s, nxt in INSTANCE_TRANSITIONS.items() if not nxt)

# The token is a projection of its track (seed 001 4.2), never stored.
TOKEN_STATE: dict[TrackState, str] = {
    TrackState.READY: "alive",
    TrackState.EXECUTING: "alive",
    TrackState.WAITING: "waiting",
    TrackState.FAILED: "failed",
    TrackState.COMPLETED: "consumed",
    TrackState.MERGED: "consumed",
    TrackState.TERMINATED: "consumed",
}


class LifecycleError(RuntimeError):
    """An illegal transition: a bug in the engine, never a user error."""


def check_instance(old: InstanceState, new: InstanceState) -> None:
    if new != old and new not in INSTANCE_TRANSITIONS[old]:
        raise LifecycleError(f"instance cannot go from {old} to {new}")


def check_track(old: TrackState, new: TrackState) -> None:
    if new != old and new not in TRACK_TRANSITIONS[old]:
        raise LifecycleError(f"track cannot go from {old} to {new}")


def check_scope(old: ScopeState, new: ScopeState) -> None:
    if new != old and new not in SCOPE_TRANSITIONS[old]:
        raise LifecycleError(f"scope cannot go from {old} to {new}")


def check_task(old: TaskState, new: TaskState) -> None:
    if new != old and new not in TASK_TRANSITIONS[old]:
        raise LifecycleError(f"user task cannot go from {old} to {new}")


def check_timer(old: TimerState, new: TimerState) -> None:
    if new != old and new not in TIMER_TRANSITIONS[old]:
        raise LifecycleError(f"timer cannot go from {old} to {new}")


def check_subscription(old: SubscriptionState, new: SubscriptionState) -> None:
    if new != old and new not in SUBSCRIPTION_TRANSITIONS[old]:
        raise LifecycleError(f"subscription cannot go from {old} to {new}")
