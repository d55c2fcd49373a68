"""Lifecycles as data (seeds 000 and 001): every state change is checked against these tables.

A track is a thread of execution; its token is the projection of its position and state
(`TOKEN_STATE`). An instance is `active` while any track lives; waiting is not an instance
state but a projection: an active instance whose live tracks all wait.
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
