"""Timers on a virtual clock: intermediate catch events and boundary events; never sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.runtime.events.timers import TimerValueError, parse_duration, schedule
from tests.postgresql_server import scratch_db

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
HEAD = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="t">
  <process id="p" isExecutable="true">
"""
TAIL = "</process></definitions>"


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "timers.bpmn"
    path.write_text(HEAD + body + TAIL)
    return path


def events(instance, name: str) -> list[str]:
    return [e.element for e in instance.history() if e.event == name]


WAIT_THREE_DAYS = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
  <intermediateCatchEvent id="wait">
    <timerEventDefinition><timeDuration>P3D</timeDuration></timerEventDefinition>
  </intermediateCatchEvent>
  <sequenceFlow id="f2" sourceRef="wait" targetRef="e"/>
  <endEvent id="e"/>
"""


def test_a_virtual_clock_jumps_to_the_timer_and_the_run_completes(tmp_path: Path) -> None:
    clock = VirtualClock(START)
    instance = Engine(scratch_db(), clock=clock).start(write(tmp_path, WAIT_THREE_DAYS))
    outcome = instance.run()
    assert outcome.state == "completed"
    assert clock.now() == START + timedelta(days=3)
    assert events(instance, "timer.fired") == ["wait"]


def test_with_the_real_clock_the_instance_waits_for_the_timer(tmp_path: Path) -> None:
    instance = Engine(scratch_db()).start(write(tmp_path, WAIT_THREE_DAYS))
    outcome = instance.run()
    assert outcome.state == "waiting"
    [wait] = outcome.waiting_for
    assert (wait["element"], wait["reason"]) == ("wait", "timer")
    due = datetime.fromisoformat(wait["due"])
    assert timedelta(days=2, hours=23) < due - datetime.now(UTC) <= timedelta(days=3)


def test_a_waiting_timer_survives_a_restart_and_fires_exactly_once(tmp_path: Path) -> None:
    db = tmp_path / "timers.db"
    first = Engine(db)
    instance = first.start(write(tmp_path, WAIT_THREE_DAYS))
    assert instance.run().state == "waiting"
    first.close()
    # a new process, three days later
    later = VirtualClock(datetime.now(UTC) + timedelta(days=3, seconds=1))
    second = Engine(db, clock=later)
    reopened = second.instance(instance.id)
    assert reopened.run().state == "completed"
    assert reopened.run().state == "completed"
    assert events(second.instance(instance.id), "timer.fired") == ["wait"]


SUBPROCESS_WITH_TIMEOUT = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
  <subProcess id="sub">
    <startEvent id="ss"/>
    <sequenceFlow id="sf1" sourceRef="ss" targetRef="split"/>
    <parallelGateway id="split"/>
    <sequenceFlow id="sf2" sourceRef="split" targetRef="a"/>
    <sequenceFlow id="sf3" sourceRef="split" targetRef="b"/>
    <userTask id="a"/><userTask id="b"/>
    <sequenceFlow id="sf4" sourceRef="a" targetRef="join"/>
    <sequenceFlow id="sf5" sourceRef="b" targetRef="join"/>
    <parallelGateway id="join"/>
    <sequenceFlow id="sf6" sourceRef="join" targetRef="se"/>
    <endEvent id="se"/>
  </subProcess>
  <boundaryEvent id="timeout" attachedToRef="sub">
    <timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition>
  </boundaryEvent>
  <sequenceFlow id="f2" sourceRef="sub" targetRef="done"/>
  <sequenceFlow id="f3" sourceRef="timeout" targetRef="late"/>
  <endEvent id="done"/><endEvent id="late"/>
"""


def test_a_boundary_timer_on_a_subprocess_cancels_all_its_tracks(tmp_path: Path) -> None:
    instance = Engine(scratch_db(), clock=VirtualClock(START)).start(
        write(tmp_path, SUBPROCESS_WITH_TIMEOUT)
    )
    # both user tasks wait for a person: nothing else can happen, so the clock jumps an hour
    outcome = instance.run()
    assert outcome.state == "completed" and outcome.end_event == "late"
    assert set(events(instance, "element.terminated")) == {"a", "b", "sub"}
    assert instance.user_tasks() == []


def test_completing_the_activity_cancels_its_boundary_timer(tmp_path: Path) -> None:
    instance = Engine(scratch_db()).start(write(tmp_path, SUBPROCESS_WITH_TIMEOUT))
    assert instance.run().state == "waiting"  # real clock: the hour has not passed
    instance.complete_task("a")
    instance.complete_task("b")
    outcome = instance.run()
    assert outcome.end_event == "done"
    assert events(instance, "timer.fired") == []
    assert [t.status for t in instance.data.timers.values()] == ["cancelled"]


def test_a_non_interrupting_cycle_fires_repeatedly_and_leaves_the_task_running(
    tmp_path: Path,
) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
      <userTask id="work"/>
      <boundaryEvent id="remind" attachedToRef="work" cancelActivity="false">
        <timerEventDefinition><timeCycle>R3/PT10M</timeCycle></timerEventDefinition>
      </boundaryEvent>
      <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
      <sequenceFlow id="f3" sourceRef="remind" targetRef="reminded"/>
      <endEvent id="e"/><endEvent id="reminded"/>
    """
    clock = VirtualClock(START)
    instance = Engine(scratch_db(), clock=clock).start(write(tmp_path, body))
    assert instance.run().state == "waiting"  # the reminders fired; the task still waits
    assert events(instance, "timer.fired") == ["remind"] * 3
    assert events(instance, "element.completed").count("reminded") == 3
    assert clock.now() == START + timedelta(minutes=30)
    assert [t.element for t in instance.user_tasks()] == ["work"]
    instance.complete_task("work")
    assert instance.run().end_event == "e"


@pytest.mark.parametrize(
    ("kind", "text", "due"),
    [
        ("timeDuration", "PT5M", START + timedelta(minutes=5)),
        ("timeDuration", "P1DT2H", START + timedelta(days=1, hours=2)),
        ("timeDate", "2026-02-01T00:00:00Z", datetime(2026, 2, 1, tzinfo=UTC)),
        ("timeCycle", "R/2026-03-01T00:00:00Z/PT1H", datetime(2026, 3, 1, tzinfo=UTC)),
    ],
)
def test_iso_8601_timer_values(kind: str, text: str, due: datetime) -> None:
    assert schedule(kind, text, START).due == due


@pytest.mark.parametrize("text", ["5 minutes", "P", "PT", "1h"])
def test_values_that_are_not_iso_8601_durations_are_refused(text: str) -> None:
    with pytest.raises(TimerValueError):
        parse_duration(text)


def test_a_bad_timer_value_is_an_incident_naming_the_event(tmp_path: Path) -> None:
    body = WAIT_THREE_DAYS.replace("P3D", "P3 days")
    outcome = Engine(scratch_db()).start(write(tmp_path, body)).run()
    assert outcome.state == "failed"
    assert outcome.incident.startswith("wait:") and "ISO 8601" in outcome.incident


def test_a_timer_value_neither_literal_nor_expression_is_refused_at_start(tmp_path: Path) -> None:
    body = WAIT_THREE_DAYS.replace("P3D", "three days")
    with pytest.raises(LoadError, match="is not an ISO 8601 duration, nor an expression") as error:
        Engine(scratch_db()).start(write(tmp_path, body))
    assert error.value.element_id == "wait"


def test_a_timer_value_can_be_an_expression(tmp_path: Path) -> None:
    body = WAIT_THREE_DAYS.replace("P3D", "${delay}")
    clock = VirtualClock(START)
    engine = Engine(scratch_db(), clock=clock)
    outcome = engine.start(write(tmp_path, body), variables={"delay": "PT90M"}).run()
    assert outcome.state == "completed"
    assert clock.now() == START + timedelta(minutes=90)


@pytest.mark.parametrize(
    ("expression", "due"),
    [
        ("0 9 * * MON-FRI", datetime(2026, 1, 2, 9, 0, tzinfo=UTC)),  # 1 Jan 2026 is a Thursday
        ("0 0 9 ? * MON-FRI", datetime(2026, 1, 2, 9, 0, tzinfo=UTC)),  # Quartz, as Camunda 7
        ("*/15 * * * *", datetime(2026, 1, 1, 9, 15, tzinfo=UTC)),
        ("0 0 12 1 * ?", datetime(2026, 1, 1, 12, 0, tzinfo=UTC)),
        ("0 0 8 1 * ?", datetime(2026, 2, 1, 8, 0, tzinfo=UTC)),
        ("0 30 8 * * 2", datetime(2026, 1, 6, 8, 30, tzinfo=UTC)),  # Spring: 2 is Tuesday
    ],
)
def test_cron_cycles_as_camunda_writes_them(expression: str, due: datetime) -> None:
    assert schedule("timeCycle", expression, START).due == due


def test_a_cron_boundary_cycle_fires_at_each_time_it_names(tmp_path: Path) -> None:
    body = """
      <startEvent id="s"/>
      <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
      <userTask id="work"/>
      <boundaryEvent id="daily" attachedToRef="work" cancelActivity="false">
        <timerEventDefinition><timeCycle>0 12 * * *</timeCycle></timerEventDefinition>
      </boundaryEvent>
      <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
      <sequenceFlow id="f3" sourceRef="daily" targetRef="ping"/>
      <endEvent id="e"/><endEvent id="ping"/>
    """
    clock = VirtualClock(START)
    instance = Engine(scratch_db(), clock=clock).start(write(tmp_path, body))
    # an endless cycle: the virtual clock does not jump for it, or the run would never end
    assert instance.run().state == "waiting"
    assert events(instance, "timer.fired") == []
    clock.advance_to(datetime(2026, 1, 3, 12, 0, tzinfo=UTC))
    instance.run()
    assert events(instance, "timer.fired") == ["daily"] * 3  # 1, 2 and 3 January at noon


def test_a_duration_past_the_year_9999_is_a_timer_value_error() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    for kind, text in (("timeDuration", "P99999999D"), ("timeCycle", "R3/P99999999D")):
        with pytest.raises(TimerValueError, match="after the year 9999"):
            schedule(kind, text, now)
    with pytest.raises(TimerValueError, match="longer than a timer can wait"):
        schedule("timeDuration", "P9999999999999D", now)
