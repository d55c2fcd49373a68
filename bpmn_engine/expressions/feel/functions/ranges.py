"""Range functions (DMN 1.4 10.3.4.9): how points and intervals lie relative to each other.

A point is any ordered value; a range is `[a..b]` and the like, with both ends given.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions.feel.functions.registry import builtin, need
from bpmn_engine.expressions.feel.values import (
    FeelError,
    Range,
    compare,
    kind,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_temporal,
    parse_time,
    unquote,
)


class _Unbounded:
    """The end a range leaves out (`< 10` has no start): below, or above, every point."""

    def __init__(self, rank: int) -> None:
        self.rank = rank


_BELOW, _ABOVE = _Unbounded(-1), _Unbounded(1)


def _c(a: Any, b: Any) -> int:
    if isinstance(a, _Unbounded) or isinstance(b, _Unbounded):
        return (a.rank if isinstance(a, _Unbounded) else 0) - (
            b.rank if isinstance(b, _Unbounded) else 0
        )
    found = compare(a, b)
    if found is None:
        raise FeelError("range functions need values of one ordered kind")
    return found


def _range(value: Range) -> Range:
    """The range with its left-out ends unbounded: `before(< 5, 6)` holds, `after(< 5, 6)`
    does not, as the spec's formulas give with an end below or above every point."""
    return Range(
        _BELOW if value.start is None else value.start,
        _ABOVE if value.end is None else value.end,
        value.start_included,
        value.end_included,
    )


def _point_or_range(function: Any) -> Any:
    """Dispatch on which arguments are ranges: (p, p), (p, r), (r, p), (r, r)."""

    def dispatch(a: Any, b: Any) -> bool:
        if a is None or b is None:
            raise FeelError("range functions need two values")
        shape = (isinstance(a, Range), isinstance(b, Range))
        a = _range(a) if shape[0] else a
        b = _range(b) if shape[1] else b
        return function(shape, a, b)

    return dispatch


@_point_or_range
def _before(shape: tuple[bool, bool], a: Any, b: Any) -> bool:
    if shape == (False, False):
        return _c(a, b) < 0
    if shape == (False, True):
        return _c(a, b.start) < 0 or (_c(a, b.start) == 0 and not b.start_included)
    if shape == (True, False):
        return _c(a.end, b) < 0 or (_c(a.end, b) == 0 and not a.end_included)
    order = _c(a.end, b.start)
    return order < 0 or (order == 0 and not (a.end_included and b.start_included))


@builtin("before", "point1", "point2")
def before(a: Any, b: Any) -> bool:
    return _before(a, b)


@builtin("after", "point1", "point2")
def after(a: Any, b: Any) -> bool:
    return _before(b, a)


def _ranges(a: Any, b: Any) -> tuple[Range, Range]:
    if not isinstance(a, Range) or not isinstance(b, Range):
        raise FeelError("this range function needs two ranges")
    return _range(a), _range(b)


@builtin("meets", "range1", "range2")
def meets(a: Any, b: Any) -> bool:
    r, s = _ranges(a, b)
    return r.end_included and s.start_included and _c(r.end, s.start) == 0


@builtin("met by", "range1", "range2")
def met_by(a: Any, b: Any) -> bool:
    return meets(b, a)


@builtin("overlaps", "range1", "range2")
def overlaps(a: Any, b: Any) -> bool:
    r, s = _ranges(a, b)
    end_start, start_end = _c(r.end, s.start), _c(r.start, s.end)
    return (end_start > 0 or (end_start == 0 and r.end_included and s.start_included)) and (
        start_end < 0 or (start_end == 0 and r.start_included and s.end_included)
    )


@builtin("overlaps before", "range1", "range2")
def overlaps_before(a: Any, b: Any) -> bool:
    r, s = _ranges(a, b)
    starts, end_start, ends = _c(r.start, s.start), _c(r.end, s.start), _c(r.end, s.end)
    return (
        (starts < 0 or (starts == 0 and r.start_included and not s.start_included))
        and (end_start > 0 or (end_start == 0 and r.end_included and s.start_included))
        and (ends < 0 or (ends == 0 and (not r.end_included or s.end_included)))
    )


@builtin("overlaps after", "range1", "range2")
def overlaps_after(a: Any, b: Any) -> bool:
    return overlaps_before(b, a)


@_point_or_range
def _finishes(shape: tuple[bool, bool], a: Any, b: Any) -> bool:
    if shape == (False, True):
        return b.end_included and _c(b.end, a) == 0
    if shape != (True, True):
        raise FeelError("finishes needs a point or range, then a range")
    starts = _c(a.start, b.start)
    return (
        a.end_included == b.end_included
        and _c(a.end, b.end) == 0
        and (starts > 0 or (starts == 0 and (not a.start_included or b.start_included)))
    )


@builtin("finishes", "point", "range")
def finishes(a: Any, b: Any) -> bool:
    return _finishes(a, b)


@builtin("finished by", "range", "point")
def finished_by(a: Any, b: Any) -> bool:
    return _finishes(b, a)


@_point_or_range
def _includes(shape: tuple[bool, bool], a: Any, b: Any) -> bool:
    if shape == (True, False):
        low, high = _c(a.start, b), _c(b, a.end)
        return (low < 0 or (low == 0 and a.start_included)) and (
            high < 0 or (high == 0 and a.end_included)
        )
    if shape != (True, True):
        raise FeelError("includes needs a range, then a point or range")
    starts, ends = _c(a.start, b.start), _c(a.end, b.end)
    return (starts < 0 or (starts == 0 and (a.start_included or not b.start_included))) and (
        ends > 0 or (ends == 0 and (a.end_included or not b.end_included))
    )


@builtin("includes", "range", "point")
def includes(a: Any, b: Any) -> bool:
    return _includes(a, b)


@builtin("during", "point", "range")
def during(a: Any, b: Any) -> bool:
    return _includes(b, a)


@_point_or_range
def _starts(shape: tuple[bool, bool], a: Any, b: Any) -> bool:
    if shape == (False, True):
        return b.start_included and _c(b.start, a) == 0
    if shape != (True, True):
        raise FeelError("starts needs a point or range, then a range")
    ends = _c(a.end, b.end)
    return (
        _c(a.start, b.start) == 0
        and a.start_included == b.start_included
        and (ends < 0 or (ends == 0 and (not a.end_included or b.end_included)))
    )


@builtin("starts", "point", "range")
def starts(a: Any, b: Any) -> bool:
    return _starts(a, b)


@builtin("started by", "range", "point")
def started_by(a: Any, b: Any) -> bool:
    return _starts(b, a)


@_point_or_range
def _coincides(shape: tuple[bool, bool], a: Any, b: Any) -> bool:
    if shape == (False, False):
        return _c(a, b) == 0
    if shape != (True, True):
        raise FeelError("coincides needs two points or two ranges")
    return (
        _c(a.start, b.start) == 0
        and _c(a.end, b.end) == 0
        and a.start_included == b.start_included
        and a.end_included == b.end_included
    )


@builtin("coincides", "point1", "point2")
def coincides(a: Any, b: Any) -> bool:
    return _coincides(a, b)


# A range literal's end point, as `range(from)` reads it (DMN 1.5, the range function): a number, a
# string, an `@"..."` literal, or date/time/duration built-ins over one string literal
_STRING = r'"(?:[^"\\]|\\.)*"'
_POINT = (
    rf"-?\d+(?:\.\d+)?|-?\.\d+|{_STRING}|@{_STRING}"
    rf"|(?:date and time|date|time|duration)\(\s*{_STRING}\s*\)"
)
# either end may be left out (`[2..)`: from 2 on), and `]` opens or `[` closes an open end
_INTERVAL = re.compile(rf"([\[(\]])\s*({_POINT})?\s*\.\.\s*({_POINT})?\s*([\])\[])", re.DOTALL)
_READERS = {
    "date and time": parse_date_time,
    "date": parse_date,
    "time": parse_time,
    "duration": parse_duration,
}


def _point(source: str) -> Any:
    if source.startswith("@"):
        return parse_temporal(unquote(source[1:]))
    if source.startswith('"'):
        return unquote(source)
    function, quoted = source.split("(", 1) if "(" in source else ("", "")
    if function:
        return _READERS[function](unquote(quoted.rstrip()[:-1].strip()))
    return Decimal(source)


@builtin("range", "from")
def range_(source: Any) -> Range:
    """A range from its literal text (DMN 1.5): `"[1..10)"`, `"]1..10]"`, `"[2..)"` (from
    2 on), `"(..2)"` (below 2), with ends that are numbers, strings, `@"..."` literals or
    `date`/`time`/`date and time`/`duration` of a string literal; null for anything else,
    for ends of two kinds, and for a unary comparison (`">= 5"`: the TCK reads it so)."""
    text = need(source, str, "from").strip()
    found = _INTERVAL.fullmatch(text)
    if found is None:
        raise FeelError(f"range({text!r}): not a range literal such as [1..10] or [2..)")
    opening, low, high, closing = found.groups()
    if low is None and high is None:
        raise FeelError(f"range({text!r}): a range needs at least one end")
    if (low is None and opening == "[") or (high is None and closing == "]"):
        raise FeelError(f"range({text!r}): an end left out cannot be included")
    try:
        start = _point(low) if low is not None else None
        end = _point(high) if high is not None else None
    except (ValueError, ArithmeticError) as error:
        raise FeelError(f"range({text!r}): {error}") from None
    if start is not None and end is not None and compare(start, end) is None:
        raise FeelError("a range's ends must be of one ordered kind")
    for point in (start, end):
        if point is not None and compare(point, point) is None:
            raise FeelError(f"a {kind(point)} has no order")
    return Range(
        start, end, opening == "[" and start is not None, closing == "]" and end is not None
    )
