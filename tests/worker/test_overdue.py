"""Tokens late to move on (issue 28, item 7): `bpmn instances --stuck` lists a retry past its
due time (no worker ran it) and a job whose claim's lease ran out (its holder is gone),
each with the command that moves it on; `bpmn resume` then does."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import Engine, VirtualClock, Worker
from tests.postgresql_server import shared_db
from tests.worker.conftest import JOB, bpmn_file
from tests.worker.test_leases import crash, hand_over


def fails(ctx: Any) -> None:
    raise RuntimeError("card service down")


def cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cli", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_retry_past_its_due_time_is_late(tmp_path: Path, engines) -> None:
    db = tmp_path / "late.db"
    first = engines(db, handlers={"work": fails}, backoff=600.0)
    instance = first.start(bpmn_file(tmp_path / "job.bpmn", JOB))
    assert instance.run().waiting_for[0]["reason"] == "retry"
    assert first.overdue() == []  # due in ten minutes: not late yet
    assert first.instances(stuck=True) == []
    later = engines(db, clock=VirtualClock(datetime.now(UTC) + timedelta(hours=2)))
    [late] = later.overdue()
    assert (late.instance, late.track, late.element, late.why) == (instance.id, 1, "work", "retry")
    assert datetime.fromisoformat(late.since) > datetime.now(UTC)  # when it fell due
    assert [r["id"] for r in later.instances(stuck=True)] == [instance.id]
    pays = engines(db, handlers={"work": lambda ctx: {"paid": True}}, clock=later.clock)
    assert pays.instance(instance.id).run().state == "completed"  # the late retry, now
    assert later.overdue() == []


def test_a_job_whose_lease_ran_out_is_late(tmp_path: Path, engines) -> None:
    db = tmp_path / "lease.db"
    first = engines(db)
    instance_id = crash(first, bpmn_file(tmp_path / "job.bpmn", JOB))
    hand_over(first, instance_id, "other-host:4242", timedelta(minutes=5))
    assert first.overdue() == []  # its holder may be alive: not late
    hand_over(first, instance_id, "other-host:4242", -timedelta(minutes=5))
    [late] = first.overdue()
    assert (late.instance, late.element, late.why) == (instance_id, "work", "lease")
    assert "claim ran out" in late.reason


def test_bpmn_instances_stuck_names_the_late_token_and_the_command(tmp_path: Path, engines) -> None:
    if "postgresql" in str(shared_db(tmp_path / "x.db")):
        pytest.skip("the command line opens the SQLite file")
    db = tmp_path / "cli.db"
    first = engines(db)
    instance_id = crash(first, bpmn_file(tmp_path / "job.bpmn", JOB))
    hand_over(first, instance_id, "other-host:4242", -timedelta(minutes=5))
    done = cli(db, "instances", "--stuck")
    assert done.returncode == 0, done.stderr
    assert instance_id in done.stdout and "claim ran out" in done.stdout
    assert f"bpmn resume {instance_id} --db {db}" in " ".join(done.stdout.split())
    rows = [
        json.loads(line)
        for line in cli(db, "instances", "--stuck", "--json").stdout.split("\n")
        if line
    ]
    assert [r["overdue"][0]["why"] for r in rows] == ["lease"]
    Engine(str(db), handlers={"work": lambda ctx: None}).instance(instance_id).run()
    assert cli(db, "instances", "--stuck").stdout.count(instance_id) == 0


def test_two_workers_racing_on_a_due_retry_run_it_exactly_once(tmp_path: Path, engines) -> None:
    # given: a job whose first try failed; its retry is due when two workers look at once
    db = tmp_path / "race.db"
    first = engines(db, handlers={"work": fails}, backoff=600.0)
    instance = first.start(bpmn_file(tmp_path / "job.bpmn", JOB))
    assert instance.run().waiting_for[0]["reason"] == "retry"
    later = datetime.now(UTC) + timedelta(hours=2)
    calls: list[int] = []
    lock = threading.Lock()
    ready = threading.Barrier(2)

    def pays(ctx: Any) -> dict[str, Any]:
        with lock:
            calls.append(ctx.attempt)
        return {"paid": True}

    def work(holder: str) -> None:
        with Engine(shared_db(db), handlers={"work": pays}, clock=VirtualClock(later)) as engine:
            engine.store.worker = holder  # two hosts
            ready.wait(30)
            Worker(engine, once=True, poll=0).run()

    threads = [threading.Thread(target=work, args=(f"host{n}.example:1",)) for n in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    # then: the retry ran once, on the same token, and the instance completed once
    assert calls == [2]
    with Engine(shared_db(db)) as engine:
        done = engine.instance(instance.id)
        assert done.state == "completed" and done.variables == {"paid": True}
        assert [e.event for e in done.history()].count("instance.completed") == 1
