"""Date and time functions: calendar positions, `is`, and the clock (`now`, `today`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions.feel.functions.registry import builtin, need
from bpmn_engine.expressions.feel.values import equal, kind, time_offset

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


@builtin("now")
def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@builtin("today")
def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


@builtin("day of year", "date")
def day_of_year(date: Any) -> Decimal:
    return Decimal(need(date, dt.date, "date").timetuple().tm_yday)


@builtin("day of week", "date")
def day_of_week(date: Any) -> str:
    return _DAYS[need(date, dt.date, "date").weekday()]


@builtin("month of year", "date")
def month_of_year(date: Any) -> str:
    return _MONTHS[need(date, dt.date, "date").month - 1]


@builtin("week of year", "date")
def week_of_year(date: Any) -> Decimal:
    return Decimal(need(date, dt.date, "date").isocalendar()[1])


@builtin("is", "value1", "value2")
def same(value1: Any, value2: Any) -> bool:
    """The same element of FEEL's semantic domain: same kind and value, and for times and
    dates and times the same clock reading at the same offset (a zone id counts by its
    offset: `@"...T23:00:00@Australia/Melbourne"` is `@"...T23:00:00+11:00"` in April,
    and `@"...Z"` is `@"...+00:00"`), so the same instant at another offset is not."""
    if kind(value1) != kind(value2):
        return False
    if isinstance(value1, (dt.time, dt.datetime)):
        same_clock = value1.replace(tzinfo=None) == value2.replace(tzinfo=None)
        return same_clock and time_offset(value1) == time_offset(value2)
    return equal(value1, value2) is True
