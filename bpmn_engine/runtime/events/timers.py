"""ISO 8601 timer values: timeDate, timeDuration and timeCycle (`R3/PT10M`, `R/start/PT1H`).

Durations with years or months use 365 and 30 days: BPMN timers name waits, not calendar
arithmetic, and the approximation is stated here rather than hidden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_DURATION = re.compile(
    r"^P(?!$)(?:(?P<years>\d+(?:[.,]\d+)?)Y)?(?:(?P<months>\d+(?:[.,]\d+)?)M)?"
    r"(?:(?P<weeks>\d+(?:[.,]\d+)?)W)?(?:(?P<days>\d+(?:[.,]\d+)?)D)?"
    r"(?:T(?=\d)(?:(?P<hours>\d+(?:[.,]\d+)?)H)?(?:(?P<minutes>\d+(?:[.,]\d+)?)M)?"
    r"(?:(?P<seconds>\d+(?:[.,]\d+)?)S)?)?$"
)
_DAYS = {"years": 365, "months": 30, "weeks": 7, "days": 1}
_SECONDS = {"hours": 3600, "minutes": 60, "seconds": 1}


class TimerValueError(ValueError):
    """A timer value that is not ISO 8601 (the message says what was expected)."""


class TimerRangeError(TimerValueError):
    """A well-formed timer value that falls due after the year 9999 (`P99999999D`)."""


def parse_duration(text: str) -> timedelta:
    match = _DURATION.match(text.strip().upper())
    if not match:
        raise TimerValueError(f"{text!r} is not an ISO 8601 duration such as PT5M or P1DT2H")
    total = 0.0
    for name, value in match.groupdict().items():
        if value:
            number = float(value.replace(",", "."))
            total += number * (_DAYS[name] * 86400 if name in _DAYS else _SECONDS[name])
    try:
        return timedelta(seconds=total)
    except OverflowError:
        raise TimerRangeError(f"{text!r} is longer than a timer can wait") from None


def parse_date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise TimerValueError(
            f"{text!r} is not an ISO 8601 date-time such as 2026-12-01T09:00:00Z"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Schedule:
    """When a timer is first due, and how often it repeats after that (-1: forever)."""

    due: datetime
    repeat: int = 0
    interval: timedelta | None = None


def schedule(kind: str, text: str, now: datetime) -> Schedule:
    """The schedule of a timeDate, timeDuration or timeCycle value, from `now`."""
    if kind == "timeDate":
        return Schedule(parse_date(text))
    try:
        if kind == "timeDuration":
            return Schedule(now + parse_duration(text))
        return _cycle(text.strip(), now)
    except OverflowError:  # the date arithmetic: due after the year 9999
        raise TimerRangeError(f"{text!r} would fall due after the year 9999") from None


def _cycle(text: str, now: datetime) -> Schedule:
    if is_cron(text):
        return Schedule(cron_next(text, now), -1, None)
    parts = text.split("/")
    if not parts[0].upper().startswith("R") or len(parts) not in (2, 3):
        raise TimerValueError(
            f"{text!r} is not an ISO 8601 repeating interval such as R3/PT10M "
            "or R/2026-12-01T09:00:00Z/PT1H, or a cron expression"
        )
    count = parts[0][1:]
    if count and not count.isdigit():
        raise TimerValueError(f"{text!r}: the repeat count {parts[0]!r} must be R or Rn")
    repeats = int(count) if count else -1
    interval = parse_duration(parts[-1])
    if interval <= timedelta(0):
        raise TimerValueError(f"{text!r}: the interval must be longer than zero")
    first = parse_date(parts[1]) if len(parts) == 3 else now + interval
    remaining = -1 if repeats < 0 else max(repeats - 1, 0)
    return Schedule(first, remaining, interval)


# --- cron (Camunda 7 uses Quartz, Camunda 8 Spring): a timeCycle that is not ISO 8601 -------

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], 1
    )
}
_DAYS_OF_WEEK = {d: i for i, d in enumerate(["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"])}


def is_cron(text: str) -> bool:
    return len(text.split()) in (5, 6, 7) and not text.strip().upper().startswith("R")


def _cron_field(text: str, low: int, high: int, names: dict[str, int], shift: int = 0) -> set[int]:
    values: set[int] = set()
    for part in text.upper().split(","):
        step = 1
        if "/" in part:
            part, step_text = part.split("/", 1)
            step = int(step_text)
        if part in ("*", "?", ""):
            start, end = low, high
        elif "-" in part:
            a, b = part.split("-", 1)
            start, end = names.get(a), names.get(b)
            start = int(a) - shift if start is None else start
            end = int(b) - shift if end is None else end
        else:
            start = names[part] if part in names else int(part) - shift
            end = high if step > 1 else start
        if not (low <= start <= high and low <= end <= high) or step < 1:
            raise TimerValueError(f"cron field {text!r} is out of range {low}-{high}")
        values.update(range(start, end + 1, step))
    return values


def cron_next(expression: str, after: datetime) -> datetime:
    """The first time after `after` that a 5-field (Unix), 6-field (Spring: seconds first) or
    Quartz (6 or 7 fields, `?`, Sunday = 1) cron expression names."""
    fields = expression.split()
    try:
        if len(fields) == 5:
            fields = ["0", *fields]
        quartz = "?" in expression or len(fields) == 7
        seconds = _cron_field(fields[0], 0, 59, {})
        minutes = _cron_field(fields[1], 0, 59, {})
        hours = _cron_field(fields[2], 0, 23, {})
        days = _cron_field(fields[3], 1, 31, {})
        months = _cron_field(fields[4], 1, 12, _MONTHS)
        weekdays = _cron_field(fields[5], 0, 7, _DAYS_OF_WEEK, shift=1 if quartz else 0)
    except (ValueError, KeyError, IndexError):
        raise TimerValueError(
            f"{expression!r} is not a cron expression this engine reads"
        ) from None
    weekdays = {d % 7 for d in weekdays}
    any_day, any_weekday = fields[3] in ("*", "?"), fields[5] in ("*", "?")
    moment = after.replace(microsecond=0) + timedelta(seconds=1)
    for _ in range(366 * 5):  # days: a valid expression names one within five years
        weekday = (moment.weekday() + 1) % 7  # cron counts from Sunday
        day_ok = (moment.day in days or any_day) and (weekday in weekdays or any_weekday)
        if not any_day and not any_weekday:  # both given: either matches (cron's rule)
            day_ok = moment.day in days or weekday in weekdays
        if moment.month in months and day_ok:
            for hour in sorted(h for h in hours if h >= moment.hour):
                for minute in sorted(minutes):
                    for second in sorted(seconds):
                        candidate = moment.replace(hour=hour, minute=minute, second=second)
                        if candidate >= moment:
                            return candidate
        moment = (moment + timedelta(days=1)).replace(hour=0, minute=0, second=0)
    raise TimerValueError(f"{expression!r} names no time in the next five years")
