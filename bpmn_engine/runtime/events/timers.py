"""Timer values: ISO 8601 timeDate, timeDuration and timeCycle, and cron cycles.

ISO 8601 is read by `isodate`: years and months are calendar ones (`P1M` from 31 January is
28 February, the day clipped to the month's end), which our own 30-day approximation got
wrong. A repeating interval with a start or an end is anchored there: its n-th time is
`start + n * duration` (so `R3/2026-01-31T00:00:00Z/P1M` fires on 31 January, 28 February and
31 March), and `R[n]/duration/end` counts back from the end. `R[n]/duration` has no anchor:
each time is the one before plus the duration.

Cron is read by `croniter`, behind a thin adapter (`_CronRule`) for the dialects BPMN tools
write: 5 fields (Unix), 6 fields with seconds first (Spring, Camunda 8), Quartz (Camunda 7:
seconds first, `?`, an optional 7th year field, `L`, `W`, `#`, day-of-week 1 = Sunday). A
6-field expression with `?`, or any 7-field one, is Quartz; otherwise day-of-week counts
0 (or 7) = Sunday as in Unix and Spring. Day names (MON-FRI) mean the same in every dialect.

A value that cannot be scheduled (not ISO 8601 or cron, past the year 9999, a cron naming no
time) is a TimerValueError, never an OverflowError: callers check values before a run starts.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import TYPE_CHECKING

from bpmn_engine.errors import ExpressionError
from bpmn_engine.runtime import deferred

if TYPE_CHECKING:
    import isodate

    Period = timedelta | isodate.Duration


class TimerValueError(ExpressionError, ValueError):
    """A timer value that is not ISO 8601 (the message says what was expected).

    An `ExpressionError`: BPMN's timeDate, timeDuration and timeCycle are expressions, and
    the command line reports every `BpmnEngineError` as bad input. Still a `ValueError`, for
    the callers of `parse_duration` that catch one."""


class TimerRangeError(TimerValueError):
    """A value of a known form (ISO 8601, or cron by its 5 to 7 fields) that the engine cannot
    schedule: past the year 9999, a fraction of a month, a zero interval, a cron expression
    croniter cannot read or that matches no date. Refused before a run starts (`precheck`);
    a value in no known form stays an incident when its timer is armed (it may never be)."""


# --- ISO 8601 ------------------------------------------------------------------------------


_BARE_FRACTION = re.compile(r"([PTYMWDH])([.,]\d)")


def _period(text: str) -> Period:
    """An ISO 8601 duration: a timedelta, or an isodate Duration when it has years or months."""
    # a fraction without its leading zero (`PT.1S`, as SpiffWorkflow's reader takes it)
    value = _BARE_FRACTION.sub(r"\g<1>0\2", text.strip().upper())
    if not value.startswith("P") or value.endswith(("P", "T")):  # isodate reads `PT` as zero
        raise TimerValueError(f"{text!r} is not an ISO 8601 duration such as PT5M or P1DT2H")
    try:
        period = deferred.isodate.parse_duration(value)
    except OverflowError:
        raise TimerRangeError(f"{text!r} is longer than a timer can wait") from None
    except (deferred.isodate.ISO8601Error, ValueError):
        raise TimerValueError(
            f"{text!r} is not an ISO 8601 duration such as PT5M or P1DT2H"
        ) from None
    if isinstance(period, deferred.isodate.Duration) and (
        period.years != int(period.years) or period.months != int(period.months)
    ):
        raise TimerRangeError(f"{text!r}: years and months must be whole to count on a calendar")
    return period


class _PastTheCalendar(TimerRangeError):
    """Date arithmetic past the year 9999; `schedule` says which value did it."""


def _add(moment: datetime, period: Period, times: int = 1) -> datetime:
    """`moment` plus `times` * `period` on the calendar; past the year 9999 is an error."""
    try:
        return moment + period * times  # n months in one step: 31 Jan + 2 * P1M is 31 Mar
    except (OverflowError, ValueError):
        raise _PastTheCalendar("it would fall due after the year 9999") from None


def parse_duration(text: str, start: datetime | None = None) -> timedelta:
    """The span of an ISO 8601 duration; years and months are calendar ones counted from
    `start` (from now when there is none: `P1M` from 31 January is 28 days)."""
    period = _period(text)
    if isinstance(period, timedelta):
        return period
    begin = start or datetime.now(UTC)
    try:
        return _add(begin, period) - begin
    except _PastTheCalendar:
        raise TimerRangeError(f"{text!r} would fall due after the year 9999") from None


def parse_date(text: str) -> datetime:
    """An ISO 8601 date-time (UTC when it names no offset), or a date (its midnight, UTC)."""
    value = text.strip()
    try:
        moment = (
            deferred.isodate.parse_datetime(value)
            if "T" in value.upper()
            else datetime.combine(deferred.isodate.parse_date(value), datetime.min.time())
        )
    except (deferred.isodate.ISO8601Error, ValueError, OverflowError):
        raise TimerValueError(
            f"{text!r} is not an ISO 8601 date-time such as 2026-12-01T09:00:00Z"
        ) from None
    offset = moment.utcoffset()
    return moment.replace(tzinfo=UTC if offset is None else timezone(offset))


@dataclass(frozen=True)
class Schedule:
    """When a timer is first due, and how often it repeats after that (-1: forever).

    `interval` is the fixed time between repeats; None when each next time is read from the
    timer's text (`next_time`): cron, and cycles counted in calendar months or years.
    """

    due: datetime
    repeat: int = 0
    interval: timedelta | None = None


def schedule(kind: str, text: str, now: datetime) -> Schedule:
    """The schedule of a timeDate, timeDuration or timeCycle value, from `now`."""
    try:
        return _schedule(kind, text, now)
    except _PastTheCalendar:
        raise TimerRangeError(f"{text!r} would fall due after the year 9999") from None


def _schedule(kind: str, text: str, now: datetime) -> Schedule:
    if kind == "timeDate":
        return Schedule(parse_date(text))
    if kind == "timeDuration":
        period = _period(text)
        if _negative(period):
            raise TimerValueError(f"{text!r}: a duration to wait must not be negative")
        return Schedule(_add(now, period))
    if is_cron(text):
        return Schedule(cron_next(text, now), -1, None)
    cycle = _Cycle.read(text)
    first, remaining = cycle.first(now)
    fixed = isinstance(cycle.period, timedelta)
    return Schedule(first, remaining, cycle.period if fixed else None)


def next_time(text: str, previous: datetime) -> datetime | None:
    """The time a timeCycle names after `previous` (a time it named), None when the cycle
    names no more (its end, or the year 9999). The caller counts repeats (`Schedule.repeat`)."""
    try:
        if is_cron(text):
            return cron_next(text, previous)
        return _Cycle.read(text).after(previous)
    except TimerValueError:
        return None


def later(moment: datetime, seconds: float) -> datetime | None:
    """`moment` plus a fixed interval, None past the year 9999 (the cycle ends there)."""
    try:
        return moment + timedelta(seconds=seconds)
    except OverflowError:
        return None


def _negative(period: Period) -> bool:
    if isinstance(period, timedelta):
        return period < timedelta(0)
    return period.years < 0 or period.months < 0 or period.tdelta < timedelta(0)


@dataclass(frozen=True)
class _Cycle:
    """`R[n]/duration`, `R[n]/start/duration` or `R[n]/duration/end` (repeats: -1 forever)."""

    repeats: int
    period: Period
    start: datetime | None = None
    end: datetime | None = None

    @classmethod
    def read(cls, text: str) -> _Cycle:
        parts = text.strip().split("/")
        if not parts[0].upper().startswith("R") or len(parts) not in (2, 3):
            raise TimerValueError(
                f"{text!r} is not an ISO 8601 repeating interval such as R3/PT10M "
                "or R/2026-12-01T09:00:00Z/PT1H, or a cron expression"
            )
        count = parts[0][1:]
        if count and not count.isdigit():
            raise TimerValueError(f"{text!r}: the repeat count {parts[0]!r} must be R or Rn")
        repeats = int(count) if count else -1
        if len(parts) == 2:
            cycle = cls(repeats, _period(parts[1]))
        elif parts[1].strip().upper().startswith("P"):
            cycle = cls(repeats, _period(parts[1]), end=parse_date(parts[2]))
        else:
            cycle = cls(repeats, _period(parts[2]), start=parse_date(parts[1]))
        if _negative(cycle.period) or _add(datetime(2000, 1, 1, tzinfo=UTC), cycle.period) <= (
            datetime(2000, 1, 1, tzinfo=UTC)
        ):
            raise TimerRangeError(f"{text!r}: the interval must be longer than zero")
        return cycle

    def first(self, now: datetime) -> tuple[datetime, int]:
        """The first time, and how many repeats are left after it."""
        remaining = -1 if self.repeats < 0 else max(self.repeats - 1, 0)
        if self.start is not None:
            return self.start, remaining
        if self.end is None:
            return _add(now, self.period), remaining
        if self.repeats >= 0:  # n times, the last one at the end
            return _add(self.end, self.period, -remaining), remaining
        back = max(self._back_to(now) - 1, 0)  # forever: those still to come, then the end
        return _add(self.end, self.period, -back), back

    def after(self, previous: datetime) -> datetime | None:
        if self.start is None and self.end is None:
            return _add(previous, self.period)
        if self.end is not None:
            back = self._back_to(previous)
            return None if back == 0 else _add(self.end, self.period, -(back - 1))
        start = self.start
        assert start is not None
        return _add(start, self.period, _least(lambda n: _beyond(start, self.period, n, previous)))

    def _back_to(self, moment: datetime) -> int:
        """The fewest steps back from the end that reach `moment` or before it."""
        end = self.end
        assert end is not None
        return _least(lambda n: not _beyond(end, self.period, -n, moment))


def _beyond(anchor: datetime, period: Period, steps: int, moment: datetime) -> bool:
    """Does `anchor + steps * period` lie after `moment`? (Past the calendar's ends counts as
    after going forward and as before going back.)"""
    try:
        return _add(anchor, period, steps) > moment
    except TimerValueError:
        return steps > 0


def _least(test: Callable[[int], bool]) -> int:
    """The least n >= 0 for which `test` holds, `test` being false up to some n and true from
    there (calendar steps vary in length, so they are searched, not divided)."""
    if test(0):
        return 0
    low, high = 0, 1
    while not test(high):  # within some 50 doublings a step passes the year 9999
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if test(middle):
            high = middle
        else:
            low = middle
    return high


# --- literal or expression ----------------------------------------------------------------

EXPRESSION_PREFIXES = ("${", "#{", "=")
# how a literal timer value starts: P1D, PT5M, R3/..., R/..., a date, a cron field
_LITERAL_START = re.compile(r"(?:P[\dT]|R[\d/]|[\d*?])", re.IGNORECASE)


def is_timer_expression(text: str) -> bool:
    """Is this timer value an expression to evaluate rather than a literal to read?

    `${...}`, `#{...}` and `=...` always are; so is any text that does not start the way an
    ISO 8601 value or a cron expression does: SpiffWorkflow writes timers as Python
    (`"PT0.25S"` with the quotes, a variable name). A value that starts like a literal stays
    one, so a malformed `PT5X` is reported as a malformed duration, not as an unknown name.
    """
    value = text.strip()
    return value.startswith(EXPRESSION_PREFIXES) or not _LITERAL_START.match(value)


# --- cron ----------------------------------------------------------------------------------

_DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
_NUMBER = re.compile(r"\d+")


def is_cron(text: str) -> bool:
    return len(text.split()) in (5, 6, 7) and not text.strip().upper().startswith("R")


def cron_next(expression: str, after: datetime) -> datetime:
    """The first time after `after` that a cron expression names (see the module doc)."""
    return _CronRule.read(expression).next_after(after)


@dataclass(frozen=True)
class _CronRule:
    """A cron expression as croniter reads it, and a day test for what croniter lacks."""

    expression: str  # seconds first, croniter's day-of-week numbering
    original: str
    day: Callable[[date], bool] | None = None  # Quartz `LW` and `L-n`

    @classmethod
    def read(cls, text: str) -> _CronRule:
        fields = text.split()
        if len(fields) == 5:
            fields = ["0", *fields]
        if len(fields) not in (6, 7):
            raise TimerValueError(f"{text!r} is not a cron expression of 5, 6 or 7 fields")
        quartz = "?" in fields or len(fields) == 7
        day = None
        try:
            if quartz:
                fields[5] = _quartz_weekdays(fields[5])
            fields[3], day = _month_day(fields[3])
        except ValueError as error:
            raise TimerRangeError(f"{text!r} is not a cron expression: {error}") from None
        rule = cls(" ".join(fields), text, day)
        if not deferred.croniter.croniter.is_valid(rule.expression, second_at_beginning=True):
            raise TimerRangeError(f"{text!r} is not a cron expression this engine reads")
        return rule

    def next_after(self, after: datetime) -> datetime:
        moment = after
        for _ in range(366 * 5):  # days: a day test names one within five years
            try:
                found = deferred.croniter.croniter(
                    self.expression, moment, second_at_beginning=True, ret_type=datetime
                ).get_next(datetime)
            except (deferred.croniter.CroniterError, ValueError, OverflowError):
                break
            if self.day is None or self.day(found.date()):
                return found
            moment = found.replace(hour=23, minute=59, second=59, microsecond=0)
        raise TimerRangeError(f"{self.original!r} names no time after {after.isoformat()}")


def _quartz_weekdays(field: str) -> str:
    """Quartz counts days of the week from 1 = Sunday, croniter from 0 = Sunday; Quartz's
    `6L` (the last Friday) is croniter's `L5`, and `L` alone is Saturday."""
    if field.upper() == "L":
        return "6"
    parts = []
    for part in field.split(","):
        last = re.fullmatch(r"(\w+)L", part, re.IGNORECASE)
        if last:
            parts.append("L" + str(_quartz_day(last.group(1))))
            continue
        head, tail = re.fullmatch(r"([^#/]*)(.*)", part).groups()  # `6#3`: 3 is no day
        parts.append(_NUMBER.sub(lambda m: str(_quartz_day(m.group())), head) + tail)
    return ",".join(parts)


def _quartz_day(text: str) -> int:
    if text.upper() in _DAY_NAMES:
        return _DAY_NAMES.index(text.upper())
    number = int(text)
    if not 1 <= number <= 7:
        raise ValueError(f"day of week {number} is not 1-7 (Quartz: 1 = Sunday)")
    return number - 1


def _month_day(field: str) -> tuple[str, Callable[[date], bool] | None]:
    """Quartz's `LW` (the last weekday of the month) and `L-n` (n days before its last day),
    which croniter lacks: every day for croniter, and a test of the day."""
    upper = field.upper()
    if upper == "LW":
        return "*", _last_weekday
    before = re.fullmatch(r"L-(\d+)", upper)
    if before:
        offset = int(before.group(1))
        if offset > 30:
            raise ValueError(f"{field!r}: at most 30 days before the last day")
        return "*", lambda day: day.day == _last_day(day) - offset
    return field, None


def _last_day(day: date) -> int:
    return calendar.monthrange(day.year, day.month)[1]


def _last_weekday(day: date) -> bool:
    last = date(day.year, day.month, _last_day(day))
    while last.weekday() >= 5:  # Saturday, Sunday
        last -= timedelta(days=1)
    return day == last
