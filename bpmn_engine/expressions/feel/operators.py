"""FEEL operators on values: arithmetic across numbers, strings, temporals and durations.

Each raises FeelError when the spec says the result is null (the evaluator turns it into null
plus a warning); sizes stay bounded (strings by the sandbox's MAX_SIZE, numbers by decimal128).
"""

from __future__ import annotations

import calendar
import datetime as dt
from decimal import ROUND_DOWN, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.values import D128, FeelError, YearsMonths, kind, years_months

_TEMPORAL = (dt.date, dt.time)


def checked_text(value: str) -> str:
    """A string FEEL built: refused over the sandbox's size cap, and charged by its length."""
    if len(value) > guards.MAX_SIZE:
        raise guards.too_big(f"a string of {len(value):,} characters (limit {guards.MAX_SIZE:,})")
    if guards.CURRENT.get(None) is not None:
        guards.charge(1 + len(value) // guards.ITEMS_PER_STEP)  # as the sandbox's `+`
    return value


def add_months(value: dt.date, months: int) -> dt.date:
    """A date (or date and time) moved by whole months, the day clamped to the month's end."""
    total = value.year * 12 + value.month - 1 + months
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise FeelError("the date is out of range")
    day = min(value.day, calendar.monthrange(year, month + 1)[1])
    return value.replace(year=year, month=month + 1, day=day)


def _time_plus(value: dt.time, delta: dt.timedelta) -> dt.time:
    anchor = dt.datetime.combine(dt.date(2000, 1, 1), value.replace(tzinfo=None)) + delta
    return anchor.time().replace(tzinfo=value.tzinfo)


def add(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return D128.add(a, b)
    if isinstance(a, str) and isinstance(b, str):
        return checked_text(a + b)
    if isinstance(a, (dt.timedelta, YearsMonths)) and not isinstance(
        b, (dt.timedelta, YearsMonths)
    ):
        a, b = b, a
    try:
        if isinstance(b, YearsMonths):
            if isinstance(a, YearsMonths):
                return years_months(a.months + b.months)
            if isinstance(a, dt.date):
                return add_months(a, b.months)
        if isinstance(b, dt.timedelta):
            if isinstance(a, dt.timedelta):
                return a + b
            if isinstance(a, dt.datetime):
                if isinstance(a.tzinfo, ZoneInfo):  # on the timeline, as java.time does
                    return (a.astimezone(dt.UTC) + b).astimezone(a.tzinfo)
                return a + b
            if isinstance(a, dt.date):
                return a + dt.timedelta(days=b.days)
            if isinstance(a, dt.time):
                return _time_plus(a, b)
    except OverflowError:
        raise FeelError("the date is out of range") from None
    raise FeelError(f"cannot add a {kind(b)} to a {kind(a)}")


def negate(a: Any) -> Any:
    if a is None:
        return None
    if isinstance(a, Decimal):
        return D128.minus(a)
    if isinstance(a, dt.timedelta):
        return -a
    if isinstance(a, YearsMonths):
        return YearsMonths(-a.months)
    raise FeelError(f"cannot negate a {kind(a)}")


def subtract(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return D128.subtract(a, b)
    if isinstance(b, (dt.timedelta, YearsMonths)) and not isinstance(a, str):
        return add(a, negate(b))
    if isinstance(a, dt.datetime) and isinstance(b, dt.datetime):
        if (a.tzinfo is None) != (b.tzinfo is None):
            raise FeelError("cannot subtract a date and time with a zone from one without")
        if a.tzinfo is not None:  # the real time between, across a daylight saving change
            return a.astimezone(dt.UTC) - b.astimezone(dt.UTC)
        return a - b
    if type(a) is dt.date and type(b) is dt.date:
        return a - b
    if isinstance(a, dt.datetime) and type(b) is dt.date:  # a date is midnight UTC (DMN 1.5)
        return subtract(a, dt.datetime.combine(b, dt.time(), tzinfo=dt.UTC))
    if type(a) is dt.date and isinstance(b, dt.datetime):
        return subtract(dt.datetime.combine(a, dt.time(), tzinfo=dt.UTC), b)
    if isinstance(a, dt.time) and isinstance(b, dt.time):
        day = dt.date(2000, 1, 1)
        return dt.datetime.combine(day, a) - dt.datetime.combine(day, b)
    raise FeelError(f"cannot subtract a {kind(b)} from a {kind(a)}")


def multiply(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return D128.multiply(a, b)
    if isinstance(a, Decimal):
        a, b = b, a
    if isinstance(b, Decimal):
        if isinstance(a, dt.timedelta):
            return _seconds(D128.multiply(Decimal(str(a.total_seconds())), b))
        if isinstance(a, YearsMonths):
            return years_months(_whole_months(D128.multiply(Decimal(a.months), b)))
    raise FeelError(f"cannot multiply a {kind(a)} by a {kind(b)}")


def _whole_months(months: Decimal) -> int:
    """Months left over are dropped, toward zero: -2.5 * P1Y11M is -P4Y9M (the TCK)."""
    return int(months.to_integral_value(rounding=ROUND_DOWN))


def _seconds(value: Decimal) -> dt.timedelta:
    try:
        return dt.timedelta(seconds=float(value))
    except OverflowError:
        raise FeelError("the duration is out of range") from None


def divide(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(b, Decimal) and b == 0:
        raise FeelError("division by zero")
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return D128.divide(a, b)
    if isinstance(b, Decimal):
        if isinstance(a, dt.timedelta):
            return _seconds(D128.divide(Decimal(str(a.total_seconds())), b))
        if isinstance(a, YearsMonths):
            return years_months(_whole_months(D128.divide(Decimal(a.months), b)))
    if isinstance(a, dt.timedelta) and isinstance(b, dt.timedelta) and b:
        return D128.divide(Decimal(str(a.total_seconds())), Decimal(str(b.total_seconds())))
    if isinstance(a, YearsMonths) and isinstance(b, YearsMonths) and b.months:
        return D128.divide(Decimal(a.months), Decimal(b.months))
    raise FeelError(f"cannot divide a {kind(a)} by a {kind(b)}")


def power(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return D128.power(a, b)
    raise FeelError(f"cannot raise a {kind(a)} to a {kind(b)}")
