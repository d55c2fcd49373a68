"""Cron dialects (Unix, Spring, Quartz) and ISO 8601 calendar arithmetic in timer values."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bpmn_engine import Engine, LoadError
from bpmn_engine.runtime.clock import VirtualClock
from bpmn_engine.runtime.events.start_timers import next_firing
from bpmn_engine.runtime.events.timers import (
    TimerRangeError,
    TimerValueError,
    cron_next,
    next_time,
    parse_duration,
    schedule,
)
from tests.postgresql_server import scratch_db
from tests.runtime.events.test_timers import events, write

START = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)  # a Thursday


def times(expression: str, count: int, after: datetime = START) -> list[datetime]:
    found = []
    for _ in range(count):
        after = cron_next(expression, after)
        found.append(after)
    return found


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_a_step_of_one_from_zero_means_every_minute_not_once_an_hour() -> None:
    assert times("0 0/1 * * * ?", 3) == [at(2026, 1, 1, 9, m) for m in (1, 2, 3)]
    assert times("0 1/1 * * * ?", 2) == [at(2026, 1, 1, 9, m) for m in (1, 2)]
    assert all(t.second == 0 for t in times("0 0/1 * * * ?", 5))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # Quartz weekdays by name, as Camunda 7 writes them
        ("0 0 12 ? * MON-FRI", [at(2026, 1, 1, 12), at(2026, 1, 2, 12), at(2026, 1, 5, 12)]),
        # the last day of the month
        ("0 0 12 L * ?", [at(2026, 1, 31, 12), at(2026, 2, 28, 12), at(2026, 3, 31, 12)]),
        # the third Friday: Quartz counts 1 = Sunday, so 6 is Friday
        ("0 0 12 ? * 6#3", [at(2026, 1, 16, 12), at(2026, 2, 20, 12), at(2026, 3, 20, 12)]),
        # the weekday nearest the 15th (15 February 2026 is a Sunday: Monday the 16th)
        ("0 0 12 15W * ?", [at(2026, 1, 15, 12), at(2026, 2, 16, 12), at(2026, 3, 16, 12)]),
        # the last Friday of the month
        ("0 0 12 ? * 6L", [at(2026, 1, 30, 12), at(2026, 2, 27, 12), at(2026, 3, 27, 12)]),
        # the last weekday of the month (31 January 2026 is a Saturday)
        ("0 0 12 LW * ?", [at(2026, 1, 30, 12), at(2026, 2, 27, 12), at(2026, 3, 31, 12)]),
        # two days before the last day
        ("0 0 12 L-2 * ?", [at(2026, 1, 29, 12), at(2026, 2, 26, 12), at(2026, 3, 29, 12)]),
        # Quartz numbers: 2-6 is Monday to Friday
        ("0 0 12 ? * 2-6", [at(2026, 1, 1, 12), at(2026, 1, 2, 12), at(2026, 1, 5, 12)]),
        # 7 fields: the year
        ("0 0 12 1 * ? 2027", [at(2027, 1, 1, 12), at(2027, 2, 1, 12), at(2027, 3, 1, 12)]),
        # Spring (6 fields, no `?`): 0 or 7 is Sunday, 1 Monday
        ("0 0 12 * * 1", [at(2026, 1, 5, 12), at(2026, 1, 12, 12), at(2026, 1, 19, 12)]),
        # Unix (5 fields)
        ("30 8 * * SUN", [at(2026, 1, 4, 8, 30), at(2026, 1, 11, 8, 30), at(2026, 1, 18, 8, 30)]),
    ],
)
def test_cron_dialects(expression: str, expected: list[datetime]) -> None:
    assert times(expression, 3) == expected
    assert schedule("timeCycle", expression, START).due == expected[0]


@pytest.mark.parametrize(
    "expression",
    [
        "0 0 12 ? * 8",  # Quartz weekdays are 1-7
        "0 61 * * * ?",
        "0 0 12 ? * MON#9",
        "0 0 0 31 2 ?",  # 31 February never comes
        "0 0 12 * * ? 2020",  # that year is past
    ],
)
def test_cron_expressions_that_cannot_be_scheduled(expression: str) -> None:
    with pytest.raises(TimerRangeError):
        schedule("timeCycle", expression, START)


def test_a_value_in_no_known_form_is_not_a_schedule_error() -> None:
    """It stays an incident when armed (see test_timers), not a refusal at load."""
    with pytest.raises(TimerValueError) as caught:
        schedule("timeDuration", "three days", START)
    assert not isinstance(caught.value, TimerRangeError)


def test_calendar_months_and_years() -> None:
    assert schedule("timeDuration", "P1M", at(2026, 1, 31)).due == at(2026, 2, 28)
    assert schedule("timeDuration", "P1Y", at(2024, 2, 29)).due == at(2025, 2, 28)
    assert schedule("timeDuration", "P1Y", START).due == at(2027, 1, 1, 9)
    assert parse_duration("P1M", at(2026, 2, 1)) == timedelta(days=28)
    assert parse_duration("P1M", at(2026, 3, 1)) == timedelta(days=31)


def test_a_cycle_anchored_at_its_start_counts_months_from_there() -> None:
    text = "R3/2026-01-31T00:00:00Z/P1M"
    plan = schedule("timeCycle", text, START)
    assert (plan.due, plan.repeat, plan.interval) == (at(2026, 1, 31), 2, None)
    assert next_time(text, at(2026, 1, 31)) == at(2026, 2, 28)
    assert next_time(text, at(2026, 2, 28)) == at(2026, 3, 31)  # not 28 March


def test_a_cycle_anchored_at_its_end_counts_back_from_it() -> None:
    text = "R3/P1M/2026-03-31T00:00:00Z"
    plan = schedule("timeCycle", text, START)
    assert (plan.due, plan.repeat) == (at(2026, 1, 31), 2)
    assert next_time(text, at(2026, 1, 31)) == at(2026, 2, 28)
    assert next_time(text, at(2026, 2, 28)) == at(2026, 3, 31)
    assert next_time(text, at(2026, 3, 31)) is None  # the end is the last time
    forever = schedule("timeCycle", "R/PT1H/2026-01-01T12:00:00Z", START)
    assert (forever.due, forever.repeat) == (at(2026, 1, 1, 10), 2)  # 10:00, 11:00, 12:00


def test_a_start_timer_cycle_of_months_skips_missed_firings_on_the_calendar() -> None:
    text = "R/2026-01-31T00:00:00Z/P1M"
    following = next_firing(at(2026, 1, 31), -1, None, at(2026, 4, 2), text)
    assert following == (at(2026, 4, 30), -1)
    assert next_firing(at(2026, 1, 31), 1, None, at(2026, 2, 1), text) == (at(2026, 2, 28), 0)
    assert next_firing(at(2026, 1, 31), 0, None, at(2026, 2, 1), text) is None


MONTHLY = """
  <startEvent id="s"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <userTask id="work"/>
  <boundaryEvent id="bill" attachedToRef="work" cancelActivity="false">
    <timerEventDefinition><timeCycle>CYCLE</timeCycle></timerEventDefinition>
  </boundaryEvent>
  <sequenceFlow id="f2" sourceRef="work" targetRef="e"/>
  <sequenceFlow id="f3" sourceRef="bill" targetRef="billed"/>
  <endEvent id="e"/><endEvent id="billed"/>
"""


def fired(instance) -> list[str]:
    return [e.data["due"] for e in instance.history() if e.event == "timer.fired"]


def test_a_monthly_boundary_cycle_fires_on_calendar_months(tmp_path: Path) -> None:
    body = MONTHLY.replace("CYCLE", "R3/2026-01-31T00:00:00Z/P1M")
    instance = Engine(scratch_db(), clock=VirtualClock(START)).start(write(tmp_path, body))
    assert instance.run().state == "waiting"
    assert fired(instance) == [
        "2026-01-31T00:00:00+00:00",
        "2026-02-28T00:00:00+00:00",
        "2026-03-31T00:00:00+00:00",
    ]
    assert events(instance, "element.completed").count("billed") == 3


def test_a_cycle_stops_at_the_year_9999_instead_of_overflowing(tmp_path: Path) -> None:
    body = MONTHLY.replace("CYCLE", "R5/9999-12-31T21:00:00Z/PT1H")
    clock = VirtualClock(at(9999, 12, 31, 20))
    instance = Engine(scratch_db(), clock=clock).start(write(tmp_path, body))
    assert instance.run().state == "waiting"
    assert [d[11:13] for d in fired(instance)] == ["21", "22", "23"]


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("timeDuration", "P99999999D"),
        ("timeDuration", "P9999Y"),
        ("timeCycle", "R3/P99999999D"),
        ("timeCycle", "0 0 0 30 2 ?"),
        ("timeCycle", "0 0 12 ? * 9#2"),
        ("timeDuration", "P1.5M"),
    ],
)
def test_a_timer_the_engine_cannot_schedule_is_refused_at_load(
    tmp_path: Path, kind: str, value: str
) -> None:
    body = MONTHLY.replace("<timeCycle>CYCLE</timeCycle>", f"<{kind}>{value}</{kind}>")
    with pytest.raises(LoadError) as caught:
        Engine(scratch_db(), clock=VirtualClock(START)).start(write(tmp_path, body))
    error = caught.value
    assert (error.element_id, error.file) == ("bill", str(tmp_path / "timers.bpmn"))
    assert error.line is not None


def test_an_expression_past_the_calendar_is_an_incident_not_a_crash(tmp_path: Path) -> None:
    body = MONTHLY.replace("<timeCycle>CYCLE</timeCycle>", "<timeDuration>${d}</timeDuration>")
    engine = Engine(scratch_db(), clock=VirtualClock(START))
    outcome = engine.start(write(tmp_path, body), variables={"d": "P99999999D"}).run()
    assert outcome.state == "failed"
    assert outcome.incident.startswith("bill:") and "9999" in outcome.incident


def test_a_fraction_without_its_leading_zero_is_read_as_spiffworkflow_reads_it() -> None:
    assert parse_duration("PT.1S") == timedelta(milliseconds=100)
    assert parse_duration("PT1M.5S") == timedelta(minutes=1, milliseconds=500)
    assert parse_duration("PT0,25S") == timedelta(milliseconds=250)
