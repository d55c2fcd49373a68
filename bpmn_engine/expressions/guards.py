"""Runtime guards of the sandboxed Python subset: the only functions sandboxed code can reach.

The sandbox compiler (`sandbox.py`) rewrites every operation whose cost or result size depends on
the data (calls, method calls, attribute reads, loops, comprehensions, `*`, `**`, `<<`, `+`, `%`,
slices, f-strings, comparisons of unknown operands) into a call of one of the `guard_*` functions
here. Each one charges the evaluation's work budget and refuses results over the size caps, so a
hostile diagram fails fast with ExpressionError instead of hanging or exhausting memory.

The budget of the running evaluation lives in a ContextVar, so evaluations stay independent
across threads and nested calls.

Why the step count and the clock are enough to stop any evaluation: both are checked at every
loop iteration and every guarded operation, so they are checked at least every few C calls,
and `weigh` and `check_hashes` below keep each of those C calls cheap. A comparison, hash,
sort or repr runs in C, recursively, where neither the budget nor a signal (Ctrl-C, SIGTERM:
Python runs handlers between bytecodes) can stop it, so what the sandbox builds is bounded
where it is built; see `weigh`.
"""

from __future__ import annotations

import math
import operator
import re
import time
import types
from collections import Counter
from collections.abc import Callable, Iterator
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
MAX_INT_BITS = 14_000
"""Largest integer sandboxed code may build (about 4,200 decimal digits): under Python's
4,300-digit limit on int-to-text, so every integer it builds can be written as JSON."""
MAX_ITEMS = 1_000_000
"""Most items in any list, tuple, dict or set built by sandboxed code, and in a value that is
formatted or returned, counted through nesting and sharing (see `weigh`)."""
MAX_DEPTH = 200
"""Deepest nesting of lists, tuples, dicts and sets sandboxed code may build, format or return:
the store's JSON cannot hold much deeper, and C hashes a tuple recursively with no depth check
(a tuple nested 200,000 deep crashed the process)."""
MAX_COLLISIONS = 8
"""Most distinct values sharing one hash in a set or dict (or in the items a set or dict is
about to be built from). Honest data has at most 2 (hash(-1) == hash(-2)); ints that differ by
a multiple of 2**61 - 1, or tuples solved for a hash, can all collide, and then building or
comparing n of them costs n * n in one C call."""
HASHED_FREELY = 2_048
"""Sets and dicts smaller than this are not checked for collisions: at worst 2,048 * 2,048 / 2
probes in one C call (about 30 ms), less than checking would cost on every small set."""
MAX_FORMAT_WIDTH = 10_000
"""Largest width or precision in an f-string format spec."""
MAX_SECONDS = 5.0
"""Wall-clock backstop for work the step count undercharges (slow C calls on big values):
checked at every charge, which comes at least every few bounded C calls."""

CURRENT: ContextVar[Budget] = ContextVar("bpmn_expression_budget")


class Budget:
    """The work an evaluation has spent; every charge checks the step limit and the clock."""

    __slots__ = ("deadline", "mutated", "printed", "steps")

    def __init__(self, printed: list[str] | None = None) -> None:
        self.steps = 0
        self.deadline = time.monotonic() + MAX_SECONDS
        self.mutated = False  # a script changed a container in place: see `guard_touch`
        self.printed = printed  # where a script's `print` writes (None: nowhere)

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


def too_many_items() -> ExpressionError:
    return too_big(
        f"a value with more than {MAX_ITEMS:,} items, counting nested and shared ones "
        f"(limit {MAX_ITEMS:,})"
    )


SIZED = frozenset(
    {str, bytes, list, tuple, dict, set, frozenset, range}
    | {type({}.keys()), type({}.values()), type({}.items())}
)
NESTING = (list, tuple, dict, set, frozenset)
_PLAIN = frozenset({list, tuple, set, frozenset})
_SCALAR_TYPES = frozenset({str, int, float, bool, type(None), bytes, range})


class Zipped:
    """`zip(a, b, ...)` in the sandbox: each tuple it makes is weighed, since zip(x, x) shares
    x's items and zip(zip(x, x), zip(x, x)) nested k deep would double W k times."""

    __slots__ = ("pairs",)

    def __init__(self, *iterables: Any, strict: bool = False) -> None:
        self.pairs = zip(*iterables, strict=strict)

    def __iter__(self) -> Zipped:
        return self

    def __next__(self) -> tuple[Any, ...]:
        item = next(self.pairs)
        for part in item:
            if isinstance(part, NESTING):
                weigh(item)
                break
        return item


LAZY = (zip, enumerate, Zipped)
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


def weigh(value: Any, limit: int = MAX_ITEMS) -> int:
    """Items in `value` counted through nesting and sharing; refused past `limit` or MAX_DEPTH.

    This is the bound that keeps every C operation over a value cheap. A recursive comparison,
    hash or repr in C follows every path from the root, and the number of paths is this count
    W(v) = 1 + the sum of W over the items (dict keys and values both), a shared item counted
    each time it is reached. `a == b` descends both sides together, so it visits at most
    min(W(a), W(b)) pairs; `hash(t)` visits W(t) nodes. Depth or length caps alone do not
    bound W: `a = [a, a]` done 40 times is 41 lists deep and 2 wide, yet W = 2**41; only a
    cap on W itself is a bound, and since a value deeper than d has W > d, it bounds depth too
    (MAX_DEPTH is the tighter cap, for the stack of C's hash and of the store's JSON).

    Every list, tuple, dict and set the sandbox builds is weighed when it is built, so W stays
    under MAX_ITEMS. Weighing visits each distinct container once (a shared one is looked up,
    not walked again), so it costs the value's size in memory, not W, and is charged to the
    budget; a cycle shows up as a path deeper than MAX_DEPTH. Variables come in as trees
    decoded from JSON, with no sharing. Big sets and dicts are also checked for collisions.
    """
    if not isinstance(value, NESTING):
        return 1
    if len(value) <= ITEMS_PER_STEP:
        if _is_flat(value):
            return 1 + len(value) * (2 if type(value) is dict else 1)  # a small flat display
        small = _small_weight(value, 0)
        if small:
            return small[0]
    known: dict[int, tuple[int, int]] = {}  # id -> (W, height): each container weighed once
    stack: list[tuple[Any, int, bool]] = [(value, 1, False)]
    work = 0
    tally = [0]  # items inside small children, weighed by `_weigh_small_children`
    try:
        while stack:
            item, depth, ready = stack.pop()
            if not ready and id(item) in known:  # shared: reached again, weighed already
                _check_depth(depth - 1 + known[id(item)][1])
                continue
            _check_depth(depth)
            children = [*item, *item.values()] if isinstance(item, dict) else item
            work += len(children)
            if _SCALAR_TYPES.issuperset(map(type, children)):
                total, height = 1 + len(children), 1  # flat: the common case, at C speed
            elif not ready and _weigh_small_children(children, known, depth, tally):
                stack.append((item, depth, True))  # come back when the children are weighed
                nested = [c for c in children if isinstance(c, NESTING) and id(c) not in known]
                stack.extend((child, depth + 1, False) for child in nested)
                continue
            else:
                total, height = 1, 1
                for child in children:
                    if isinstance(child, NESTING):
                        weight, below = known[id(child)]
                        total += weight
                        height = max(height, below + 1)
                    else:
                        total += 1
            if total > limit:
                raise too_many_items()
            _check_depth(depth - 1 + height)
            known[id(item)] = (total, height)
            if isinstance(item, (dict, set, frozenset)) and len(item) >= HASHED_FREELY:
                check_hashes(item, distinct=True)
    finally:
        if CURRENT.get(None) is not None:  # a display of variables alone runs with no budget
            charge(1 + (work + tally[0]) // ITEMS_PER_STEP)
    return known[id(value)][0]


def _is_flat(value: Any) -> bool:
    """A plain list, tuple, set or dict holding scalars only (checked at C speed)."""
    kind = type(value)
    if kind is dict:
        keys, values = map(type, value), map(type, value.values())
        return _SCALAR_TYPES.issuperset(keys) and _SCALAR_TYPES.issuperset(values)
    return kind in _PLAIN and _SCALAR_TYPES.issuperset(map(type, value))


_SMALL = 4 * ITEMS_PER_STEP


def _small_weight(value: Any, depth: int) -> tuple[int, int] | None:
    """(W, height) of a small, shallow plain value (a row like {'id': i, 'tags': [t]}), or
    None. Plain recursion, bounded by _SMALL items and 3 levels: most values built in a loop
    are like this, and this weighs them at a fraction of the cost of `weigh`'s general walk."""
    kind = type(value)
    if depth > 2 or len(value) > ITEMS_PER_STEP:
        return None
    if kind is dict:
        if not _SCALAR_TYPES.issuperset(map(type, value)):
            return None
        total, children = 1 + len(value), value.values()
    elif kind in _PLAIN:
        total, children = 1, value
    else:
        return None
    height = 1
    for child in children:
        if type(child) in _SCALAR_TYPES or not isinstance(child, NESTING):
            total += 1  # a leaf (FEEL's too: a Decimal, a date, a duration)
            continue
        found = _small_weight(child, depth + 1)
        if found is None:
            return None
        total += found[0]
        height = max(height, found[1] + 1)
        if total > _SMALL:
            return None
    return total, height


def _weigh_small_children(
    children: Any, known: dict[int, tuple[int, int]], depth: int, tally: list[int]
) -> bool:
    """Weigh the small containers among `children` at once (into `known`); True when some
    are not small, so the general walk must visit them. `tally[0]` counts the items visited.
    """
    rest = False
    for child in children:
        if isinstance(child, NESTING) and id(child) not in known:
            found = _small_weight(child, 0)
            if found is None:
                rest = True
            else:
                _check_depth(depth + found[1])
                known[id(child)] = found
                tally[0] += found[0]
    return rest


def _check_depth(depth: int) -> None:
    if depth > MAX_DEPTH:
        raise too_big(f"a value nested more than {MAX_DEPTH} levels deep")


def check_hashes(items: Any, *, distinct: bool = False) -> None:
    """Refuse items where more than MAX_COLLISIONS different values share a hash.

    Run before C builds a set or dict from a sequence (one uninterruptible call that costs
    n * n when all n items collide), and on every big set or dict the sandbox builds, so that
    each later lookup in it costs at most MAX_COLLISIONS comparisons. Hashes are counted at C
    speed; only a crowded hash is looked at closer, since equal items (duplicates in a list)
    share a hash without colliding. `distinct`: the items are a set's or dict's keys already.
    """
    try:
        counts = Counter(map(hash, items))
    except TypeError:  # unhashable: the set or dict itself will say so
        return
    if not counts or max(counts.values()) <= MAX_COLLISIONS:
        return
    if distinct:
        raise _collisions()
    buckets: dict[int, list[Any]] = {h: [] for h, n in counts.items() if n > MAX_COLLISIONS}
    for item in items:
        bucket = buckets.get(hash(item))
        if bucket is None or any(item is other or item == other for other in bucket):
            continue
        bucket.append(item)
        if len(bucket) > MAX_COLLISIONS:
            raise _collisions()


def _collisions() -> ExpressionError:
    return too_big(
        f"more than {MAX_COLLISIONS} different values with the same hash in a set or dict "
        f"(limit {MAX_COLLISIONS})"
    )


_HASHED = (set, frozenset, dict, str, bytes, type({}.keys()))


def check_hashing(items: Any) -> None:
    """Before C builds a hash table from `items` in one call: refuse a collision attack.

    Sets, dicts and their keys were checked when built (or hold JSON's strings, whose hashes
    are salted), unless a script has since added to them in place; lazy items are fed to C one
    by one through `counted`, which checks the clock.
    """
    if type(items) not in SIZED or size(items) < HASHED_FREELY:
        return
    if not isinstance(items, _HASHED):
        check_hashes(items)
    elif isinstance(items, (set, frozenset, dict)) and CURRENT.get().mutated:
        check_hashes(items, distinct=True)


def guard_built(value: Any) -> Any:
    """A display, comprehension or constructor result: weighed, so it stays cheap to use."""
    if isinstance(value, NESTING):
        weigh(value)
    return value


def nested_items(value: Any, limit: int = MAX_ITEMS) -> int:
    """Items in a value that is formatted or returned: `weigh` (through nesting and sharing)."""
    return weigh(value, limit)


_SCALARS = frozenset({bool, int, float, str, type(None)})


def materialize(value: Any) -> Any:
    """Turn lazy results (generators, views, zip, range) into lists so they can be stored."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, (types.GeneratorType, *LAZY, range, *_VIEWS)):
        check_size(size(value))
        value = list(counted(value))
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        nested_items(value)
    return value


# --- operators -----------------------------------------------------------------------------
def guard_touch(value: Any) -> Any:
    """Charge for an operand whose comparison or arithmetic is linear in its size.

    Once a script has changed a container in place (`mutated`), what it built may have grown
    past MAX_ITEMS without being rebuilt: `b = [a, a]` then `a.append(x)` grows `b`, which no
    guard sees. From then on operands are weighed here, before C compares them.
    """
    if isinstance(value, NESTING) and CURRENT.get().mutated:
        weigh(value)  # charges for what it visits: at least the size
        return value
    count = size(value)
    if count >= ITEMS_PER_STEP:  # small operands cost nothing extra: loops pay per iteration
        charge(count // ITEMS_PER_STEP)
    return value


def guard_dirty(value: Any) -> Any:
    """`value[k] = v` in a script: from now on operands are weighed (see `guard_touch`)."""
    CURRENT.get().mutated = True
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
    if isinstance(left, NESTING) and isinstance(right, NESTING):  # W(a + b) = W(a) + W(b) - 1
        weigh(right, MAX_ITEMS + 1 - weigh(left))
    return left + right


def guard_mul(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, _SEQUENCES):
        left, right = right, left
    if isinstance(left, _SEQUENCES) and isinstance(right, int):
        total = len(left) * max(right, 0)
        check_size(total)
        charge(1 + total // ITEMS_PER_STEP)
        if isinstance(left, NESTING) and right > 1:  # W(a * n) = 1 + n * (W(a) - 1)
            weigh(left, 1 + (MAX_ITEMS - 1) // right)
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


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "-": operator.sub,
    "/": operator.truediv,
    "//": operator.floordiv,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    ">>": operator.rshift,
}


def guard_binop(symbol: str, left: Any, right: Any) -> Any:
    """`left symbol right` for the other operators: ints stay small, set and dict results are
    weighed (a union is a new hash table, with new collisions)."""
    guard_touch(left)
    guard_touch(right)
    if symbol == "-" and type(left) is int and type(right) is int:
        check_bits(max(left.bit_length(), right.bit_length()) + 1)
    result = _BINARY[symbol](left, right)
    if isinstance(result, (set, frozenset, dict)):
        weigh(result)
    return result


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


def guard_unpack_hashed(value: Any) -> Any:
    """`*value` in a set display: C hashes it all in one call, so collisions are refused first."""
    value = guard_unpack(value)
    check_hashing(value)
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
