"""The ghost-job guard (issue 28, item 4; seed 004): a handler's result that comes back when
its job no longer counts is refused, said and counted, never applied. A handler is stopped
mid-call, another worker takes the job over, then the first handler returns."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

from bpmn_engine import Engine, GhostResult, Worker
from bpmn_engine.runtime.instance.ghosts import MOVED, TAKEN_OVER
from tests.postgresql_server import shared_db
from tests.worker.conftest import JOB, bpmn_file, completions
from tests.worker.test_leases import hand_over


class Held:
    """A handler that stops mid-call until released, then answers `result`."""

    def __init__(self, result: dict[str, Any]) -> None:
        self.called, self.release, self.result = threading.Event(), threading.Event(), result

    def __call__(self, ctx: Any) -> dict[str, Any]:
        self.called.set()
        assert self.release.wait(60)
        return self.result


def first_holder(db: Any, path: Path, held: Held) -> tuple[list[BaseException], threading.Thread]:
    """`bpmn run` in a thread of its own whose handler is `held`; what it raised."""
    raised: list[BaseException] = []
    started = threading.Event()
    ids: list[str] = []

    def run() -> None:
        with Engine(db, handlers={"work": held}) as engine:
            instance = engine.start(path)
            ids.append(instance.id)
            started.set()
            try:
                instance.run()
            except BaseException as error:  # handed to the test
                raised.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    assert held.called.wait(60) and started.wait(60)
    raised.append(ids[0])  # type: ignore[arg-type]  # the instance's id first
    return raised, thread


def take_over(engine: Engine, instance_id: str) -> None:
    """The first holder's claim as if its lease ran out (it hangs, or its host is cut off):
    the next worker takes the job over."""
    hand_over(engine, instance_id, "cut-off.example:4242", -timedelta(minutes=5))


def test_a_result_whose_claim_was_taken_over_is_refused(tmp_path: Path) -> None:
    # given: `bpmn run` stopped in its handler, its lease run out, a worker running it again
    db = shared_db(tmp_path / "orphan.db")
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    first, second = Held({"paid": "first"}), Held({"paid": "second"})
    raised, thread = first_holder(db, path, first)
    instance_id = raised.pop(0)
    reports: list[Any] = []

    def work() -> None:
        with Engine(db, handlers={"work": second}) as engine:
            engine.store.worker = "elsewhere.example:4242"  # a worker of another host
            reports.append(Worker(engine, once=True).run())

    with Engine(db) as engine:
        take_over(engine, instance_id)
    two = threading.Thread(target=work)
    two.start()
    assert second.called.wait(60)
    # when: the first handler answers while the second still runs the job
    first.release.set()
    thread.join(60)
    second.release.set()
    two.join(60)
    # then: the orphan's answer is refused, saying why; the second one's counts
    [ghost] = raised
    assert [r.ghosts for r in reports] == [0]
    assert isinstance(ghost, GhostResult) and ghost.why == TAKEN_OVER
    assert "its claim was taken over" in str(ghost) and instance_id in str(ghost)
    with Engine(db) as engine:
        assert engine.instance(instance_id).variables == {"paid": "second"}
        assert completions(engine, instance_id) == {"s": 1, "work": 1, "e": 1}


def test_a_worker_counts_and_says_a_result_another_completed_first(tmp_path: Path) -> None:
    # given: a worker stopped in its handler; its lease runs out, and `bpmn resume` elsewhere
    # runs the job again and completes it
    db = shared_db(tmp_path / "race.db")
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    with Engine(db) as engine:
        instance_id = engine.start(path).id  # waits as a job, no handler here
    held = Held({"paid": "first"})
    said: list[str] = []
    reports: list[Any] = []

    def work() -> None:
        with Engine(db, handlers={"work": held}) as engine:
            reports.append(Worker(engine, once=True, on_error=said.append).run())

    one = threading.Thread(target=work)
    one.start()
    assert held.called.wait(60)
    with Engine(db, handlers={"work": lambda ctx: {"paid": "second"}}) as other:
        take_over(other, instance_id)
        other.store.worker = "elsewhere.example:4242"
        assert other.instance(instance_id).run().state == "completed"
    # when: the worker's handler answers
    held.release.set()
    one.join(60)
    # then: refused, said and counted; `bpmn worker` prints the count
    [report] = reports
    assert report.ghosts == 1 and report.to_json()["ghosts"] == 1
    assert len(said) == 1 and "another worker completed the job first" in said[0]
    with Engine(db) as engine:
        assert engine.instance(instance_id).variables == {"paid": "second"}
        assert completions(engine, instance_id) == {"s": 1, "work": 1, "e": 1}


def test_a_result_for_a_token_cancelled_meanwhile_is_refused(tmp_path: Path) -> None:
    db = shared_db(tmp_path / "moved.db")
    held = Held({"paid": "first"})
    raised, thread = first_holder(db, bpmn_file(tmp_path / "job.bpmn", JOB), held)
    instance_id = raised.pop(0)
    with Engine(db) as other:
        other.instance(instance_id).cancel()
        held.release.set()
        thread.join(60)
        [ghost] = raised
        assert isinstance(ghost, GhostResult) and ghost.why == MOVED
        cancelled = other.instance(instance_id)
        assert cancelled.state == "terminated" and "paid" not in cancelled.variables
