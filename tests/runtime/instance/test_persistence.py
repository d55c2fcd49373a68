"""Checkpoints: an instance is rebuilt from its rows alone, and a failed step leaves no trace."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bpmn_engine import ConcurrentModification, Engine, ServiceTaskContext, UsageError
from bpmn_engine.records.data import InstanceData, Step
from bpmn_engine.records.lifecycle import InstanceState, TaskState, TrackState
from tests.runtime.conftest import (
    Bpmn,
    MakeEngine,
    activations,
    dump_tables,
    events_named,
    flow,
    lifecycle,
    script,
)

REVIEW = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    + script("Prepare", "prepared = amount * 2")
    + '<userTask id="Review" name="Review"/>'
    + script("Decide", "approved = ok and prepared > 10")
    + '<endEvent id="E"/>'
    + flow("S", "Fork")
    + flow("Fork", "Prepare")
    + flow("Fork", "Review")
    + flow("Prepare", "Join")
    + flow("Review", "Join")
    + flow("Join", "Decide")
    + flow("Decide", "E")
)


def same_memory_as_rows(engine: Engine, data: InstanceData) -> None:
    """The instance's memory equals what the store rebuilds from its rows."""
    rows = engine.store.load(data.head.id)
    assert rows.head == data.head
    assert rows.tracks == data.tracks
    assert rows.scopes == data.scopes
    assert {s: v for s, v in rows.values.items() if v} == {
        s: v for s, v in data.values.items() if v
    }
    assert rows.tasks == data.tasks
    assert rows.joins == {k: n for k, n in data.joins.items() if n}


def test_an_instance_survives_a_restart_and_ends_as_without_one(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: the reference run, without a restart
    path = bpmn(REVIEW)
    reference = make_engine()
    plain = reference.start(path, variables={"amount": 7})
    plain.run()
    plain.complete_task("Review", {"ok": True})
    expected = plain.run()
    # and: the same run, with the engine closed while the instance waits
    db = tmp_path / "state.db"
    first = make_engine(db)
    instance = first.start(path, variables={"amount": 7})
    waiting = instance.run()
    tokens = instance.tokens()
    first.close()
    # when
    second = make_engine(db)
    reopened = second.instance(instance.id)
    tokens_after = reopened.tokens()
    reopened.complete_task("Review", {"ok": True})
    outcome = reopened.run()
    # then
    assert waiting.state == "waiting"
    assert tokens_after == tokens
    assert outcome.state == expected.state == "completed"
    assert (
        outcome.variables
        == expected.variables
        == {
            "amount": 7,
            "prepared": 14,
            "ok": True,
            "approved": True,
        }
    )
    assert outcome.end_event == expected.end_event
    assert lifecycle(reopened) == lifecycle(plain)
    assert [e.seq for e in reopened.history()] == list(range(1, len(reopened.history()) + 1))


def test_a_reopened_instance_reports_the_same_outcome(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given
    db = tmp_path / "state.db"
    first = make_engine(db)
    instance = first.start(bpmn(REVIEW), variables={"amount": 1})
    before = instance.run()
    first.close()
    # when
    after = make_engine(db).instance(instance.id).outcome()
    # then
    assert after == before


def test_an_instance_is_rebuilt_without_its_bpmn_file(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: the definitions are stored with the instance
    db = tmp_path / "state.db"
    path = bpmn(REVIEW)
    first = make_engine(db)
    instance = first.start(path, variables={"amount": 9})
    instance.run()
    first.close()
    path.unlink()
    # when
    reopened = make_engine(db).instance(instance.id[:6])
    reopened.complete_task("Review", {"ok": False})
    outcome = reopened.run()
    # then
    assert reopened.id == instance.id
    assert outcome.state == "completed"
    assert outcome.variables["approved"] is False


def test_join_activations_continue_across_a_restart(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a parallel region in a loop whose every turn waits at a user task
    path = bpmn(
        '<startEvent id="S"/><exclusiveGateway id="Loop"/><parallelGateway id="Fork"/>'
        '<userTask id="Check"/><parallelGateway id="Join"/>'
        '<exclusiveGateway id="Again" default="Out"/>'
        + script("Count", "n = n + 1")
        + '<endEvent id="E"/>'
        + flow("S", "Loop")
        + flow("Loop", "Fork")
        + flow("Fork", "Count")
        + flow("Fork", "Check")
        + flow("Count", "Join")
        + flow("Check", "Join")
        + flow("Join", "Again")
        + flow("Again", "Loop", "Back", "n < 3")
        + flow("Again", "E", "Out")
    )
    db = tmp_path / "state.db"
    instance_id = None
    # when: every turn runs in a fresh engine
    for _ in range(3):
        engine = make_engine(db)
        if instance_id is None:
            instance = engine.start(path, variables={"n": 0})
            instance_id = instance.id
        else:
            instance = engine.instance(instance_id)
        instance.run()
        instance.complete_task("Check")
        outcome = instance.run()
        engine.close()
    # then
    assert outcome.state == "completed"
    rows = (
        make_engine(db)
        .store.conn.execute(
            "SELECT gateway, activation FROM joins WHERE instance = ? ORDER BY activation",
            (instance_id,),
        )
        .fetchall()
    )
    assert rows == [("Join", 1), ("Join", 2), ("Join", 3)]


def test_a_reopened_instance_keeps_the_scheduling_order(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: two chains after a fork, stopped after three steps (S, Fork, A1)
    path = bpmn(
        '<startEvent id="S"/><parallelGateway id="Fork"/>'
        '<task id="A1"/><task id="A2"/><task id="B1"/><task id="B2"/>'
        + flow("S", "Fork")
        + flow("Fork", "A1")
        + flow("Fork", "B1")
        + flow("A1", "A2")
        + flow("B1", "B2")
    )
    db = tmp_path / "state.db"
    first = make_engine(db)
    instance = first.start(path)
    for _ in range(3):
        instance.step_once()
    first.close()
    # when
    reopened = make_engine(db).instance(instance.id)
    reopened.run()
    # then: the same order as without the restart
    assert activations(reopened) == ["S", "Fork", "A1", "B1", "A2", "B2"]


def test_memory_equals_rows_after_every_step(bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine):
    # given
    engine = make_engine(tmp_path / "state.db")
    instance = engine.start(bpmn(REVIEW), variables={"amount": 3})
    # when / then
    while instance.step_once():
        same_memory_as_rows(engine, instance.data)
    instance.complete_task("Review", {"ok": True})
    same_memory_as_rows(engine, instance.data)
    while instance.step_once():
        same_memory_as_rows(engine, instance.data)
    assert instance.outcome().state == "completed"


FAILING = (
    '<startEvent id="S"/>'
    + script("Good", "good = 1")
    + '<userTask id="Wait"/>'
    + script("Bad", "half = good / zero\nleftover = 1")
    + '<endEvent id="E"/>'
    + flow("S", "Good")
    + flow("Good", "Wait")
    + flow("Wait", "Bad")
    + flow("Bad", "E")
)


def test_a_failed_step_leaves_the_rows_as_before_it_but_for_the_incident(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: the instance is one step away from the failing script
    engine = make_engine(tmp_path / "state.db")
    instance = engine.start(bpmn(FAILING), variables={"zero": 0})
    instance.run()
    instance.complete_task("Wait", {"answer": "yes"})
    assert instance.data.next_ready().element == "Bad"
    before = dump_tables(engine, instance.id)
    # when
    assert instance.step_once() is True
    after = dump_tables(engine, instance.id)
    # then: variables, scopes, tasks and joins are untouched
    for table in ("scopes", "variables", "user_tasks", "joins"):
        assert after[table] == before[table], table
    # only the failed track changed: its status and version
    [(old_track)] = [t for t in before["tracks"] if t[2] == "Bad"]
    [(new_track)] = [t for t in after["tracks"] if t[2] == "Bad"]
    assert [t for t in after["tracks"] if t[2] != "Bad"] == [
        t for t in before["tracks"] if t[2] != "Bad"
    ]
    changed = {i for i, (a, b) in enumerate(zip(old_track, new_track, strict=True)) if a != b}
    assert {new_track[i] for i in changed} >= {"failed"}
    # history only gained the incident
    assert after["history"][: len(before["history"])] == before["history"]
    added = [row[2] for row in after["history"][len(before["history"]) :]]
    assert added == ["incident.created", "instance.failed"]
    same_memory_as_rows(engine, instance.data)


def test_rolling_back_a_step_restores_memory_exactly(bpmn: Bpmn, engine: Engine):
    # given: an instance waiting at a user task, and a snapshot of its memory
    instance = engine.start(bpmn(FAILING), variables={"zero": 0, "nested": {"a": [1]}})
    instance.run()
    data = instance.data
    snapshot = copy.deepcopy(
        (data.head, data.tracks, data.scopes, data.values, data.tasks, data.joins)
    )
    # when: a step changes everything it can (but creates no variable), then is rolled back
    step = Step(data)
    track = step.touch_track(data.tracks[1])
    track.move(TrackState.READY)
    track.element = "Bad"
    step.new_track(element="E", scope=1, status=TrackState.READY)
    step.new_scope("Sub", 1, 1)
    step.set_value(1, "zero", 5)
    step.set_value(1, "nested", {"a": [1, 2]})
    step.delete_value(1, "good")
    step.touch_task(data.tasks[1]).move(TaskState.COMPLETED)
    step.new_task(track, "other", {})
    step.add_join(1, "Join", [1, 2])
    step.set_state(InstanceState.FAILED)
    step.emit("anything", "E", 1)
    step.rollback()
    # then
    data = instance.data
    joins = {k: n for k, n in data.joins.items() if n}  # zero activations: none
    assert (data.head, data.tracks, data.scopes, data.tasks, joins) == (
        snapshot[0],
        snapshot[1],
        snapshot[2],
        snapshot[4],
        snapshot[5],
    )
    assert {s: v for s, v in data.values.items() if v} == snapshot[3]
    assert data.next_ready() is None
    assert data.variables.visible(1) == {"zero": 0, "nested": {"a": [1]}, "good": 1}
    same_memory_as_rows(engine, data)


def test_rolling_back_a_step_removes_the_variables_it_created(bpmn: Bpmn, engine: Engine):
    # given
    instance = engine.start(bpmn(FAILING), variables={"zero": 0})
    instance.run()
    data = instance.data
    # when
    step = Step(data)
    step.set_value(1, "fresh", [1])
    scope = step.new_scope("Sub", 1, 1)
    step.set_value(scope.id, "inner", 1)
    step.rollback()
    # then
    assert instance.variables == {"zero": 0, "good": 1}
    same_memory_as_rows(engine, instance.data)


def test_a_crash_during_a_handler_reruns_it_on_resume_with_the_same_idempotency_key(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: the process dies while the handler runs (after the claim was committed)
    class Crash(BaseException):
        pass

    calls: list[tuple[int, str]] = []

    def dies(context: ServiceTaskContext):
        calls.append((context.attempt, context.idempotency_key))
        raise Crash()

    def works(context: ServiceTaskContext):
        calls.append((context.attempt, context.idempotency_key))
        return {"paid": True}

    path = bpmn(
        '<startEvent id="S"/><serviceTask id="Pay" camunda:type="external" camunda:topic="pay"/>'
        '<endEvent id="E"/>' + flow("S", "Pay") + flow("Pay", "E")
    )
    db = tmp_path / "state.db"
    first = make_engine(db, handlers={"pay": dies})
    instance = first.start(path)
    with pytest.raises(Crash):
        instance.run()
    first.close()
    # when
    second = make_engine(db, handlers={"pay": works})
    resumed = second.instance(instance.id)
    tokens = resumed.tokens()
    outcome = resumed.run()
    # then
    assert tokens == [{"track": 1, "element": "Pay", "state": "alive", "scope": 1, "via": "S_Pay"}]
    assert outcome.state == "completed"
    assert outcome.variables == {"paid": True}
    assert [attempt for attempt, _ in calls] == [1, 2]
    assert calls[0][1] == calls[1][1]
    assert [e.data["attempt"] for e in events_named(resumed, "job.started")] == [1, 2]
    assert activations(resumed, "Pay") == ["Pay"]


def test_a_stale_copy_of_an_instance_cannot_overwrite_a_newer_one(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: two copies of the same waiting instance
    engine = make_engine(tmp_path / "state.db")
    instance = engine.start(bpmn(REVIEW), variables={"amount": 7})
    instance.run()
    stale = engine.instance(instance.id)
    fresh = engine.instance(instance.id)
    fresh.complete_task("Review", {"ok": True})
    fresh.run()
    # when / then
    with pytest.raises(ConcurrentModification):
        stale.complete_task("Review", {"ok": False})
    assert stale.outcome().state == "waiting"
    final = engine.instance(instance.id).outcome()
    assert final.state == "completed"
    assert final.variables["approved"] is True


def test_engine_lists_its_instances_with_their_waiting_tasks(bpmn: Bpmn, engine: Engine):
    # given
    waiting = engine.start(bpmn(REVIEW), variables={"amount": 1})
    waiting.run()
    done = engine.start(bpmn('<startEvent id="S"/>'))
    done.run()
    # when
    listed = {row["id"]: row for row in engine.instances()}
    # then
    assert listed[waiting.id]["state"] == "waiting"  # the word its outcome uses
    assert listed[waiting.id]["waiting_tasks"] == 1
    assert listed[done.id]["state"] == "completed"
    assert listed[done.id]["waiting_tasks"] == 0


def test_values_read_the_same_before_and_after_reopening(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a handler returns values JSON stores differently
    path = bpmn('<startEvent id="S"/><serviceTask id="T"/>' + flow("S", "T"))
    engine = make_engine(tmp_path / "state.db", handlers={"T": lambda c: {"pair": (1, 2)}})
    # when
    outcome = engine.start(path).run()
    # then
    reopened = engine.instance(outcome.instance)
    assert json.loads(json.dumps(reopened.variables)) == reopened.variables
    assert outcome.variables == reopened.variables


def test_reopening_an_unknown_or_ambiguous_instance_is_a_usage_error(bpmn: Bpmn, engine: Engine):
    # given
    path = bpmn('<startEvent id="S"/>')
    ids = [engine.start(path).id for _ in range(17)]  # 17 hex ids: two share a first digit
    shared = next(a[0] for a in ids if sum(1 for b in ids if b[0] == a[0]) > 1)
    # when / then
    with pytest.raises(UsageError, match="no instance"):
        engine.instance("zz-not-an-id")
    with pytest.raises(UsageError, match="ambiguous"):
        engine.instance(shared)
    assert engine.instance(ids[0]).id == ids[0]
