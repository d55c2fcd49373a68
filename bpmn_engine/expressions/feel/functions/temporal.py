"""Date and time functions: calendar positions, `is`, and the clock (`now`, `today`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions.feel.functions.registry import builtin, need
from bpmn_engine.expressions.feel.values import equal, kind

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
    """Identical: same kind and same value, and for temporals the same offset or zone."""
    if kind(value1) != kind(value2):
        return False
    if isinstance(value1, (dt.time, dt.datetime)) and value1.tzinfo != value2.tzinfo:
        return False
    return equal(value1, value2) is True
