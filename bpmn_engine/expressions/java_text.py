"""A value written into text as a JVM engine writes it (Java's `toString`, null as the empty
string): jBPM's data input values (`#{path}`) and JUEL's text with expressions in it
(`invoice-${id}`, EL's coercion to String)."""

from __future__ import annotations

import math
from typing import Any

from bpmn_engine.errors import ExpressionError


def java_text(value: Any, expression: str, engine: str = "jBPM") -> str:
    """`value` as Java's `toString` writes it, where Python writes it the same way; any
    other value is refused (naming `expression`) rather than written differently."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # over Python's digit limit for int-to-text
            raise ExpressionError(f"{expression} is a whole number too long to write") from None
    if (
        isinstance(value, float)
        and math.isfinite(value)
        and (not value or 1e-3 <= abs(value) < 1e7)
    ):
        return repr(value)  # Java's Double.toString in this range: 12.5, 0.001, 1234567.0
    raise ExpressionError(
        f"{expression} is {type(value).__name__} {value!r}: {engine} would write it with "
        "Java's toString, which bpmn-engine does not imitate for this value; give a string or "
        "a number"
    )
