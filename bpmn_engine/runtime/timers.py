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


def parse_duration(text: str) -> timedelta:
    match = _DURATION.match(text.strip().upper())
    if not match:
        raise TimerValueError(f"{text!r} is not an ISO 8601 duration such as PT5M or P1DT2H")
    total = 0.0
    for name, value in match.groupdict().items():
        if value:
            number = float(value.replace(",", "."))
            total += number * (_DAYS[name] * 86400 if name in _DAYS else _SECONDS[name])
    return timedelta(seconds=total)


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
    if kind == "timeDuration":
        return Schedule(now + parse_duration(text))
    return _cycle(text.strip(), now)


def _cycle(text: str, now: datetime) -> Schedule:
    parts = text.split("/")
    if not parts[0].upper().startswith("R") or len(parts) not in (2, 3):
        raise TimerValueError(
            f"{text!r} is not an ISO 8601 repeating interval such as R3/PT10M "
            "or R/2026-12-01T09:00:00Z/PT1H (cron cycles are not supported yet)"
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
