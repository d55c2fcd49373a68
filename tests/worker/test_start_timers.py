"""Deploying processes with timer start events, and the worker firing them on a virtual clock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bpmn_engine import LoadError, UsageError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.runtime.events.start_timers import next_firing
from bpmn_engine.runtime.worker.worker import Worker
from tests.worker.conftest import START, bpmn_file, completions, events, flow, timer_start

WAIT_THEN_END = f'{flow("s", "wait")}<intermediateCatchEvent id="wait"><timerEventDefinition>' + (
    f"<timeDuration>PT10M</timeDuration></timerEventDefinition></intermediateCatchEvent>"
    f'{flow("wait", "e")}<endEvent id="e"/>'
)


def started(engine) -> list[dict]:
    return sorted(engine.instances(), key=lambda row: row["created_at"])


def test_deploy_records_the_process_and_its_timer_start(tmp_path: Path, engines, clock) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)

    [deployment] = engine.deploy_processes(path)

    assert deployment.changed and deployment.previous is None
    [row] = engine.store.deployments()
    assert (row["process"], row["definition"], row["active"]) == ("p", deployment.version, 1)
    [timer] = engine.store.start_timers(deployment.id)
    assert (timer["element"], timer["repeat"], timer["status"]) == ("s", 0, "waiting")
    assert timer["due"].startswith((START + timedelta(hours=1)).isoformat()[:19])
    assert engine.instances() == []  # nothing starts before a worker finds the timer due


def test_deploying_the_same_version_again_changes_nothing(tmp_path: Path, engines, clock) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    [first] = engine.deploy_processes(path)
    clock.advance_to(START + timedelta(minutes=30))

    [again] = engine.deploy_processes(path)

    assert not again.changed and again.id == first.id
    assert [t.due for t in again.timers] == [START + timedelta(hours=1)]  # not re-armed


def test_a_new_version_replaces_the_active_deployment_and_its_timers(
    tmp_path: Path, engines, clock
) -> None:
    path = tmp_path / "p.bpmn"
    bpmn_file(path, timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    [old] = engine.deploy_processes(path)
    bpmn_file(path, timer_start("s", "timeDuration", "PT2H") + WAIT_THEN_END)

    [new] = engine.deploy_processes(path)

    assert new.changed and new.previous == old.id
    assert [d["id"] for d in engine.store.deployments()] == [new.id]
    assert [t["status"] for t in engine.store.start_timers(old.id)] == ["cancelled"]
    report = Worker(engine, once=True).run()
    assert report.started == 1
    [instance] = engine.instances()
    assert engine.instance(instance["id"]).history()[0].data["definition"] == new.version


def test_a_time_duration_start_fires_once_and_the_instance_runs_to_the_end(
    tmp_path: Path, engines, clock
) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    engine.deploy_processes(path)

    report = Worker(engine, once=True).run()

    assert report.started == 1
    [row] = engine.instances()
    assert row["state"] == "completed"
    assert completions(engine, row["id"]) == {"s": 1, "wait": 1, "e": 1}
    [fired] = events(engine, [row["id"]], "timer.fired")[:1]
    assert (fired.element, fired.data["due"]) == ("s", (START + timedelta(hours=1)).isoformat())
    assert clock.now() == START + timedelta(hours=1, minutes=10)
    assert Worker(engine, once=True).run().started == 0  # once means once


def test_a_cycle_r3_fires_exactly_three_times_an_hour_apart(tmp_path: Path, engines, clock) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeCycle", "R3/PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    [deployment] = engine.deploy_processes(path)

    report = Worker(engine, once=True).run()

    rows = started(engine)
    assert report.started == 3 and len(rows) == 3
    assert all(r["state"] == "completed" for r in rows)
    dues = [e.data["due"] for e in events(engine, [r["id"] for r in rows], "timer.fired")]
    assert [d for d in dues if d.endswith(":00:00+00:00")] == [
        (START + timedelta(hours=h)).isoformat() for h in (1, 2, 3)
    ]
    assert [t["status"] for t in engine.store.start_timers(deployment.id)] == ["done"]
    assert Worker(engine, once=True).run().started == 0


def test_an_endless_cycle_fires_within_the_horizon_only(tmp_path: Path, engines, clock) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeCycle", "R/PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    engine.deploy_processes(path)

    assert Worker(engine, once=True).run().started == 0  # no horizon: never jumped to
    report = Worker(engine, once=True, horizon=timedelta(hours=5, minutes=30)).run()

    assert report.started == 5
    assert all(r["state"] == "completed" for r in engine.instances())


def test_a_cron_start_fires_at_each_time_it_names_within_the_horizon(
    tmp_path: Path, engines, clock
) -> None:
    path = bpmn_file(
        tmp_path / "p.bpmn", timer_start("s", "timeCycle", "0 0 12 * * ?") + WAIT_THEN_END
    )  # Quartz, as Camunda 7 writes it: every day at noon
    engine = engines(tmp_path / "db", clock=clock)
    engine.deploy_processes(path)

    report = Worker(engine, once=True, horizon=timedelta(days=2, hours=4)).run()

    assert report.started == 3  # 1, 2 and 3 January at noon; START is 1 January 09:00
    dues = sorted(
        e.data["due"]
        for e in events(engine, [r["id"] for r in started(engine)], "timer.fired")
        if e.element == "s"
    )
    assert dues == [f"2026-01-0{d}T12:00:00+00:00" for d in (1, 2, 3)]


def test_a_time_date_in_the_past_fires_at_once(tmp_path: Path, engines, clock) -> None:
    date = (START - timedelta(days=1)).isoformat()
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDate", date) + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=clock)
    engine.deploy_processes(path)

    assert Worker(engine, once=True).run().started == 1


def test_a_firing_another_worker_already_started_only_moves_the_timer(
    tmp_path: Path, engines, clock
) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeCycle", "R2/PT1H") + WAIT_THEN_END)
    first = engines(tmp_path / "db", clock=clock)
    first.deploy_processes(path)
    clock.advance_to(START + timedelta(hours=1))
    # two workers find the same due timer; the first creates the instance
    second = engines(tmp_path / "db", clock=clock)
    assert Worker(first).fire_start_timers() == 1
    [timer] = first.store.start_timers(1)
    first.store.conn.execute(  # put the timer back as the second worker read it
        "UPDATE start_timers SET due = ?, repeat = 1 WHERE id = ?",
        ((START + timedelta(hours=1)).isoformat(timespec="microseconds"), timer["id"]),
    )

    assert Worker(second).fire_start_timers() == 0

    assert len(first.instances()) == 1
    [timer] = first.store.start_timers(1)
    assert (timer["repeat"], timer["status"]) == (0, "waiting")


def test_missed_firings_are_skipped_and_counted() -> None:
    hour = 3600.0
    assert next_firing(START, 2, hour, START) == (START + timedelta(hours=1), 1)
    assert next_firing(START, -1, hour, START + timedelta(hours=5, minutes=1)) == (
        START + timedelta(hours=6),
        -1,
    )
    assert next_firing(START, 3, hour, START + timedelta(hours=5)) is None
    assert next_firing(START, 0, hour, START) is None


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        ("timeDuration", "one hour", "ISO 8601 duration"),
        ("timeCycle", "0 0 * * * * * *", "cron expression"),
    ],
)
def test_a_bad_start_timer_is_refused_at_deploy(
    tmp_path: Path, engines, kind: str, value: str, message: str
) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", kind, value) + WAIT_THEN_END)
    engine = engines(tmp_path / "db")
    with pytest.raises(LoadError, match=message):
        engine.deploy_processes(path)
    assert engine.store.deployments() == []


def test_a_file_without_an_executable_process_is_refused(tmp_path: Path, engines) -> None:
    path = tmp_path / "p.bpmn"
    bpmn_file(path, '<startEvent id="s"/>')
    path.write_text(path.read_text().replace('isExecutable="true"', 'isExecutable="false"'))
    with pytest.raises(UsageError, match="no executable process"):
        engines(tmp_path / "db").deploy_processes(path)


def test_start_at_an_unknown_start_event_is_a_usage_error(tmp_path: Path, engines) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    with pytest.raises(UsageError, match=r"no start event 'nope'.*its start events: s"):
        engines(tmp_path / "db").start_at(path, "p", "nope", {})


def test_start_at_puts_the_token_after_the_start_event(tmp_path: Path, engines) -> None:
    path = bpmn_file(tmp_path / "p.bpmn", timer_start("s", "timeDuration", "PT1H") + WAIT_THEN_END)
    engine = engines(tmp_path / "db", clock=VirtualClock(START))

    instance = engine.start_at(path, "p", "s", {"n": 1})

    assert [(t["element"], t["via"]) for t in instance.tokens()] == [("wait", "s_wait")]
    assert [e.event for e in instance.history()] == [
        "instance.started",
        "element.activated",
        "element.completed",
        "flow.taken",
    ]
    assert instance.run().state == "completed"
    assert instance.variables == {"n": 1}
