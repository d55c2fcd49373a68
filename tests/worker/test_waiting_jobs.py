"""A service task reached by a run without its handler waits as a job; a worker that has the
handler serves it, one that has not leaves it waiting (and does not spin on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bpmn_engine.runtime.worker.worker import Worker
from tests.worker.conftest import JOB, bpmn_file, completions


def test_a_worker_with_the_handler_serves_a_job_a_run_left_waiting(
    tmp_path: Path, engines: Any
) -> None:
    # given: a run without handlers leaves the service task waiting for one
    db = tmp_path / "jobs.db"
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    instance_id = engines(db).start(path).run().instance
    calls: list[str] = []
    worker_engine = engines(db, handlers={"work": lambda ctx: calls.append(ctx.element_id)})
    # when
    report = Worker(worker_engine, once=True).run()
    # then
    assert report.instances == {instance_id}
    assert calls == ["work"]
    assert worker_engine.instance(instance_id).state == "completed"
    assert completions(worker_engine, instance_id) == {"s": 1, "work": 1, "e": 1}


def test_a_worker_without_the_handler_leaves_the_job_waiting(tmp_path: Path, engines: Any) -> None:
    # given
    db = tmp_path / "jobs.db"
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    instance_id = engines(db).start(path).run().instance
    worker_engine = engines(db, handlers={"other": lambda ctx: None})
    # when
    report = Worker(worker_engine, once=True).run()
    # then
    assert (report.steps, report.instances) == (0, set())
    outcome = worker_engine.instance(instance_id).outcome()
    assert outcome.state == "waiting"
    assert [w["reason"] for w in outcome.waiting_for] == ["job"]
