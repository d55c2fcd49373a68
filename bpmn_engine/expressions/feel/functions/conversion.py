"""Conversion functions: to and from text, numbers, temporals and durations."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from bpmn_engine.expressions.feel.functions.registry import builtin, need, whole
from bpmn_engine.expressions.feel.operators import checked_text
from bpmn_engine.expressions.feel.values import (
    FeelError,
    YearsMonths,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
    text,
)

_NUMBER = re.compile(r"-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d{1,4})?")


@builtin("string", "from")
def string(value: Any) -> str | None:
    return None if value is None else checked_text(text(value))


@builtin("number", "from", "grouping separator", "decimal separator")
def number(source: Any, grouping: Any = None, decimal: Any = None) -> Decimal:
    if isinstance(source, Decimal) and grouping is None and decimal is None:
        return source  # a number already, as the DMN TCK reads `number(11.11)`
    value = need(source, str, "from")
    if grouping is not None:
        if grouping not in (" ", ",", "."):
            raise FeelError("the grouping separator must be ' ', ',' or '.'")
        value = value.replace(grouping, "")
    if decimal is not None:
        if decimal not in (",", ".") or decimal == grouping:
            raise FeelError("the decimal separator must be ',' or '.', unlike the grouping one")
        value = value.replace(decimal, ".")
    if not _NUMBER.fullmatch(value):
        raise FeelError(f"{source!r} is not a number")
    try:
        return Decimal(value)
    except InvalidOperation:
        raise FeelError(f"{source!r} is not a number") from None


@builtin("date", "from", "month", "day")
def date(source: Any, month: Any = None, day: Any = None) -> dt.date:
    if month is not None or day is not None:
        try:
            return dt.date(whole(source, "year"), whole(month, "month"), whole(day, "day"))
        except ValueError as error:
            raise FeelError(f"not a date: {error}") from None
    if isinstance(source, dt.datetime):
        return source.date()
    if isinstance(source, dt.date):
        return source
    return parse_date(need(source, str, "from"))


@builtin("time", "from", "minute", "second", "offset")
def time(source: Any, minute: Any = None, second: Any = None, offset: Any = None) -> dt.time:
    if minute is not None:
        seconds = need(second, Decimal, "second")
        whole_seconds = int(seconds)
        micro = int((seconds - whole_seconds) * 1_000_000)
        zone = None
        if offset is not None:
            zone = dt.timezone(need(offset, dt.timedelta, "offset"))
        try:
            return dt.time(
                whole(source, "hour"), whole(minute, "minute"), whole_seconds, micro, zone
            )
        except ValueError as error:
            raise FeelError(f"not a time: {error}") from None
    if isinstance(source, dt.datetime):
        return source.timetz()
    if type(source) is dt.date:
        return dt.time(tzinfo=dt.UTC)
    if isinstance(source, dt.time):
        return source
    return parse_time(need(source, str, "from"))


_OMITTED: Any = object()


@builtin("date and time", "from", "time")
def date_and_time(source: Any, clock: Any = _OMITTED) -> dt.datetime:
    if clock is None:  # given, and null: the result is null too
        raise FeelError("time is null")
    if clock is not _OMITTED:
        day = need(source, dt.date, "date")
        moment = need(clock, dt.time, "time")
        day = day.date() if isinstance(day, dt.datetime) else day
        return dt.datetime.combine(day, moment.replace(tzinfo=None), tzinfo=moment.tzinfo)
    if isinstance(source, dt.datetime):
        return source
    if isinstance(source, dt.date):
        return dt.datetime.combine(source, dt.time())
    return parse_date_time(need(source, str, "from"))


@builtin("duration", "from")
def duration(source: Any) -> dt.timedelta | YearsMonths:
    return parse_duration(need(source, str, "from"))


@builtin("years and months duration", "from", "to")
def years_and_months_duration(start: Any, end: Any) -> YearsMonths:
    a, b = need(start, dt.date, "from"), need(end, dt.date, "to")
    months = (b.year - a.year) * 12 + b.month - a.month
    a_rest = (a.day, a.hour, a.minute, a.second) if isinstance(a, dt.datetime) else (a.day,)
    b_rest = (b.day, b.hour, b.minute, b.second) if isinstance(b, dt.datetime) else (b.day,)
    if months > 0 and b_rest < a_rest[: len(b_rest)]:
        months -= 1
    elif months < 0 and b_rest > a_rest[: len(b_rest)]:
        months += 1
    return YearsMonths(months)
