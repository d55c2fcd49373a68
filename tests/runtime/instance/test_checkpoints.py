"""Checkpoints at wait states: the steps of a run are committed together, with the same rows."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine
from bpmn_engine.errors import ConcurrentModification, UsageError
from bpmn_engine.records.rows import Event
from tests.postgresql_server import scratch_db
from tests.runtime.conftest import Bpmn, MakeEngine, activations, flow, script

FORK_SUBPROCESS_TASK = (
    '<startEvent id="S"/><parallelGateway id="Fork"/><parallelGateway id="Join"/>'
    + script("A", "a = 1")
    + '<subProcess id="Sub"><startEvent id="SS"/>'
    + script("B", "b = 2")
    + '<endEvent id="SE"/>'
    + flow("SS", "B")
    + flow("B", "SE")
    + "</subProcess>"
    + '<userTask id="Review"/><endEvent id="E"/>'
    + flow("S", "Fork")
    + flow("Fork", "A")
    + flow("Fork", "Sub")
    + flow("A", "Join")
    + flow("Sub", "Join")
    + flow("Join", "Review")
    + flow("Review", "E")
)

CHAIN = (
    '<startEvent id="S"/>'
    + script("A", "n = n + 1")
    + script("B", "n = n + 1")
    + script("C", "n = n + 1")
    + '<endEvent id="E"/>'
    + flow("S", "A")
    + flow("A", "B")
    + flow("B", "C")
    + flow("C", "E")
)


def rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every instance table, without the instance id, timestamps and the
    instance row's version (one per commit)."""
    queries = {
        "instances": "SELECT process, state, end_event, incident, next_track, "
        "next_scope, next_task, next_seq, next_event FROM instances",
        "tracks": "SELECT id, element, scope, status, seq, parent, fork_group, via, wait, "
        "attempt, version, claimed_by, lease_until FROM tracks ORDER BY id",
        "scopes": "SELECT id, element, parent, track, status, version FROM scopes ORDER BY id",
        "variables": "SELECT scope, name, value FROM variables ORDER BY scope, name",
        "user_tasks": "SELECT id, track, element, name, status, inputs FROM user_tasks",
        "joins": "SELECT scope, gateway, activation, tracks FROM joins ORDER BY activation",
        "history": "SELECT seq, event, element, track, data FROM history ORDER BY seq",
    }
    with sqlite3.connect(db) as conn:
        return {table: conn.execute(query).fetchall() for table, query in queries.items()}


def committed_history(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM history").fetchone()[0]


def test_an_unknown_checkpoint_policy_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown checkpoint policy 'never'"):
        Engine(scratch_db(), checkpoint="never")


def test_checkpoints_at_waits_leave_the_same_rows_as_a_checkpoint_per_step(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given
    path = bpmn(FORK_SUBPROCESS_TASK)
    found = {}
    for policy in ("step", "wait"):
        engine = make_engine(tmp_path / f"{policy}.db", checkpoint=policy)
        # when: a run to the user task, then its completion and the rest
        instance = engine.start(path)
        instance.run()
        instance.complete_task("Review", {"ok": True})
        instance.run()
        engine.close()
        found[policy] = rows(tmp_path / f"{policy}.db")
    # then
    assert found["wait"] == found["step"]
    assert found["wait"]["instances"][0][1] == "completed"


def test_a_run_commits_nothing_until_it_waits(bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine):
    # given
    db = tmp_path / "state.db"
    engine = make_engine(db, checkpoint="wait")
    instance = engine.start(bpmn(FORK_SUBPROCESS_TASK))
    at_start = committed_history(db)
    seen: list[int] = []
    # when
    outcome = instance.run(on_event=lambda event: seen.append(committed_history(db)))
    # then: every step ran, and only the wait at Review committed them
    assert outcome.state == "waiting"
    assert set(seen) == {at_start}
    assert committed_history(db) == at_start + len(seen)


def test_a_long_run_commits_every_limit_events(bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine):
    # given: a checkpoint at least every 12 history events (S makes 3, each script task 4)
    db = tmp_path / "state.db"
    engine = make_engine(db, checkpoint="wait")
    instance = engine.start(bpmn(CHAIN), variables={"n": 0})
    instance.checkpoints.limit = 12
    committed: list[int] = []

    def watch(event: Event) -> None:
        if event.event == "element.completed":
            committed.append(committed_history(db))

    # when
    outcome = instance.run(on_event=watch)
    # then: S, A, B, C and E complete; the fourth step is committed before its events are told
    assert outcome.state == "completed"
    assert outcome.variables == {"n": 3}
    first, second = committed[0], committed[3]
    assert committed == [first] * 3 + [second] * 2
    assert second > first


def test_a_long_chain_commits_every_limit_events(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a checkpoint at least every 12 history events (S makes 3, each script task 4),
    # and a chain of eight script tasks (taken as one step: `runtime/instance/chain.py`)
    tasks = [f"T{i}" for i in range(8)]
    body = '<startEvent id="S"/><endEvent id="E"/>' + "".join(script(t, "n = n + 1") for t in tasks)
    flows = zip(["S", *tasks], [*tasks, "E"], strict=True)
    path = bpmn(body + "".join(flow(a, b) for a, b in flows))
    db = tmp_path / "state.db"
    engine = make_engine(db, checkpoint="wait")
    instance = engine.start(path, variables={"n": 0})
    instance.checkpoints.limit = 12
    lags: list[int] = []
    committed: set[int] = set()

    def watch(event: Event) -> None:
        rows = committed_history(db)
        committed.add(rows)
        lags.append(event.seq - rows)  # told events not yet in the rows

    # when
    outcome = instance.run(on_event=watch)
    # then: the rows grew during the run, never more than 12 events behind what was told
    assert outcome.state == "completed"
    assert outcome.variables == {"n": 8}
    assert len(committed) >= 3
    assert max(lags) <= 12
    assert committed_history(db) == len(instance.history())


CRASHING_RUN = """
import os, sqlite3, sys
from bpmn_engine import Engine

db, path, calls = sys.argv[1:4]

def pay(context):
    with sqlite3.connect(db) as conn:
        status, lease = conn.execute("SELECT status, lease_until FROM tracks").fetchone()
        (before,) = conn.execute("SELECT count(*) FROM history WHERE element = 'A'").fetchone()
    with open(calls, "a") as out:
        out.write(f"{status} {lease is not None} {before}\\n")
    return {"paid": True}

def dies(event):  # a hard crash: no finally, no flush
    if event.event == "element.completed" and event.element == "B":
        os._exit(3)

engine = Engine(db, handlers={"pay": pay}, checkpoint="wait")
engine.start(path).run(on_event=dies)
"""


def test_a_handler_runs_after_a_checkpoint_and_its_result_is_committed_at_once(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a process killed (no cleanup) two steps after the handler returned
    db, calls = tmp_path / "state.db", tmp_path / "calls.txt"
    path = bpmn(
        '<startEvent id="S"/>'
        + script("A", "a = 1")
        + '<serviceTask id="Pay" camunda:type="external" camunda:topic="pay"/>'
        + script("B", "b = 1")
        + '<endEvent id="E"/>'
        + flow("S", "A")
        + flow("A", "Pay")
        + flow("Pay", "B")
        + flow("B", "E")
    )
    crashed = subprocess.run(
        [sys.executable, "-c", CRASHING_RUN, str(db), str(path), str(calls)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == 3, crashed.stderr
    # when
    engine = make_engine(db, handlers={"pay": lambda context: {"paid": "again"}})
    (instance_id,) = [i["id"] for i in engine.store.list_instances()]
    resumed = engine.instance(instance_id)
    outcome = resumed.run()
    # then: the handler saw A committed and its own job claimed, and was not called again
    # (A: activated, variables.updated, completed, flow.taken)
    assert calls.read_text().splitlines() == ["executing True 4"]
    assert outcome.state == "completed"
    assert outcome.variables == {"a": 1, "paid": True, "b": 1}
    assert activations(resumed) == ["S", "A", "Pay", "B", "E"]


def test_a_batch_that_loses_a_race_is_rolled_back_to_its_last_checkpoint(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: two engines on one database, and a copy of the instance changed by the other
    db = tmp_path / "state.db"
    batching = make_engine(db, checkpoint="wait")
    instance = batching.start(bpmn(CHAIN), variables={"n": 0})
    tokens = instance.tokens()
    other = make_engine(db).instance(instance.id)
    other.set_variables({"n": 10})
    # when
    with pytest.raises(ConcurrentModification):
        instance.run()
    # then: memory is back at the checkpoint it started from; the rows are the other's
    assert instance.tokens() == tokens
    assert instance.variables == {"n": 0}
    assert make_engine(db).instance(instance.id).variables == {"n": 10}
    assert rows(db)["history"][-1][1] == "variables.updated"


def test_an_incident_in_a_batch_keeps_the_steps_before_it(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given
    db = tmp_path / "state.db"
    engine = make_engine(db, checkpoint="wait")
    path = bpmn(CHAIN.replace(script("B", "n = n + 1"), script("B", "n = n / 0")))
    # when
    outcome = engine.start(path, variables={"n": 0}).run()
    # then
    assert outcome.state == "failed"
    reopened = make_engine(db).instance(outcome.instance)
    assert reopened.outcome().state == "failed"
    assert reopened.variables == {"n": 1}
    assert activations(reopened) == ["S", "A"]  # B's step was rolled back: the incident
    assert reopened.outcome().incident is not None
    assert reopened.outcome().incident.startswith("B: ")


def test_a_user_task_is_a_checkpoint_even_when_answered_at_once(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a person (here a function) answers the task as soon as it waits
    db = tmp_path / "state.db"
    seen: list[list[str]] = []

    def answer(instance: Any, task: Any) -> dict[str, Any]:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT event || ' ' || element FROM history ORDER BY seq")
            seen.append([row[0] for row in rows])
        return {"ok": True}

    engine = make_engine(db, checkpoint="wait", on_user_task=answer)
    path = bpmn(
        '<startEvent id="S"/>'
        + script("A", "a = 1")
        + '<userTask id="Review"/><endEvent id="E"/>'
        + flow("S", "A")
        + flow("A", "Review")
        + flow("Review", "E")
    )
    # when
    outcome = engine.start(path).run()
    # then: when the person was asked, the steps up to the wait were in the rows
    assert outcome.state == "completed"
    assert seen[0][-2:] == ["element.activated Review", "element.waiting Review"]
    assert "element.completed A" in seen[0]


def test_a_failed_write_rolls_memory_back_to_the_last_checkpoint(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine, monkeypatch: pytest.MonkeyPatch
):
    # given: the database refuses the checkpoint once (locked past the busy timeout)
    db = tmp_path / "state.db"
    engine = make_engine(db, checkpoint="wait")
    instance = engine.start(bpmn(CHAIN), variables={"n": 0})
    tokens = instance.tokens()
    commit = engine.store.commit
    failures = [sqlite3.OperationalError("database is locked")]

    def refuses_once(step: Any, **kwargs: Any) -> None:
        if failures:
            raise failures.pop()
        commit(step, **kwargs)

    monkeypatch.setattr(engine.store, "commit", refuses_once)
    # when
    with pytest.raises(sqlite3.OperationalError):
        instance.run()
    # then: memory is the rows again, and the run can simply go on
    assert instance.tokens() == tokens
    assert instance.variables == {"n": 0}
    outcome = instance.run()
    assert outcome.state == "completed"
    assert outcome.variables == {"n": 3}
    assert activations(make_engine(db).instance(instance.id)) == ["S", "A", "B", "C", "E"]


def test_of_two_runs_of_one_instance_only_the_first_to_commit_calls_the_handler(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: two processes (engines) load the same instance before either runs it
    db = tmp_path / "state.db"
    calls: list[str] = []
    path = bpmn(
        '<startEvent id="S"/>'
        + script("A", "a = 1")
        + '<serviceTask id="Pay" camunda:type="external" camunda:topic="pay"/>'
        + '<endEvent id="E"/>'
        + flow("S", "A")
        + flow("A", "Pay")
        + flow("Pay", "E")
    )
    first = make_engine(db, checkpoint="wait", handlers={"pay": lambda c: calls.append("first")})
    second = make_engine(db, checkpoint="wait", handlers={"pay": lambda c: calls.append("second")})
    instance_id = first.start(path).id
    mine, theirs = first.instance(instance_id), second.instance(instance_id)
    # when
    outcome = mine.run()
    with pytest.raises(ConcurrentModification):
        theirs.run()
    # then
    assert outcome.state == "completed"
    assert calls == ["first"]


THREE_JOBS = (
    '<startEvent id="S"/>'
    + "".join(
        f'<serviceTask id="{job}" camunda:type="external" camunda:topic="{job}"/>'
        for job in ("T1", "T2", "T3")
    )
    + '<endEvent id="E"/>'
    + flow("S", "T1")
    + flow("T1", "T2")
    + flow("T2", "T3")
    + flow("T3", "E")
)


def test_a_handlers_result_commits_with_the_next_jobs_claim(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: handlers that look at the rows while they run
    db = tmp_path / "state.db"
    seen: list[tuple[str, str, bool, list[str]]] = []

    def look(context: Any) -> None:
        with sqlite3.connect(db) as conn:
            status, lease = conn.execute(
                "SELECT status, lease_until FROM tracks WHERE element = ?", (context.element_id,)
            ).fetchone()
            done = conn.execute(
                "SELECT element FROM history WHERE event = 'element.completed' ORDER BY seq"
            )
            seen.append((context.element_id, status, lease is not None, [r[0] for r in done]))

    engine = make_engine(db, checkpoint="wait", handlers={t: look for t in ("T1", "T2", "T3")})
    instance = engine.start(bpmn(THREE_JOBS))
    version = instance.data.head.version
    # when
    outcome = instance.run()
    # then: each handler ran with its claim committed and every earlier result with it
    assert outcome.state == "completed"
    assert seen == [
        ("T1", "executing", True, ["S"]),
        ("T2", "executing", True, ["S", "T1"]),
        ("T3", "executing", True, ["S", "T1", "T2"]),
    ]
    # one commit per claim, and the last result with the end: 4, not 7
    with sqlite3.connect(db) as conn:
        (after,) = conn.execute("SELECT version FROM instances").fetchone()
    assert after - version == 4


CRASH_IN_SECOND_HANDLER = """
import os, sys
from bpmn_engine import Engine

db, path, calls = sys.argv[1:4]

def call(name, crash=False):
    def handler(context):
        with open(calls, "a") as out:
            out.write(name + "\\n")
        if crash:
            os._exit(3)  # a hard crash inside the handler: no finally, no flush
    return handler

handlers = {"T1": call("T1"), "T2": call("T2", crash=True), "T3": call("T3")}
Engine(db, handlers=handlers, checkpoint="wait").start(path).run()
"""


def test_a_crash_in_a_handler_never_calls_the_handler_before_it_again(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
):
    # given: a process killed inside the second handler (T1's result was committed with
    # T2's claim, before T2's handler ran)
    db, calls = tmp_path / "state.db", tmp_path / "calls.txt"
    path = bpmn(THREE_JOBS)
    crashed = subprocess.run(
        [sys.executable, "-c", CRASH_IN_SECOND_HANDLER, str(db), str(path), str(calls)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crashed.returncode == 3, crashed.stderr

    def again(name: str) -> Any:
        def handler(context: Any) -> None:
            with calls.open("a") as out:
                out.write(name + "\n")

        return handler

    engine = make_engine(db, checkpoint="wait", handlers={t: again(t) for t in ("T1", "T2", "T3")})
    (instance_id,) = [i["id"] for i in engine.store.list_instances()]
    # when
    outcome = engine.instance(instance_id).run()
    # then: T2 runs again (at least once), T1 never
    assert outcome.state == "completed"
    assert calls.read_text().splitlines() == ["T1", "T2", "T2", "T3"]
