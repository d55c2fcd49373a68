"""Retries (issue 28, items 1-2): a handler that raises is tried again on the same token
after a backoff timer, up to its tries; `PermanentError` and `BpmnError` are not retried.

The seeds' rows: a retry makes no new token, the same token is rescheduled, and the
backoff is a timer (a durable row: it survives a reopen and a kill -9).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from bpmn_engine import (
    BpmnError,
    Engine,
    LoadError,
    PermanentError,
    UsageError,
    VirtualClock,
    Worker,
)
from bpmn_engine.model.retries import RetryPolicyError, camunda_cycle, zeebe_retries
from tests.postgresql_server import shared_db
from tests.runtime.conftest import Bpmn, MakeEngine, events_named, flow

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
TASK = (
    '<serviceTask id="charge" camunda:type="external" camunda:topic="charge"{attrs}>'
    "{ext}</serviceTask>"
)
BODY = '<startEvent id="s"/>{task}<endEvent id="e"/>' + flow("s", "charge") + flow("charge", "e")


def process(bpmn: Bpmn, attrs: str = "", ext: str = "") -> Path:
    extension = f"<extensionElements>{ext}</extensionElements>" if ext else ""
    return bpmn(BODY.format(task=TASK.format(attrs=attrs, ext=extension)))


class Flaky:
    """A handler that fails `failures` times, then pays; it records each attempt."""

    def __init__(self, failures: int, error: type[Exception] = RuntimeError) -> None:
        self.failures, self.error = failures, error
        self.attempts: list[int] = []

    def __call__(self, task: Any) -> dict[str, Any]:
        self.attempts.append(task.attempt)
        if len(self.attempts) <= self.failures:
            raise self.error("card service down")
        return {"paid": True}


def virtual(make_engine: MakeEngine, handler: Any, **options: Any) -> Engine:
    return make_engine(handlers={"charge": handler}, clock=VirtualClock(START), **options)


def test_a_transient_failure_is_tried_again_on_the_same_token(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    flaky = Flaky(2)
    instance = virtual(make_engine, flaky).start(process(bpmn))
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.variables == {"paid": True}
    assert flaky.attempts == [1, 2, 3]
    failed = events_named(instance, "job.failed")
    assert [(e.data["attempt"], e.data["tries"]) for e in failed] == [(1, 3), (2, 3)]
    assert {e.track for e in failed} == {1}  # no new token: the same one, rescheduled
    assert all("card service down" in e.data["error"] for e in failed)
    assert len(events_named(instance, "timer.fired")) == 2  # the backoff is a timer


def test_the_backoff_doubles_within_ten_percent(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    engine = virtual(make_engine, Flaky(4), retries=5, backoff=2.0)
    instance = engine.start(process(bpmn))
    assert instance.run().state == "completed"
    due = [datetime.fromisoformat(e.data["retry_at"]) for e in events_named(instance, "job.failed")]
    waits = [(b - a).total_seconds() for a, b in pairwise([START, *due])]
    for wait, base in zip(waits, (2, 4, 8, 16), strict=True):
        assert base * 0.9 <= wait <= base * 1.1
    assert len(set(waits)) == 4


def test_when_the_tries_run_out_it_is_an_incident(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    flaky = Flaky(10)
    outcome = virtual(make_engine, flaky).start(process(bpmn)).run()
    assert outcome.state == "failed"
    assert flaky.attempts == [1, 2, 3]
    assert outcome.incident == (
        "charge: handler raised RuntimeError: card service down (try 3 of 3: no tries left)"
    )


def test_an_operators_retry_gives_the_tries_again(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    # as Camunda's "set retries": the tries ran out; a retry counts them afresh
    flaky = Flaky(10)
    instance = virtual(make_engine, flaky).start(process(bpmn))
    assert instance.run().state == "failed"
    instance.retry()
    outcome = instance.run()
    assert outcome.state == "failed" and flaky.attempts == [1, 2, 3, 1, 2, 3]
    assert "(try 3 of 3: no tries left)" in (outcome.incident or "")
    assert [e.data["attempt"] for e in events_named(instance, "job.failed")] == [1, 2, 1, 2]


def test_a_permanent_error_is_an_incident_at_once(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    flaky = Flaky(10, PermanentError)
    outcome = virtual(make_engine, flaky).start(process(bpmn)).run()
    assert outcome.state == "failed" and flaky.attempts == [1]
    assert outcome.incident == "charge: handler raised PermanentError: card service down"


def test_a_bpmn_error_is_an_answer_not_a_failure(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    calls: list[int] = []

    def declined(task: Any) -> None:
        calls.append(task.attempt)
        raise BpmnError("DECLINED")

    body = BODY.format(task=TASK.format(attrs="", ext="")) + (
        '<boundaryEvent id="b" attachedToRef="charge"><errorEventDefinition/></boundaryEvent>'
        '<endEvent id="handled"/>' + flow("b", "handled")
    )
    outcome = virtual(make_engine, declined).start(bpmn(body)).run()
    assert outcome.state == "completed" and outcome.end_event == "handled"
    assert calls == [1]


def test_a_camunda_retry_cycle_sets_the_tries_and_the_wait(
    bpmn: Bpmn, make_engine: MakeEngine
) -> None:
    cycle = "<camunda:failedJobRetryTimeCycle>R2/PT5M</camunda:failedJobRetryTimeCycle>"
    flaky = Flaky(10)
    instance = virtual(make_engine, flaky).start(process(bpmn, ext=cycle))
    outcome = instance.run()
    assert flaky.attempts == [1, 2]
    assert "(try 2 of 2: no tries left)" in (outcome.incident or "")
    [failed] = events_named(instance, "job.failed")
    assert failed.data["retry_at"] == (START + timedelta(minutes=5)).isoformat()


def test_a_list_of_waits_is_one_more_try_than_waits(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    cycle = "<camunda:failedJobRetryTimeCycle>PT1M,PT10M</camunda:failedJobRetryTimeCycle>"
    flaky = Flaky(2)
    instance = virtual(make_engine, flaky).start(process(bpmn, ext=cycle))
    assert instance.run().state == "completed" and flaky.attempts == [1, 2, 3]
    due = [e.data["retry_at"] for e in events_named(instance, "job.failed")]
    assert due == [
        (START + timedelta(minutes=1)).isoformat(),
        (START + timedelta(minutes=11)).isoformat(),
    ]


def test_zeebe_retries_set_the_tries(bpmn: Bpmn, make_engine: MakeEngine) -> None:
    task = (
        '<serviceTask id="charge"><extensionElements>'
        '<zeebe:taskDefinition type="charge" retries="1"/></extensionElements></serviceTask>'
    )
    flaky = Flaky(10)
    outcome = virtual(make_engine, flaky).start(bpmn(BODY.format(task=task))).run()
    assert outcome.state == "failed" and flaky.attempts == [1]


@pytest.mark.parametrize(
    ("cycle", "reason"),
    [
        ("R/PT5M", "is not an ISO 8601 duration"),
        ("R3/P1M", "is not an ISO 8601 duration"),
        ("${cycle}", "a computed retry cycle is not supported"),
        ("R3/P400D", "longer than a year"),
    ],
)
def test_a_retry_cycle_that_cannot_be_read_is_refused_before_the_first_step(
    bpmn: Bpmn, make_engine: MakeEngine, cycle: str, reason: str
) -> None:
    ext = f"<camunda:failedJobRetryTimeCycle>{cycle}</camunda:failedJobRetryTimeCycle>"
    with pytest.raises(LoadError, match=reason) as refused:
        virtual(make_engine, Flaky(0)).start(process(bpmn, ext=ext))
    assert "failedJobRetryTimeCycle" in str(refused.value)


def test_the_engine_options_are_checked(make_engine: MakeEngine) -> None:
    with pytest.raises(UsageError, match="retries must be a whole number"):
        make_engine(retries=0)
    with pytest.raises(UsageError, match="the backoff must be"):
        make_engine(backoff=-1.0)


def test_policies_read_as_written() -> None:
    assert camunda_cycle("R5/PT1M").tries == 5
    assert camunda_cycle("R5/PT1M").delays == (60.0,)
    assert camunda_cycle(" PT1M, PT1H30M ").delays == (60.0, 5400.0)
    assert camunda_cycle("R1/P1DT2.5S").delays == (86402.5,)
    assert zeebe_retries("=4").tries == 4
    assert zeebe_retries("0").tries == 1
    for bad in ("", "R3", "PT", "P", "R3/PT5Q", "5"):
        with pytest.raises(RetryPolicyError):
            camunda_cycle(bad)
    with pytest.raises(RetryPolicyError):
        zeebe_retries("three")


def test_a_retry_waits_as_a_row_another_engine_takes_up(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
) -> None:
    """With the real clock, `run` leaves the instance waiting for its retry; an engine
    opened later on the database tries again once it is due."""
    db = shared_db(tmp_path / "retries.db")
    first = make_engine(db, handlers={"charge": Flaky(10)}, backoff=0.2)
    instance = first.start(process(bpmn))
    outcome = instance.run()
    assert outcome.state == "waiting"
    [wait] = outcome.waiting_for
    assert wait["reason"] == "retry" and wait["attempt"] == 2
    first.close()
    flaky = Flaky(0)
    later = make_engine(db, handlers={"charge": flaky})
    again = later.instance(instance.id)
    assert again.run(wait_retries=5).state == "completed"
    assert flaky.attempts == [2]  # the attempt count was kept with the token


def test_a_worker_tries_again_when_the_retry_is_due(
    bpmn: Bpmn, tmp_path: Path, make_engine: MakeEngine
) -> None:
    db = shared_db(tmp_path / "w.db")
    instance = make_engine(db, handlers={"charge": Flaky(10)}, backoff=0.05).start(process(bpmn))
    assert instance.run().state == "waiting"
    time.sleep(0.1)  # the retry is due
    flaky = Flaky(0)
    worker_engine = make_engine(db, handlers={"charge": flaky})
    Worker(worker_engine, once=True, poll=0).run()
    assert worker_engine.instance(instance.id).state.value == "completed"
    assert flaky.attempts == [2]


KILLED = """
import sys
from pathlib import Path
from bpmn_engine import Engine

db, diagram, log = sys.argv[1], sys.argv[2], Path(sys.argv[3])

def charge(task):
    with log.open("a") as out:
        out.write(f"{task.attempt}\\n")
    raise RuntimeError("down")

engine = Engine(db, handlers={"charge": charge}, backoff=30.0)
instance = engine.start(diagram)
print(instance.id, flush=True)
instance.run(wait_retries=60)  # sleeps through the backoff: killed there
"""


def test_kill_9_during_a_backoff_loses_nothing_and_does_nothing_twice(
    bpmn: Bpmn, tmp_path: Path
) -> None:
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("no SIGKILL here")
    program, db, log = tmp_path / "k.py", tmp_path / "k.db", tmp_path / "calls.log"
    program.write_text(KILLED)
    diagram = process(bpmn)
    child = subprocess.Popen(
        [sys.executable, str(program), str(db), str(diagram), str(log)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None
    instance_id = child.stdout.readline().strip()
    deadline = time.monotonic() + 60
    while not (log.exists() and log.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # the failed try's step is committed before the backoff's sleep
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert log.read_text().split() == ["1"]
    calls: list[int] = []

    def pays(task: Any) -> dict[str, Any]:
        calls.append(task.attempt)
        return {"paid": True}

    with Engine(db, handlers={"charge": pays}, clock=VirtualClock()) as engine:
        instance = engine.instance(instance_id)
        [wait] = instance.outcome().waiting_for
        assert wait["reason"] == "retry"
        assert instance.run().state == "completed"
    assert calls == [2]
    assert log.read_text().split() == ["1"]  # the killed process tried once, no more
