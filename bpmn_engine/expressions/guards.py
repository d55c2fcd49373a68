"""Runtime guards of the sandboxed Python subset: the only functions sandboxed code can reach.

The sandbox compiler (`sandbox.py`) rewrites every operation whose cost or result size depends on
the data (calls, method calls, attribute reads, loops, comprehensions, `*`, `**`, `<<`, `+`, `%`,
slices, f-strings, comparisons of unknown operands) into a call of one of the `guard_*` functions
here. Each one charges the evaluation's work budget and refuses results over the size caps, so a
hostile diagram fails fast with ExpressionError instead of hanging or exhausting memory.

The budget of the running evaluation lives in a ContextVar, so evaluations stay independent
across threads and nested calls.
"""

from __future__ import annotations

import math
import re
import time
import types
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from bpmn_engine.errors import ExpressionError

MAX_STEPS = 1_000_000
"""Work units one evaluation may spend: loop iterations, calls, and 1 per ITEMS_PER_STEP items."""
ITEMS_PER_STEP = 10
"""An operation over n items (a sort, a copy, a concatenation) costs 1 + n // ITEMS_PER_STEP,
so one evaluation builds at most about MAX_STEPS * ITEMS_PER_STEP items in all."""
MAX_SIZE = 10_000_000
"""Most elements or characters a single value built by sandboxed code may have."""
MAX_INT_BITS = 100_000
"""Largest integer sandboxed arithmetic may build (about 30,000 decimal digits)."""
MAX_NESTED_ITEMS = 1_000_000
"""Most items (counted through nesting and sharing) in a value that is formatted or returned."""
MAX_DEPTH = 200
"""Deepest nesting of lists/dicts in a value that is formatted or returned."""
MAX_FORMAT_WIDTH = 10_000
"""Largest width or precision in an f-string format spec."""
MAX_SECONDS = 5.0
"""Wall-clock backstop for operations the step count cannot see (e.g. hashing huge tuples)."""

CURRENT: ContextVar[Budget] = ContextVar("bpmn_expression_budget")


class Budget:
    """The work an evaluation has spent; every charge checks the step limit and the clock."""

    __slots__ = ("deadline", "steps")

    def __init__(self) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + MAX_SECONDS

    def fail(self) -> None:
        if self.steps > MAX_STEPS:
            raise ExpressionError(f"evaluation exceeded the work limit of {MAX_STEPS:,} steps")
        raise ExpressionError(f"evaluation exceeded the work limit of {MAX_SECONDS:g} seconds")


def charge(steps: int) -> None:
    budget = CURRENT.get()
    budget.steps += steps
    if budget.steps > MAX_STEPS or time.monotonic() > budget.deadline:
        budget.fail()


def too_big(what: str) -> ExpressionError:
    return ExpressionError(f"evaluation exceeded the work limit: {what}")


SIZED = frozenset(
    {str, bytes, list, tuple, dict, set, frozenset, range}
    | {type({}.keys()), type({}.values()), type({}.items())}
)
LAZY = (zip, enumerate)
_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_SEQUENCES = (str, bytes, list, tuple)


def size(value: Any) -> int:
    """Items, characters or 64-bit words in `value`: what an operation over it costs."""
    kind = type(value)
    if kind is int:
        return value.bit_length() >> 6
    if kind in SIZED:
        try:
            return len(value)
        except OverflowError:  # range(10**20)
            return 2**63
    return 0


def check_size(count: int, what: str = "a value") -> None:
    if count > MAX_SIZE:
        raise too_big(f"{what} would have {count:,} items (limit {MAX_SIZE:,})")


def check_bits(bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise too_big(f"an integer of about {bits:,} bits (limit {MAX_INT_BITS:,})")


def counted(items: Any) -> Iterator[Any]:
    """Iterate while charging one step per item: how loops and lazy iterators are bounded."""
    budget = CURRENT.get()
    for item in items:
        budget.steps += 1
        if budget.steps > MAX_STEPS or time.monotonic() > budget.deadline:
            budget.fail()
        yield item


def nested_items(value: Any, limit: int = MAX_NESTED_ITEMS) -> int:
    """Items in `value` counted through nesting and sharing (as JSON or str() would write them).

    Iterative, so a deep value cannot blow the stack here; too deep a value is refused, since
    storing it as JSON (recursive) would.
    """
    count = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > limit:
            raise too_big(f"a value with more than {limit:,} nested items (or a cycle)")
        if depth > MAX_DEPTH:
            raise too_big(f"a value nested more than {MAX_DEPTH} levels deep")
        if isinstance(item, dict):
            stack.extend((key, depth + 1) for key in item)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend((child, depth + 1) for child in item)
    charge(1 + count // ITEMS_PER_STEP)
    return count


_SCALARS = frozenset({bool, int, float, str, type(None)})


def materialize(value: Any) -> Any:
    """Turn lazy results (generators, views, zip, range) into lists so they can be stored."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, (types.GeneratorType, *LAZY, range, *_VIEWS)):
        check_size(size(value))
        return list(counted(value))
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        nested_items(value)
    return value


# --- operators -----------------------------------------------------------------------------
def guard_touch(value: Any) -> Any:
    """Charge for an operand whose comparison or arithmetic is linear in its size."""
    count = size(value)
    if count >= ITEMS_PER_STEP:  # small operands cost nothing extra: loops pay per iteration
        charge(count // ITEMS_PER_STEP)
    return value


def guard_while(value: Any) -> Any:
    """One step per `while` test, so `while True: pass` ends."""
    charge(1)
    return value


def guard_add(left: Any, right: Any) -> Any:
    if type(left) is int and type(right) is int:
        check_bits(max(left.bit_length(), right.bit_length()) + 1)
        return left + right
    total = size(left) + size(right)
    if type(left) in SIZED:
        check_size(total)
    charge(1 + total // ITEMS_PER_STEP)
    return left + right


def guard_mul(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, _SEQUENCES):
        left, right = right, left
    if isinstance(left, _SEQUENCES) and isinstance(right, int):
        total = len(left) * max(right, 0)
        check_size(total)
        charge(1 + total // ITEMS_PER_STEP)
    elif isinstance(left, int) and isinstance(right, int):
        bits = left.bit_length() + right.bit_length()
        check_bits(bits)
        charge(1 + bits // (64 * ITEMS_PER_STEP))
    return left * right


def guard_pow(base: Any, exponent: Any) -> Any:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        bits = math.ceil(math.log2(abs(base)) * exponent)
        check_bits(bits)
        charge(1 + bits // (64 * ITEMS_PER_STEP))
    return base**exponent


def guard_lshift(value: Any, shift: Any) -> Any:
    if isinstance(value, int) and isinstance(shift, int) and value and shift > 0:
        check_bits(value.bit_length() + shift)
    return value << shift


def guard_mod(left: Any, right: Any) -> Any:
    if isinstance(left, (str, bytes)):
        raise ExpressionError("'%' string formatting is not supported; use an f-string")
    charge(1)
    return left % right


def guard_slice(value: Any, lower: Any, upper: Any, step: Any) -> Any:
    part = slice(lower, upper, step)
    if type(value) in SIZED:
        charge(1 + len(range(*part.indices(len(value)))) // ITEMS_PER_STEP)
    return value[part]


def guard_unpack(value: Any) -> Any:
    """`*value` and `**value` in displays and calls: bounded like any other copy."""
    if isinstance(value, LAZY):
        return counted(value)
    count = size(value)
    check_size(count)
    charge(1 + count // ITEMS_PER_STEP)
    return value


# --- f-strings -----------------------------------------------------------------------------
_NUMBER = re.compile(r"\d+")


def check_text(value: Any) -> None:
    """Refuse to format containers whose text would be huge (shared or cyclic nesting)."""
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        nested = nested_items(value)
        check_size(nested, "the text")


def guard_format(value: Any, conversion: int, spec: str) -> str:
    """One `{value!conversion:spec}` field of an f-string."""
    check_text(value)
    if conversion == ord("r"):
        value = repr(value)
    elif conversion == ord("s"):
        value = str(value)
    elif conversion == ord("a"):
        value = ascii(value)
    for number in _NUMBER.findall(spec):
        if len(number) > 6 or int(number) > MAX_FORMAT_WIDTH:
            raise too_big(f"format width {number} (limit {MAX_FORMAT_WIDTH:,})")
    text = format(value, spec)
    check_size(len(text), "the text")
    return text


def guard_fstring(*parts: str) -> str:
    check_size(sum(map(len, parts)), "the text")
    return "".join(parts)
