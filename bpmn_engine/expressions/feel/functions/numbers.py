"""Numeric functions over decimal128 numbers."""

from __future__ import annotations

import datetime as dt
import decimal
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions.feel.functions.registry import builtin, need, whole
from bpmn_engine.expressions.feel.values import D128, FeelError, YearsMonths


def _scaled(n: Any, scale: Any, rounding: str, *, truncated: bool = False) -> Decimal:
    number = need(n, Decimal, "n")
    places = whole(scale, "scale", truncated=truncated)
    if not -6111 <= places <= 6176:
        raise FeelError("scale is out of range")
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -places:  # already that precise
        return number
    return number.quantize(Decimal(1).scaleb(-places), rounding=rounding, context=D128)


@builtin("decimal", "n", "scale")
def to_decimal(n: Any, scale: Any) -> Decimal:
    """A scale with a fraction is cut to a whole number, as the DMN TCK reads it (the
    rounding functions, as it reads them, refuse one)."""
    return _scaled(n, scale, decimal.ROUND_HALF_EVEN, truncated=True)


@builtin("floor", "n", "scale")
def floor(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_FLOOR)


@builtin("ceiling", "n", "scale")
def ceiling(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_CEILING)


@builtin("round up", "n", "scale")
def round_up(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_UP)


@builtin("round down", "n", "scale")
def round_down(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_DOWN)


@builtin("round half up", "n", "scale")
def round_half_up(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_HALF_UP)


@builtin("round half down", "n", "scale")
def round_half_down(n: Any, scale: Any = Decimal(0)) -> Decimal:
    return _scaled(n, scale, decimal.ROUND_HALF_DOWN)


@builtin("abs", "n")
def absolute(n: Any) -> Decimal | dt.timedelta | YearsMonths:
    if isinstance(n, dt.timedelta):
        return abs(n)
    if isinstance(n, YearsMonths):
        return YearsMonths(abs(n.months))
    return D128.abs(need(n, Decimal, "n"))


@builtin("modulo", "dividend", "divisor")
def modulo(dividend: Any, divisor: Any) -> Decimal:
    a, b = need(dividend, Decimal, "dividend"), need(divisor, Decimal, "divisor")
    if b == 0:
        raise FeelError("modulo by zero")
    return D128.subtract(
        a, D128.multiply(b, D128.divide(a, b).to_integral_value(rounding=decimal.ROUND_FLOOR))
    )


@builtin("sqrt", "number")
def sqrt(number: Any) -> Decimal:
    value = need(number, Decimal, "number")
    if value < 0:
        raise FeelError("sqrt of a negative number")
    return D128.sqrt(value)


@builtin("log", "number")
def log(number: Any) -> Decimal:
    value = need(number, Decimal, "number")
    if value <= 0:
        raise FeelError("log of a number that is not positive")
    return D128.ln(value)


@builtin("exp", "number")
def exp(number: Any) -> Decimal:
    return D128.exp(need(number, Decimal, "number"))


@builtin("odd", "number")
def odd(number: Any) -> bool:
    value = need(number, Decimal, "number")
    return value == value.to_integral_value() and value % 2 != 0


@builtin("even", "number")
def even(number: Any) -> bool:
    value = need(number, Decimal, "number")
    return value == value.to_integral_value() and value % 2 == 0
