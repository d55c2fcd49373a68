"""Workers on PostgreSQL: claims skip locked rows, and a waiting worker is woken by NOTIFY.

Only a server brings these (SQLite serialises writers and has no notifications); the
behaviour both stores share is in the worker suite, run on each store.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import ConcurrentModification, Engine
from bpmn_engine.runtime.worker import worker as worker_module
from bpmn_engine.runtime.worker.worker import Worker
from bpmn_engine.store.postgresql.work import CLAIM_BATCH
from tests.postgresql_server import fresh_url
from tests.worker.conftest import JOB, bpmn_file, completions, flow


def connect(url: str) -> Any:
    import psycopg

    return psycopg.connect(url, autocommit=True)


def test_a_claim_skips_an_instance_another_transaction_is_moving(tmp_path: Path) -> None:
    # given: an instance whose next step claims its job, and its row locked by another writer
    url = fresh_url()
    calls: list[str] = []
    engine = Engine(url, handlers={"work": lambda ctx: calls.append(ctx.idempotency_key)})
    try:
        instance = engine.start(bpmn_file(tmp_path / "job.bpmn", JOB))
        instance.step_once()  # the start event: the track is ready at the service task
        tracks = instance.data.tracks.values()
        assert [(t.element, str(t.status)) for t in tracks] == [("work", "ready")]
        engine.store.conn.pg.execute("SET lock_timeout = '5s'")  # waiting would fail otherwise
        other = connect(url)
        try:
            with other.transaction():
                other.execute("SELECT 1 FROM instances WHERE id = %s FOR UPDATE", (instance.id,))
                # when: the claim is committed while the row is locked
                with pytest.raises(ConcurrentModification, match="skipped"):
                    instance.step_once()
        finally:
            other.close()
        # then: nothing was claimed; once the row is free the job runs, once
        assert calls == []
        outcome = engine.instance(instance.id).run()
        assert outcome.state == "completed" and len(calls) == 1
        assert completions(engine, instance.id) == {"s": 1, "work": 1, "e": 1}
    finally:
        engine.close()


MESSAGE_JOB = (
    '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="go"/>'
    '<intermediateCatchEvent id="go"><messageEventDefinition messageRef="m"/>'
    '</intermediateCatchEvent><sequenceFlow id="f2" sourceRef="go" targetRef="work"/>'
    '<serviceTask id="work"/><sequenceFlow id="f3" sourceRef="work" targetRef="e"/>'
    '<endEvent id="e"/>'
)
MESSAGE = '<message id="m" name="go"/>'


def never() -> bool:
    return False


def test_a_commit_that_leaves_work_ends_a_wait_and_ones_own_do_not(tmp_path: Path) -> None:
    # given: a store waiting for work (listening since its first wait), and another process
    url = fresh_url()
    path = bpmn_file(tmp_path / "msg.bpmn", MESSAGE_JOB, extra=MESSAGE)
    waiting, other = Engine(url), Engine(url)
    try:
        assert waiting.store.wait_for_work(0, never) is False  # starts listening
        instance = other.start(path)
        instance.run()  # waits for the message: a ready track was committed on the way
        assert waiting.store.wait_for_work(60, never) is True  # woken, not timed out
        assert waiting.store.wait_for_work(0.01, never) is False  # the news was drained
        # when: a message is published (correlated, not run on: a worker's to run)
        other.publish_message("go")
        # then: a waiting worker hears of it; of its own commits it does not
        assert waiting.store.wait_for_work(60, never) is True
        waiting.instance(instance.id).step_once()  # the catch event completes: ready work
        assert waiting.store.wait_for_work(0.01, never) is False
    finally:
        waiting.close()
        other.close()


def test_a_worker_polling_every_minute_picks_up_a_message_at_once(tmp_path: Path) -> None:
    # given: a worker on PostgreSQL that polls once an hour, idle, and a waiting instance
    url = fresh_url()
    path = bpmn_file(tmp_path / "msg.bpmn", MESSAGE_JOB, extra=MESSAGE)
    publisher = Engine(url)
    worker_engine = Engine(url, handlers={"work": lambda ctx: None})
    worker = Worker(worker_engine, poll=3600)
    instance = publisher.start(path)
    instance.run()
    waits: list[float] = []
    wait_for_work = worker_engine.store.wait_for_work

    def counted(seconds: float, stopping: Any) -> bool:
        waits.append(seconds)
        return wait_for_work(seconds, stopping)

    worker_engine.store.wait_for_work = counted  # type: ignore[method-assign]
    thread = threading.Thread(target=worker.run)
    thread.start()
    try:
        # it has looked, found nothing, listens, looked once more and waits (a message
        # published before that second look would be found by it, not wake a wait)
        while len(waits) < 2:
            time.sleep(0.01)
        # when: a message is published
        publisher.publish_message("go")
        # then: the worker runs the instance to its end, woken by the notification (the
        # bound only keeps a broken wake-up from hanging the suite for the hour)
        deadline = time.monotonic() + 300
        while publisher.instance(instance.id).state != "completed":
            assert time.monotonic() < deadline, "the worker slept out its poll interval"
            time.sleep(0.02)
        assert worker.report.woken >= 1
    finally:
        worker.stop()
        thread.join()
        publisher.close()
        worker_engine.close()
    assert worker.report.errors == []
    assert worker.report.instances == {instance.id}


def test_workers_claim_disjoint_batches_of_ready_instances(tmp_path: Path) -> None:
    # given: more ready instances than one worker claims per turn, and two workers' stores
    url = fresh_url()
    path = bpmn_file(tmp_path / "job.bpmn", JOB)
    first, second = Engine(url), Engine(url)
    try:
        ready = {first.start(path).id for _ in range(CLAIM_BATCH + 4)}
        now = datetime.now(UTC)
        # when: both look for work in the same turn
        mine = first.store.runnable_instances(now)
        theirs = second.store.runnable_instances(now)
        # then: each gets instances the other skips; together, all of them
        assert len(mine) == CLAIM_BATCH and len(theirs) == 4
        assert set(mine) | set(theirs) == ready and not set(mine) & set(theirs)
        # and a worker's next look (or its wait) gives its claims back
        assert second.store.runnable_instances(now) == sorted(ready - set(mine))[:CLAIM_BATCH]
        first.store.wait_for_work(0, never)
        assert set(second.store.runnable_instances(now)) <= ready
        assert len(second.store.runnable_instances(now)) == CLAIM_BATCH
    finally:
        first.close()
        second.close()


THREE_JOBS = (
    f'<startEvent id="s"/>{flow("s", "a")}<serviceTask id="a"/>{flow("a", "b")}'
    f'<serviceTask id="b"/>{flow("b", "c")}<serviceTask id="c"/>{flow("c", "e")}'
    '<endEvent id="e"/>'
)
HANDLERS = {name: (lambda ctx: None) for name in "abc"}


def listening(url: str) -> Engine:
    """An engine whose store listens, as a waiting worker's does."""
    engine = Engine(url)
    assert engine.store.wait_for_work(0, never) is False  # its first wait starts listening
    return engine


def test_a_workers_own_steps_wake_nobody_and_a_start_from_outside_does(tmp_path: Path) -> None:
    # given: a waiting worker, and an instance started from outside (left to the workers)
    url = fresh_url()
    waiting, starter = listening(url), Engine(url)
    worker_engine = Engine(url, handlers=HANDLERS)
    try:
        instance = starter.start(bpmn_file(tmp_path / "three.bpmn", THREE_JOBS))
        assert waiting.store.wait_for_work(60, never) is True  # `bpmn start`: woken
        # when: a worker drives it through three jobs to its end
        report = Worker(worker_engine, once=True).run()
        # then: nobody was woken for steps only that worker would take
        assert report.instances == {instance.id} and report.steps == 5  # s, a, b, c, e
        assert starter.instance(instance.id).state == "completed"
        assert waiting.store.wait_for_work(0.05, never) is False
    finally:
        for engine in (waiting, starter, worker_engine):
            engine.close()


def test_a_worker_that_lets_go_of_an_instance_with_ready_work_announces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given: a waiting worker, and another whose turn ends after every step of an instance
    url = fresh_url()
    waiting, starter = listening(url), Engine(url)
    worker_engine = Engine(url, handlers=HANDLERS)
    monkeypatch.setattr(worker_module, "STEPS_PER_TURN", 1)
    try:
        instance = starter.start(bpmn_file(tmp_path / "three.bpmn", THREE_JOBS))
        assert waiting.store.wait_for_work(60, never) is True
        worker = Worker(worker_engine)
        # when: the worker takes one step and lets go, the next task ready
        assert worker.drive(instance.id) == 1
        # then: the waiting worker hears of it, and can run the rest
        assert waiting.store.wait_for_work(60, never) is True
        waiting.handlers = HANDLERS
        Worker(waiting, once=True).run()
        assert waiting.instance(instance.id).state == "completed"
        assert completions(waiting, instance.id) == dict.fromkeys(("s", "a", "b", "c", "e"), 1)
    finally:
        for engine in (waiting, starter, worker_engine):
            engine.close()


def test_a_timer_a_worker_sets_and_a_completed_task_wake_the_waiting(tmp_path: Path) -> None:
    # given: an instance that waits for a user task and then a timer, and a waiting worker
    url = fresh_url()
    body = (
        f'<startEvent id="s"/>{flow("s", "ask")}<userTask id="ask"/>{flow("ask", "later")}'
        '<intermediateCatchEvent id="later"><timerEventDefinition>'
        "<timeDuration>PT1H</timeDuration></timerEventDefinition></intermediateCatchEvent>"
        f'{flow("later", "e")}<endEvent id="e"/>'
    )
    waiting, other = listening(url), Engine(url)
    try:
        instance = other.start(bpmn_file(tmp_path / "timer.bpmn", body))
        assert waiting.store.wait_for_work(60, never) is True
        Worker(other, once=True).run()  # up to the user task: a worker's own steps
        assert waiting.store.wait_for_work(0.05, never) is False
        # when: the task is completed from outside (`bpmn complete`, not running on)
        other.instance(instance.id).complete_task("ask")
        # then: the waiting worker is woken; and by the timer the next worker's drive sets
        assert waiting.store.wait_for_work(60, never) is True
        Worker(other, once=True).run()
        assert [t.status for t in other.instance(instance.id).data.timers.values()] == ["waiting"]
        assert waiting.store.wait_for_work(60, never) is True
    finally:
        waiting.close()
        other.close()
