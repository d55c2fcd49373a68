"""Jobs and leases (seed 004): who may re-run a track a crash left `executing`, and when.

A crash is simulated by a handler that raises `KeyboardInterrupt`: the claim (track
`executing`, attempt 1, `claimed_by` this process, a lease) is committed, the result never is.
The claim is then handed to a dead process, a live one, or another host, by rewriting the row.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import ConcurrentModification, Engine
from bpmn_engine.runtime.worker.worker import Worker
from bpmn_engine.store import open_store
from tests.postgresql_server import shared_db
from tests.worker.conftest import JOB, bpmn_file, completions

HOST = socket.gethostname()
TRACK = 1  # the one track of JOB: start, work, end


def crash(engine: Engine, path: Path) -> str:
    """Start an instance and 'crash' while its handler runs; the claim stays committed."""

    def dies(ctx: Any) -> None:
        raise KeyboardInterrupt  # not an Exception: the engine does not turn it into an incident

    engine.handlers = {"work": dies}
    instance = engine.start(path)
    with pytest.raises(KeyboardInterrupt):
        instance.run()
    return instance.id


def claim(engine: Engine, instance_id: str) -> tuple[str, str, str | None]:
    row = engine.store.conn.execute(
        "SELECT status, claimed_by, lease_until FROM tracks WHERE instance = ? AND id = 1",
        (instance_id,),
    ).fetchone()
    return row[0], row[1], row[2]


def hand_over(engine: Engine, instance_id: str, holder: str, lease: timedelta) -> None:
    until = (datetime.now(UTC) + lease).isoformat(timespec="milliseconds")
    engine.store.conn.execute(
        "UPDATE tracks SET claimed_by = ?, lease_until = ? WHERE instance = ? AND id = 1",
        (holder, until, instance_id),
    )


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def crashed(tmp_path: Path, engines) -> tuple[Path, str, list[str]]:
    """A database with one instance whose job a crash left `executing`."""
    db = shared_db(tmp_path / "jobs.db")
    first = engines(db)
    instance_id = crash(first, bpmn_file(tmp_path / "job.bpmn", JOB))
    return db, instance_id, []


def worker_engine(engines, db: Path, calls: list[str]) -> Engine:
    return engines(db, handlers={"work": lambda ctx: calls.append(ctx.idempotency_key)})


def test_the_claim_is_committed_with_a_lease(crashed, engines) -> None:
    db, instance_id, _ = crashed
    engine = engines(db)
    status, holder, until = claim(engine, instance_id)
    assert status == "executing"
    assert holder.startswith(f"{HOST}:{os.getpid()}.")  # this host, this process, which store
    assert holder != engine.store.worker
    assert until is not None and until > datetime.now(UTC).isoformat()


def test_a_job_whose_holder_died_on_this_host_is_taken_over_at_once(crashed, engines) -> None:
    db, instance_id, calls = crashed
    engine = worker_engine(engines, db, calls)
    hand_over(engine, instance_id, f"{HOST}:{dead_pid()}", timedelta(hours=1))
    assert not engine.store.live_claim(instance_id, TRACK)

    report = Worker(engine, once=True).run()

    assert report.instances == {instance_id}
    assert engine.instance(instance_id).state == "completed"
    assert len(calls) == 1 and calls[0].startswith(instance_id)
    assert completions(engine, instance_id) == {"s": 1, "work": 1, "e": 1}
    attempts = [
        e.data["attempt"] for e in engine.store.history(instance_id) if e.event == "job.started"
    ]
    assert attempts == [1, 2]
    assert claim(engine, instance_id) == ("completed", None, None)


def test_a_job_a_live_process_holds_under_lease_is_left_alone(crashed, engines) -> None:
    db, instance_id, calls = crashed
    engine = worker_engine(engines, db, calls)
    hand_over(engine, instance_id, f"{HOST}:{os.getppid()}", timedelta(hours=1))
    assert engine.store.live_claim(instance_id, TRACK)

    report = Worker(engine, once=True).run()

    assert (report.steps, calls) == (0, [])
    assert engine.store.runnable_instances(datetime.now(UTC)) == []
    assert claim(engine, instance_id)[0] == "executing"


def test_a_job_held_on_another_host_waits_for_its_lease(crashed, engines) -> None:
    db, instance_id, calls = crashed
    engine = worker_engine(engines, db, calls)
    hand_over(engine, instance_id, "elsewhere.example:4242", timedelta(hours=1))
    assert Worker(engine, once=True).run().steps == 0

    hand_over(engine, instance_id, "elsewhere.example:4242", timedelta(seconds=-1))
    report = Worker(engine, once=True).run()

    assert report.leases_released == 1
    assert engine.instance(instance_id).state == "completed"
    assert len(calls) == 1


def test_the_reaper_releases_expired_leases_only(crashed, engines) -> None:
    db, instance_id, _ = crashed
    engine = engines(db)
    hand_over(engine, instance_id, "elsewhere.example:1", timedelta(minutes=5))
    assert engine.store.release_expired_leases() == 0
    hand_over(engine, instance_id, "elsewhere.example:1", timedelta(seconds=-1))
    assert engine.store.release_expired_leases() == 1
    assert claim(engine, instance_id) == ("executing", None, None)
    assert not engine.store.live_claim(instance_id, TRACK)


def test_a_heartbeat_extends_only_this_stores_own_lease(crashed, engines) -> None:
    db, instance_id, _ = crashed
    engine = engines(db)
    crashed_holder = claim(engine, instance_id)[1]
    assert not engine.store.heartbeat(instance_id, TRACK, 3600)  # another store's claim
    hand_over(engine, instance_id, engine.store.worker, timedelta(minutes=1))
    before = claim(engine, instance_id)[2]
    assert engine.store.heartbeat(instance_id, TRACK, 3600)
    assert claim(engine, instance_id)[2] > before
    for other in ("elsewhere.example:1", crashed_holder):
        hand_over(engine, instance_id, other, timedelta(minutes=1))
        assert not engine.store.heartbeat(instance_id, TRACK, 3600)


def test_another_open_engine_of_this_process_holds_its_claims(crashed, engines) -> None:
    """Two engines in one process (`bpmn serve` and its worker) never run each other's job:
    a claim is its store's, and an orphan only once that store is closed."""
    db, instance_id, calls = crashed
    holder = engines(db)
    engine = worker_engine(engines, db, calls)
    hand_over(engine, instance_id, holder.store.worker, timedelta(hours=1))
    assert engine.store.live_claim(instance_id, TRACK)
    assert (Worker(engine, once=True).run().steps, calls) == (0, [])
    holder.close()
    assert not engine.store.live_claim(instance_id, TRACK)
    Worker(engine, once=True).run()
    assert engine.instance(instance_id).state == "completed" and len(calls) == 1


def test_losing_a_race_drops_the_instance_and_never_crashes(tmp_path: Path, engines) -> None:
    """The handler's result cannot commit: someone cancelled the instance meanwhile."""
    db = shared_db(tmp_path / "race.db")
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    other = engines(db)

    def cancelled_meanwhile(ctx: Any) -> dict:
        other.instance(ctx.instance_id).cancel()
        return {"done": True}

    engine = engines(db, handlers={"work": cancelled_meanwhile})
    instance = engine.start(path)

    report = Worker(engine, once=True).run()

    # a ghost result (its token moved on): refused and counted as such, not an error
    assert report.ghosts == 1 and report.conflicts == 0 and report.errors == []
    reopened = engine.instance(instance.id)
    assert reopened.state == "terminated"
    assert "done" not in reopened.variables
    assert [e.event for e in reopened.history()].count("element.completed") == 1  # the start


def test_an_instance_that_cannot_be_loaded_is_reported_and_the_worker_goes_on(
    tmp_path: Path, engines
) -> None:
    db = shared_db(tmp_path / "bad.db")
    good = engines(db).start(bpmn_file(tmp_path / "job.bpmn", JOB))
    bad = engines(db).start(bpmn_file(tmp_path / "other.bpmn", JOB), variables={"x": 1})
    engine = engines(db, handlers={"work": lambda ctx: None})
    engine.store.conn.execute(  # a row the engine cannot read back: a bug, not a crash
        "UPDATE variables SET value = '{' WHERE instance = ?", (bad.id,)
    )
    errors: list[str] = []

    report = Worker(engine, once=True, on_error=errors.append).run()

    assert engine.instance(good.id).state == "completed"
    assert report.errors == errors
    assert len(errors) == 1 and errors[0].startswith(f"instance {bad.id}: JSONDecodeError")


def test_the_heartbeat_renews_the_lease_while_the_handler_runs(tmp_path: Path, engines) -> None:
    db = shared_db(tmp_path / "beat.db")
    seen: list[str] = []

    def slow(ctx: Any) -> None:
        other = open_store(db)  # what another worker would read
        query = "SELECT lease_until FROM tracks WHERE instance = ? AND id = 1"
        try:
            seen.append(other.conn.execute(query, (ctx.instance_id,)).fetchone()[0])
            time.sleep(0.5)
            seen.append(other.conn.execute(query, (ctx.instance_id,)).fetchone()[0])
        finally:
            other.close()

    engine = engines(db, handlers={"work": slow})
    instance = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB))

    Worker(engine, once=True, lease=0.3).run()

    assert engine.instance(instance.id).state == "completed"
    first, last = (datetime.fromisoformat(s) for s in seen)
    assert last > first  # the lease was renewed while the handler ran (how often: bench)


def reap_elsewhere(db: Path | str) -> int:
    """What another process's reaper releases now."""
    reaper = open_store(db)
    reaper.worker = "elsewhere:1"
    try:
        return reaper.release_expired_leases()
    finally:
        reaper.close()


@pytest.mark.parametrize(
    ("job_timeout", "released"),
    [(None, [0]), (0.1, [1])],
    ids=["renewed-while-it-runs", "let-go-past-the-job-timeout"],
)
def test_a_run_outside_a_worker_keeps_its_lease_alive_up_to_the_job_timeout(
    tmp_path: Path, engines, job_timeout: float | None, released: list[int]
) -> None:
    # given: `bpmn run` (no worker), a handler that outlives the lease, and a reaper elsewhere
    db = shared_db(tmp_path / "beat.db")
    found: list[int] = []

    def slow(ctx: Any) -> None:
        time.sleep(0.9)
        found.append(reap_elsewhere(db))

    engine = engines(db, handlers={"work": slow}, job_timeout=job_timeout)
    engine.store.lease_seconds = 0.3
    instance = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB))
    # when
    outcome = instance.run()
    # then: the reaper found the lease alive (renewed) or run out (past the timeout); either
    # way nobody else took the job, so its result commits
    assert found == released
    assert outcome.state == "completed"


def began_long_ago(engine: Engine, instance_id: str) -> None:
    """Move the job's call two hours back (its `job.started`): past any cap a test sets."""
    began = (datetime.now(UTC) - timedelta(hours=2)).isoformat(timespec="milliseconds")
    engine.store.conn.execute(
        "UPDATE history SET at = ? WHERE instance = ? AND event = 'job.started'",
        (began, instance_id),
    )


def test_a_job_past_the_absolute_cap_is_an_incident_though_its_holder_is_alive(
    crashed, engines
) -> None:
    # given: a job held under a fresh lease by a live worker elsewhere, called two hours ago
    db, instance_id, calls = crashed
    hand_over(engines(db), instance_id, "elsewhere.example:4242", timedelta(hours=1))
    began_long_ago(engines(db), instance_id)
    uncapped = worker_engine(engines, db, calls)
    capped = engines(db, handlers={"work": lambda ctx: calls.append("again")}, job_timeout=3600)
    # when: a worker without a cap leaves it alone; one with a one-hour cap gives it up
    assert Worker(uncapped, once=True).run().steps == 0
    report = Worker(capped, once=True).run()
    # then: an incident at the task (not a retry: the handler is not called again)
    assert report.jobs_given_up == 1 and calls == []
    instance = capped.instance(instance_id)
    assert instance.state == "failed"
    assert instance.outcome().incident is not None
    assert "LEASE_ABSOLUTE_CAP" in instance.outcome().incident
    assert claim(capped, instance_id) == ("failed", None, None)
    # and `bpmn resume` runs the job again, once
    capped.instance(instance_id).retry()
    Worker(capped, once=True).run()
    assert capped.instance(instance_id).state == "completed"
    assert calls == ["again"]
    assert completions(capped, instance_id) == {"s": 1, "work": 1, "e": 1}


def test_a_wedged_holders_late_result_is_refused_after_the_cap(tmp_path: Path, engines) -> None:
    # given: `bpmn run` whose handler hangs while a capped worker elsewhere looks at the job
    db = shared_db(tmp_path / "wedged.db")
    capped = engines(db, job_timeout=3600)
    given_up: list[int] = []

    def wedged(ctx: Any) -> dict:
        began_long_ago(capped, ctx.instance_id)
        given_up.append(Worker(capped, once=True).run().jobs_given_up)
        return {"done": True}  # too late

    holder = engines(db, handlers={"work": wedged})
    instance = holder.start(bpmn_file(tmp_path / "job.bpmn", JOB))
    # when / then: the holder's result fails to commit; the incident stands
    with pytest.raises(ConcurrentModification):
        instance.run()
    assert given_up == [1]
    reopened = capped.instance(instance.id)
    assert reopened.state == "failed" and "done" not in reopened.variables
    assert completions(capped, instance.id) == {"s": 1}
