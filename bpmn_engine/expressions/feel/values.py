"""FEEL values as Python objects, and how they cross to and from the engine's JSON variables.

number: `Decimal` (decimal128 arithmetic: `0.1 + 0.2 = 0.3`); string: `str`; boolean: `bool`;
null: `None`; date: `datetime.date`; time: `datetime.time` (tzinfo: offset or zone);
date and time: `datetime.datetime`; days and time duration: `timedelta`; years and months
duration: `YearsMonths`; list: `list`; context: `dict`; range: `Range`; function: `Function`.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions import guards
from bpmn_engine.expressions.temporal import duration_text as days_duration_text

D128 = decimal.Context(
    prec=34, rounding=decimal.ROUND_HALF_EVEN, Emax=6144, Emin=-6143,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
)  # fmt: skip
"""IEEE 754 decimal128, what the spec asks numbers to be: precision (and so size) is bounded."""


class FeelError(Exception):
    """A FEEL evaluation error: the failing operation becomes null and its message a warning."""


@dataclass(frozen=True)
class YearsMonths:
    """A years and months duration, counted in months (`P1Y2M` is 14)."""

    months: int


@dataclass(frozen=True)
class Range:
    """An interval; None for an open end (`< 10` is the range from nowhere to 10, excluded)."""

    start: Any
    end: Any
    start_included: bool
    end_included: bool

    def holds(self, value: Any) -> bool | None:
        if value is None:
            return None
        if self.start is not None:
            low = compare(self.start, value)
            if low is None or low > 0 or (low == 0 and not self.start_included):
                return False if low is not None else None
        if self.end is not None:
            high = compare(value, self.end)
            if high is None or high > 0 or (high == 0 and not self.end_included):
                return False if high is not None else None
        return True


@dataclass(frozen=True)
class Function:
    """A callable FEEL value: a built-in or a `function(a, b) ...` closing over its scope."""

    name: str
    parameters: tuple[str, ...]
    call: Callable[..., Any]
    variadic: bool = False


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


def unquote(literal: str) -> str:
    """A FEEL string literal's value: quotes off, escapes read (`\\n`, `\\u0041`, `\\U01F40E`)."""

    def escape(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "uU" and len(code) > 1:  # \u0041, and \U01F40E beyond the BMP
            point = int(code[1:], 16)
            return chr(point) if point <= 0x10FFFF else match.group(0)
        return _ESCAPES.get(code, "\\" + code)  # "\s": kept for regex patterns, as the spec

    text = re.sub(r"\\(U[0-9a-fA-F]{6}|u[0-9a-fA-F]{4}|.)", escape, literal[1:-1], flags=re.DOTALL)
    try:  # "\ud83d\ude00" (a Java-style surrogate pair) is one character
        return text.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:  # a lone surrogate stays as written
        return text


# --- kinds, equality and order ---------------------------------------------------------------
def kind(value: Any) -> str:
    """The FEEL type name of a value (what `instance of` checks)."""
    if value is None:
        return "Null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, Decimal):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dt.datetime):
        return "date and time"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, dt.time):
        return "time"
    if isinstance(value, dt.timedelta):
        return "days and time duration"
    if isinstance(value, YearsMonths):
        return "years and months duration"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "context"
    if isinstance(value, Range):
        return "range"
    if isinstance(value, Function):
        return "function"
    return type(value).__name__


_SIMPLE = frozenset({Decimal, str, bool})


def _comparable(a: Any, b: Any) -> bool:
    ka, kb = kind(a), kind(b)
    return ka == kb


def equal(a: Any, b: Any) -> bool | None:
    """FEEL `=`: null equals only null; different kinds are not comparable (null)."""
    if a is None or b is None:
        return a is None and b is None
    kind_a = type(a)
    if kind_a is type(b) and kind_a in _SIMPLE:  # the common case, without kind()
        return a == b
    if not _comparable(a, b):
        return None
    guards.charge(1) if guards.CURRENT.get(None) is not None else None
    if isinstance(a, list):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):
            same = equal(x, y)
            if not same:
                return same
        return True
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return False
        for key in a:
            same = equal(a[key], b[key])
            if not same:
                return same
        return True
    if isinstance(a, dt.datetime):
        if (a.tzinfo is None) != (b.tzinfo is None):
            return False
        if a.tzinfo is not None:
            return a.astimezone(dt.UTC) == b.astimezone(dt.UTC)
    if isinstance(a, dt.time):
        return _time_key(a) == _time_key(b)
    return bool(a == b)


def time_offset(value: dt.time | dt.datetime) -> dt.timedelta | None:
    """A time's or date and time's offset; a time with a zone id has no day to read its
    daylight saving from, so its zone's standard offset (Melbourne's +10:00, Paris's
    +01:00), as the DMN TCK compares such times. None: a local value."""
    if value.tzinfo is None:
        return None
    offset = value.utcoffset()
    if offset is not None or isinstance(value, dt.datetime):
        return offset
    moment = dt.datetime.combine(dt.date(2000, 1, 1), value.replace(tzinfo=None))
    moment = moment.replace(tzinfo=value.tzinfo)
    return (moment.utcoffset() or dt.timedelta(0)) - (moment.dst() or dt.timedelta(0))


def _time_key(value: dt.time) -> Any:
    offset = time_offset(value)
    seconds = value.hour * 3600 + value.minute * 60 + value.second + value.microsecond / 1e6
    return seconds - (offset.total_seconds() if offset is not None else 0), offset is None


def compare(a: Any, b: Any) -> int | None:
    """-1, 0 or 1 for ordered values of one kind; None when FEEL has no order for them."""
    kind_a = type(a)
    if kind_a is type(b) and (kind_a is Decimal or kind_a is str):
        return (a > b) - (a < b)
    if a is None or b is None or not _comparable(a, b):
        return None
    if isinstance(a, (Decimal, str, dt.date, dt.timedelta)) and not isinstance(a, bool):
        if isinstance(a, dt.datetime):
            if (a.tzinfo is None) != (b.tzinfo is None):
                return None
            if a.tzinfo is not None:  # instants: Python compares same-zone times by wall clock
                a, b = a.astimezone(dt.UTC), b.astimezone(dt.UTC)
        return (a > b) - (a < b)
    if isinstance(a, YearsMonths):
        return (a.months > b.months) - (a.months < b.months)
    if isinstance(a, dt.time):
        ka, kb = _time_key(a), _time_key(b)
        if ka[1] != kb[1]:
            return None
        return (ka[0] > kb[0]) - (ka[0] < kb[0])
    return None


# --- text forms ------------------------------------------------------------------------------
def number_text(value: Decimal) -> str:
    if value == value.to_integral_value():
        return str(value.quantize(Decimal(1))) if abs(value) < Decimal("1e34") else f"{value:f}"
    return f"{value.normalize(D128):f}"


def _zone_text(value: dt.time | dt.datetime) -> str:
    tz = value.tzinfo
    if tz is None:
        return ""
    if isinstance(tz, ZoneInfo):
        return f"@{tz.key}"
    offset = value.utcoffset()
    if offset is None:
        return ""
    if offset == dt.timedelta(0):
        return "Z"
    total = int(offset.total_seconds())
    sign = "-" if total < 0 else "+"
    hours, minutes = divmod(abs(total) // 60, 60)
    seconds = abs(total) % 60
    return f"{sign}{hours:02d}:{minutes:02d}" + (f":{seconds:02d}" if seconds else "")


def _clock(value: dt.time | dt.datetime) -> str:
    text = f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    if value.microsecond:
        text += f".{value.microsecond:06d}".rstrip("0")
    return text


def duration_text(value: dt.timedelta | YearsMonths) -> str:
    if isinstance(value, YearsMonths):
        sign = "-" if value.months < 0 else ""
        years, months = divmod(abs(value.months), 12)
        parts = (f"{years}Y" if years else "") + (f"{months}M" if months or not years else "")
        return f"{sign}P{parts}"
    return days_duration_text(value)


def text(value: Any) -> str:
    """FEEL `string(value)`: the literal form, without quotes for strings."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return number_text(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dt.datetime):
        return f"{value.date().isoformat()}T{_clock(value)}{_zone_text(value)}"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return f"{_clock(value)}{_zone_text(value)}"
    if isinstance(value, (dt.timedelta, YearsMonths)):
        return duration_text(value)
    if isinstance(value, list):
        return "[" + _joined(_literal(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + _joined(f"{k}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Range):
        if value.start is None and value.end is not None:  # `< 10`, as it is written
            return f"{'<=' if value.end_included else '<'} {_literal(value.end)}"
        if value.end is None and value.start is not None:
            return f"{'>=' if value.start_included else '>'} {_literal(value.start)}"
        low = "[" if value.start_included else "("
        high = "]" if value.end_included else ")"
        return f"{low}{_literal(value.start)}..{_literal(value.end)}{high}"
    return f"function {value.name}" if isinstance(value, Function) else repr(value)


def _joined(parts: Iterator[str]) -> str:
    """Items' texts joined with ", ": charged as they come, refused past the size cap before
    they are built (a list holding one long string many times would be gigabytes)."""
    kept: list[str] = []
    total = 0
    for part in parts:
        total += len(part) + 2
        if total > guards.MAX_SIZE:
            raise guards.too_big(f"a string of more than {guards.MAX_SIZE:,} characters")
        if guards.CURRENT.get(None) is not None:
            guards.charge(1 + len(part) // guards.ITEMS_PER_STEP)
        kept.append(part)
    return ", ".join(kept)


def _literal(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else text(value)


# --- parsing temporal text -------------------------------------------------------------------
_DATE = re.compile(r"(-?\d{4,9})-(\d\d)-(\d\d)")
_TIME = re.compile(
    r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?"
    r"(?:([Zz])|([+-]\d\d:\d\d(?::\d\d)?)|@([A-Za-z_][A-Za-z0-9_+\-/]*))?"
)
_DURATION = re.compile(
    r"(-)?P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?"
    r"(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?"
)
MAX_DURATION_DIGITS = 9
MAX_MONTHS = 12 * 10**MAX_DURATION_DIGITS  # what a duration may say: under a billion years


def years_months(months: int) -> YearsMonths:
    """A years and months duration that arithmetic made, within what one may be written as
    (a product by 10^5000 had 5,000 digits, which nothing could show)."""
    if abs(months) > MAX_MONTHS:
        raise FeelError("the duration is out of range")
    return YearsMonths(months)


def parse_date(source: str) -> dt.date:
    match = _DATE.fullmatch(source)
    if not match:
        raise FeelError(f"{source!r} is not a date (YYYY-MM-DD)")
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError as error:
        raise FeelError(f"{source!r} is not a date: {error}") from None


def _zone(offset: str | None, zone: str | None, utc: str | None) -> dt.tzinfo | None:
    if utc:
        return dt.UTC
    if offset:
        sign = -1 if offset[0] == "-" else 1
        hours, minutes = int(offset[1:3]), int(offset[4:6])
        seconds = int(offset[7:9] or 0)  # `+02:45:55`: an offset may name its seconds
        if hours > 18 or minutes > 59 or seconds > 59:
            raise FeelError(f"time offset {offset!r} is out of range")
        return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes, seconds=seconds))
    if zone:
        try:
            return ZoneInfo(zone)
        except (ValueError, OSError, KeyError) as error:
            raise FeelError(f"unknown time zone {zone!r}") from error
    return None


def parse_time(source: str) -> dt.time:
    match = _TIME.fullmatch(source)
    if not match:
        raise FeelError(f"{source!r} is not a time (hh:mm:ss)")
    micro = int((match[4] or "0")[:6].ljust(6, "0"))
    try:
        return dt.time(
            int(match[1]), int(match[2]), int(match[3]), micro,
            tzinfo=_zone(match[6], match[7], match[5]),
        )  # fmt: skip
    except ValueError as error:
        raise FeelError(f"{source!r} is not a time: {error}") from None


def parse_date_time(source: str) -> dt.datetime:
    day, sep, clock = source.partition("T")
    if not sep:
        return dt.datetime.combine(parse_date(source), dt.time())
    date, time = parse_date(day), parse_time(clock)
    return dt.datetime.combine(date, time.replace(tzinfo=None), tzinfo=time.tzinfo)


def parse_duration(source: str) -> dt.timedelta | YearsMonths:
    match = _DURATION.fullmatch(source)
    if not match or any(len(g) > MAX_DURATION_DIGITS for g in match.groups()[1:] if g):
        raise FeelError(f"{source!r} is not a duration (like P1DT2H or P1Y2M)")
    sign = -1 if match[1] else 1
    years, months, weeks, days, hours, minutes, seconds = match.groups()[1:]
    if years or months:
        if weeks or days or hours or minutes or seconds:
            raise FeelError(f"{source!r} mixes years and months with days and time")
        return YearsMonths(sign * (int(years or 0) * 12 + int(months or 0)))
    try:
        return sign * dt.timedelta(
            weeks=int(weeks or 0), days=int(days or 0), hours=int(hours or 0),
            minutes=int(minutes or 0), seconds=float(Decimal(seconds or 0)),
        )  # fmt: skip
    except OverflowError:
        raise FeelError(f"duration {source!r} is out of range") from None


def parse_temporal(source: str) -> Any:
    """`@"..."`: a date, time, date and time or duration, told apart by its shape."""
    if source.startswith(("P", "-P")):
        return parse_duration(source)
    if "T" in source.split("@", 1)[0]:  # not the T of a zone such as @Etc/GMT
        return parse_date_time(source)
    if _DATE.fullmatch(source):
        return parse_date(source)
    return parse_time(source)


# --- crossing to and from the engine ---------------------------------------------------------
def to_feel(value: Any) -> Any:
    """An engine variable (JSON-like) as a FEEL value: numbers become Decimal."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {str(k): to_feel(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_feel(v) for v in value]
    if isinstance(value, (Decimal, dt.date, dt.time, dt.timedelta, YearsMonths, Range)):
        return value
    return None


def to_engine(value: Any, depth: int = 0) -> Any:
    """A FEEL result as an engine variable: integral numbers int, others float, temporals as
    their FEEL text (`string()`), contexts dicts. Ranges and functions cannot be stored."""
    if depth > guards.MAX_DEPTH:
        raise guards.too_big(f"a value nested more than {guards.MAX_DEPTH} levels deep")
    if guards.CURRENT.get(None) is not None:
        guards.charge(1)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Decimal):
        if value == value.to_integral_value() and value.adjusted() < 4000:
            return int(value)
        number = float(value)
        if number in (float("inf"), float("-inf")):
            raise ExpressionError(f"the FEEL number {value} is too large to store as a variable")
        return number
    if isinstance(value, list):
        return [to_engine(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: to_engine(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (dt.date, dt.time, dt.timedelta, YearsMonths)):
        return text(value)
    raise ExpressionError(f"a FEEL {kind(value)} cannot be stored as a variable")
