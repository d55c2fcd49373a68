"""Records: a track's undo snapshot is a full, independent copy; every record moves only as
its lifecycle table allows (records/lifecycle.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import fields
from enum import StrEnum
from typing import Any

import pytest

from bpmn_engine.records.data import InstanceHead
from bpmn_engine.records.lifecycle import (
    INSTANCE_TRANSITIONS,
    SCOPE_TRANSITIONS,
    START_TIMER_TRANSITIONS,
    SUBSCRIPTION_TRANSITIONS,
    TASK_TRANSITIONS,
    TIMER_TRANSITIONS,
    TRACK_TRANSITIONS,
    InstanceState,
    LifecycleError,
    ScopeState,
    StartTimerState,
    SubscriptionState,
    TaskState,
    TimerState,
    TrackState,
    check_instance,
)
from bpmn_engine.records.rows import Scope, Subscription, Timer, Track, UserTask
from tests.runtime.conftest import Bpmn, MakeEngine, flow


def test_a_track_snapshot_copies_every_field() -> None:
    track = Track(7, "task", 2, TrackState.WAITING, 41, 3, 3, "flow", "join", 2, 9)
    assert {f.name for f in fields(Track)} == {
        "id", "element", "scope", "status", "seq", "parent", "fork_group", "via", "wait",
        "attempt", "version",
    }  # fmt: skip
    snapshot = track.snapshot()
    assert snapshot == copy.copy(track)
    assert snapshot is not track
    track.element = "elsewhere"
    assert snapshot.element == "task"


def test_an_instance_head_snapshot_copies_every_field() -> None:
    values = {f.name: f"{f.name}-value" for f in fields(InstanceHead)}
    head = InstanceHead(**values)
    snapshot = head.snapshot()
    assert snapshot == copy.copy(head)
    assert snapshot is not head
    assert all(getattr(snapshot, name) == value for name, value in values.items())


# --- lifecycles as data -------------------------------------------------------------------------
def scope(status: ScopeState) -> Scope:
    return Scope(2, "Sub", 1, 1, status)


def task(status: TaskState) -> UserTask:
    return UserTask(1, 1, "Review", "Review", status)


def timer(status: TimerState) -> Timer:
    return Timer(1, 1, "Wait", "Wait", "2026-12-04T00:00:00+00:00", status=status)


def subscription(status: SubscriptionState) -> Subscription:
    return Subscription(1, 1, "Catch", "Catch", "message", "go", status=status)


def job(status: TrackState) -> Track:
    """A service task's track: its job waits for a handler, is claimed (`executing`), ..."""
    return Track(1, "Charge", 1, status, 1, wait="job" if status is TrackState.WAITING else None)


MOVES: list[tuple[str, Callable[[Any], Any], StrEnum, StrEnum, StrEnum]] = [
    # (kind, make, from, a move it may make, a move it may not make)
    ("scope", scope, ScopeState.ACTIVE, ScopeState.COMPLETED, ScopeState.COMPENSATING),
    ("scope", scope, ScopeState.COMPLETED, ScopeState.COMPLETED, ScopeState.ACTIVE),
    ("scope", scope, ScopeState.COMPENSABLE, ScopeState.COMPENSATING, ScopeState.TERMINATED),
    ("scope", scope, ScopeState.COMPENSATED, ScopeState.COMPENSATED, ScopeState.COMPENSABLE),
    ("user task", task, TaskState.WAITING, TaskState.COMPLETED, TaskState.WAITING),
    ("user task", task, TaskState.COMPLETED, TaskState.COMPLETED, TaskState.CANCELLED),
    ("user task", task, TaskState.CANCELLED, TaskState.CANCELLED, TaskState.WAITING),
    ("timer", timer, TimerState.WAITING, TimerState.FIRED, TimerState.WAITING),
    # a cycle's next firing is a new row: a fired timer never waits again
    ("timer", timer, TimerState.FIRED, TimerState.FIRED, TimerState.WAITING),
    ("timer", timer, TimerState.CANCELLED, TimerState.CANCELLED, TimerState.FIRED),
    ("subscription", subscription, SubscriptionState.WAITING, SubscriptionState.FIRED,
     SubscriptionState.HELD),
    ("subscription", subscription, SubscriptionState.FIRED, SubscriptionState.HELD,
     SubscriptionState.CANCELLED),
    ("subscription", subscription, SubscriptionState.HELD, SubscriptionState.WAITING,
     SubscriptionState.FIRED),
    ("subscription", subscription, SubscriptionState.CANCELLED, SubscriptionState.CANCELLED,
     SubscriptionState.WAITING),
    # a job: waiting for a handler -> claimed; a job whose task completed is never claimed again
    ("job", job, TrackState.WAITING, TrackState.EXECUTING, TrackState.WAITING),
    ("job", job, TrackState.READY, TrackState.EXECUTING, TrackState.COMPLETED),
    ("job", job, TrackState.COMPLETED, TrackState.COMPLETED, TrackState.EXECUTING),
    # an incident is a failed track: left only by a retry, a resumed child, or termination
    ("incident", job, TrackState.FAILED, TrackState.READY, TrackState.COMPLETED),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "make", "old", "right", "wrong"), MOVES)
def test_a_record_moves_only_as_its_lifecycle_table_allows(
    kind: str, make: Callable[[Any], Any], old: StrEnum, right: StrEnum, wrong: StrEnum
) -> None:
    record = make(old)
    record.move(right)
    assert record.status is right
    record = make(old)
    if wrong != old:  # staying is never a move
        with pytest.raises(LifecycleError, match=f"cannot go from {old} to {wrong}"):
            record.move(wrong)
        assert record.status is old  # a refused move changes nothing


def test_an_instance_with_an_incident_is_resumed_before_it_completes() -> None:
    check_instance(InstanceState.FAILED, InstanceState.ACTIVE)
    with pytest.raises(LifecycleError, match="cannot go from failed to completed"):
        check_instance(InstanceState.FAILED, InstanceState.COMPLETED)


TABLES: list[tuple[type[StrEnum], dict[Any, frozenset[Any]], set[str]]] = [
    # the text each state is stored as: old databases load, so these never change
    (InstanceState, INSTANCE_TRANSITIONS,
     {"created", "active", "completed", "terminating", "terminated", "failed"}),
    (TrackState, TRACK_TRANSITIONS,
     {"ready", "executing", "waiting", "completed", "merged", "failed", "terminated"}),
    (ScopeState, SCOPE_TRANSITIONS,
     {"active", "completed", "terminated", "cancelled", "compensable", "compensating",
      "compensated"}),
    (TaskState, TASK_TRANSITIONS, {"waiting", "completed", "cancelled"}),
    (TimerState, TIMER_TRANSITIONS, {"waiting", "fired", "cancelled"}),
    (SubscriptionState, SUBSCRIPTION_TRANSITIONS, {"waiting", "held", "fired", "cancelled"}),
    (StartTimerState, START_TIMER_TRANSITIONS, {"waiting", "done", "cancelled"}),
]  # fmt: skip


@pytest.mark.parametrize(("states", "table", "stored"), TABLES)
def test_every_state_has_its_row_in_the_table_and_keeps_its_stored_text(
    states: type[StrEnum], table: dict[Any, frozenset[Any]], stored: set[str]
) -> None:
    assert {str(s) for s in states} == stored
    assert set(table) == set(states)
    assert all(type(target) is states for targets in table.values() for target in targets)


def test_a_loaded_instance_holds_every_status_as_its_enum(
    bpmn: Bpmn, make_engine: MakeEngine, tmp_path: Any
) -> None:
    # given: an instance waiting at a user task, a timer and a condition, on a file
    condition = (
        '<conditionalEventDefinition><condition xsi:type="tFormalExpression">ok == True'
        "</condition></conditionalEventDefinition>"
    )
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/><userTask id="Review"/>'
        '<intermediateCatchEvent id="Wait"><timerEventDefinition><timeDuration>PT1H'
        "</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        f'<intermediateCatchEvent id="Catch">{condition}</intermediateCatchEvent>'
        '<endEvent id="E1"/><endEvent id="E2"/><endEvent id="E3"/>'
        + flow("S", "Fork") + flow("Fork", "Review") + flow("Fork", "Wait")
        + flow("Fork", "Catch") + flow("Review", "E1") + flow("Wait", "E2")
        + flow("Catch", "E3")
    )  # fmt: skip
    db = tmp_path / "lifecycle.db"
    started = make_engine(db).start(path, variables={"ok": False})
    assert started.run().state == "waiting"
    # when: another engine loads it from its rows
    data = make_engine(db).store.load(started.id)
    # then: the text of each row is its enum member again (the runtime compares with `is`)
    statuses = [
        *(s.status for s in data.scopes.values()),
        *(t.status for t in data.tasks.values()),
        *(t.status for t in data.timers.values()),
        *(s.status for s in data.subscriptions.values()),
    ]
    assert statuses == [
        ScopeState.ACTIVE,
        TaskState.WAITING,
        TimerState.WAITING,
        SubscriptionState.WAITING,
    ]
    assert [type(s) for s in statuses] == [ScopeState, TaskState, TimerState, SubscriptionState]
