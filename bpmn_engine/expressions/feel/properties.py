"""FEEL path expressions `a.b`: context entries, temporal and range properties, list mapping."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from bpmn_engine.expressions.feel.values import Range, YearsMonths, kind


class Warns(Protocol):
    """What a path needs of its evaluation (the evaluator's `Env`, which imports this
    module): a place for the warning a missing member gives."""

    def warn(self, message: str) -> None: ...


def _zone(value: dt.time | dt.datetime) -> Any:
    tz = value.tzinfo
    return tz.key if isinstance(tz, ZoneInfo) else None


def _offset(value: dt.time | dt.datetime) -> Any:
    if value.tzinfo is None:
        return None
    offset = value.utcoffset() if isinstance(value, dt.datetime) else value.tzinfo.utcoffset(None)
    return offset


def _temporal(value: Any, key: str) -> Any:
    number = Decimal
    if isinstance(value, dt.date):
        dated = {"year": value.year, "month": value.month, "day": value.day}
        if key in dated:
            return number(dated[key])
        if key == "weekday":
            return number(value.isoweekday())
    if isinstance(value, (dt.datetime, dt.time)):
        clock = {"hour": value.hour, "minute": value.minute, "second": value.second}
        if key in clock:
            return number(clock[key])
        if key == "timezone":
            return _zone(value)
        if key in ("time offset", "time_offset", "offset"):  # the spec's name, and others
            return _offset(value)
    if isinstance(value, dt.timedelta):
        total = abs(value)
        sign = -1 if value < dt.timedelta(0) else 1
        parts = {
            "days": total.days, "hours": total.seconds // 3600,
            "minutes": total.seconds // 60 % 60, "seconds": total.seconds % 60,
        }  # fmt: skip
        if key in parts:
            return number(sign * parts[key])
    if isinstance(value, YearsMonths):
        sign = -1 if value.months < 0 else 1
        years, months = divmod(abs(value.months), 12)
        if key in ("years", "months"):
            return number(sign * (years if key == "years" else months))
    raise KeyError(key)


def member(env: Warns, value: Any, key: str) -> Any:
    """`value.key`; null with a warning where there is no such member."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        env.warn(f"no context entry {key!r}")
        return None
    if isinstance(value, list):
        return [member(env, item, key) for item in value]
    if value is None:
        return None
    if isinstance(value, Range):
        ends = {
            "start": value.start,
            "end": value.end,
            "start included": value.start_included,
            "end included": value.end_included,
        }
        if key in ends:
            return ends[key]
    try:
        return _temporal(value, key)
    except KeyError:
        env.warn(f"a {kind(value)} has no member {key!r}")
        return None
