"""List functions; each charges the work budget for the items it walks or builds."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

from bpmn_engine.expressions import guards
from bpmn_engine.expressions.feel.functions.registry import builtin, items, need, whole
from bpmn_engine.expressions.feel.values import D128, FeelError, Function, compare, equal


def _charged(values: list[Any]) -> list[Any]:
    if len(values) > guards.MAX_ITEMS:
        raise guards.too_many_items()
    guards.charge(1 + len(values) // guards.ITEMS_PER_STEP)
    return values


def _numbers(values: list[Any], what: str) -> list[Decimal]:
    for value in values:
        need(value, Decimal, f"every item of {what}")
    return values


def _index_of(values: list[Any], match: Any) -> list[int]:
    return [i for i, item in enumerate(values) if equal(item, match) is True]


@builtin("list contains", "list", "element")
def list_contains(list: Any, element: Any) -> bool:
    return bool(_index_of(need(list, type([]), "list"), element))


@builtin("count", "list")
def count(list: Any) -> Decimal:
    return Decimal(len(need(list, type([]), "list")))


def _extreme(values: list[Any], sign: int, what: str) -> Any:
    if not values:
        return None
    best = values[0]
    for value in values[1:]:
        order = compare(value, best)
        if order is None:
            raise FeelError(f"{what}() needs values of one ordered kind")
        if order == sign:
            best = value
    return best


@builtin("min", "list")
def minimum(*args: Any) -> Any:
    return _extreme(_charged(items(args)), -1, "min")


@builtin("max", "list")
def maximum(*args: Any) -> Any:
    return _extreme(_charged(items(args)), 1, "max")


@builtin("sum", "list")
def total(*args: Any) -> Any:
    values = _numbers(_charged(items(args)), "sum")
    result = Decimal(0)
    for value in values:
        result = D128.add(result, value)
    return result if values else None


@builtin("mean", "list")
def mean(*args: Any) -> Any:
    values = _numbers(_charged(items(args)), "mean")
    return D128.divide(total(values), Decimal(len(values))) if values else None


@builtin("all", "list")
def every(*args: Any) -> bool | None:
    values = _charged(items(args))
    if any(v is False for v in values):
        return False
    return True if all(v is True for v in values) else None


@builtin("any", "list")
def some(*args: Any) -> bool | None:
    values = _charged(items(args))
    if any(v is True for v in values):
        return True
    return False if all(v is False for v in values) else None


@builtin("sublist", "list", "start position", "length")
def sublist(list: Any, start: Any, length: Any = None) -> list[Any]:
    values = need(list, type([]), "list")
    begin = whole(start, "start position")
    index = begin - 1 if begin > 0 else len(values) + begin
    if begin == 0 or not 0 <= index < len(values):
        raise FeelError("start position is out of the list")
    end = None if length is None else index + whole(length, "length")
    return _charged(values[index:end])


@builtin("append", "list", "item")
def append(list: Any, *added: Any) -> list[Any]:
    return _charged([*need(list, type([]), "list"), *added])


@builtin("concatenate", "list")
def concatenate(*lists: Any) -> list[Any]:
    joined: list[Any] = []
    for value in lists:
        joined.extend(_charged(need(value, type([]), "every argument of concatenate")))
        _charged(joined)
    return joined


@builtin("insert before", "list", "position", "newItem")
def insert_before(list: Any, position: Any, item: Any) -> list[Any]:
    values = [*need(list, type([]), "list")]
    index = whole(position, "position")
    at = index - 1 if index > 0 else len(values) + index
    if index == 0 or not 0 <= at < len(values):
        raise FeelError("position is out of the list")
    values.insert(at, item)
    return _charged(values)


@builtin("remove", "list", "position")
def remove(list: Any, position: Any) -> list[Any]:
    values = [*need(list, type([]), "list")]
    index = whole(position, "position")
    at = index - 1 if index > 0 else len(values) + index
    if index == 0 or not 0 <= at < len(values):
        raise FeelError("position is out of the list")
    del values[at]
    return _charged(values)


@builtin("reverse", "list")
def reverse(list: Any) -> list[Any]:
    return _charged(need(list, type([]), "list")[::-1])


@builtin("index of", "list", "match")
def index_of(list: Any, match: Any) -> list[Decimal]:
    values = _charged(need(list, type([]), "list"))
    return [Decimal(i + 1) for i in _index_of(values, match)]


def _distinct(values: list[Any]) -> list[Any]:
    kept: list[Any] = []
    for value in values:
        guards.charge(1 + len(kept) // guards.ITEMS_PER_STEP)
        if not any(equal(value, seen) is True for seen in kept):
            kept.append(value)
    return kept


@builtin("union", "list")
def union(*lists: Any) -> list[Any]:
    return _distinct(concatenate(*lists))


@builtin("distinct values", "list")
def distinct_values(list: Any) -> list[Any]:
    return _distinct(_charged(need(list, type([]), "list")))


@builtin("flatten", "list")
def flatten(list: Any) -> list[Any]:
    flat: list[Any] = []

    def walk(value: list[Any], depth: int) -> None:
        if depth > guards.MAX_DEPTH:
            raise guards.too_big(f"a value nested more than {guards.MAX_DEPTH} levels deep")
        for item in value:
            guards.charge(1)
            if isinstance(item, type([])):
                walk(item, depth + 1)
            else:
                flat.append(item)
                if len(flat) > guards.MAX_ITEMS:
                    raise guards.too_many_items()

    walk(need(list, type([]), "list"), 0)
    return flat


@builtin("product", "list")
def product(*args: Any) -> Any:
    values = _numbers(_charged(items(args)), "product")
    result = Decimal(1)
    for value in values:
        result = D128.multiply(result, value)
    return result if values else None


def _sorted_numbers(args: tuple[Any, ...], what: str) -> list[Decimal]:
    return sorted(_numbers(_charged(items(args)), what))


@builtin("median", "list")
def median(*args: Any) -> Any:
    values = _sorted_numbers(args, "median")
    if not values:
        return None
    middle = len(values) // 2
    if len(values) % 2:
        return values[middle]
    return D128.divide(D128.add(values[middle - 1], values[middle]), Decimal(2))


@builtin("stddev", "list")
def stddev(*args: Any) -> Any:
    values = _numbers(_charged(items(args)), "stddev")
    if len(values) < 2:
        return None
    average = mean(values)
    squares = Decimal(0)
    for value in values:
        difference = D128.subtract(value, average)
        squares = D128.add(squares, D128.multiply(difference, difference))
    return D128.sqrt(D128.divide(squares, Decimal(len(values) - 1)))


@builtin("mode", "list")
def mode(*args: Any) -> list[Decimal]:
    values = _sorted_numbers(args, "mode")
    counts: dict[Decimal, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        return []
    most = max(counts.values())
    return [value for value, n in counts.items() if n == most]


@builtin("sort", "list", "precedes")
def sort(list: Any, precedes: Any = None) -> list[Any]:
    values = _charged([*need(list, type([]), "list")])
    if precedes is None:

        def order(a: Any, b: Any) -> int:
            guards.charge(1)
            found = compare(a, b)
            if found is None:
                raise FeelError("sort() needs values of one ordered kind, or a function")
            return found
    else:
        need(precedes, Function, "precedes")

        def order(a: Any, b: Any) -> int:
            guards.charge(1)
            if precedes.call(a, b) is True:
                return -1
            return 1 if precedes.call(b, a) is True else 0

    return sorted(values, key=functools.cmp_to_key(order))


@builtin("list replace", "list", "position|match", "newItem")
def list_replace(list: Any, position: Any, new_item: Any) -> list[Any]:
    """DMN 1.5: replace the item at a position, or every item a match function picks
    (`function(item, newItem) ...`, which must answer true or false). A single item
    given for the list is a list of one, as the spec's implicit conversion makes it."""
    given = [list] if list is not None and not isinstance(list, type([])) else list
    values = _charged([*need(given, type([]), "list")])
    if isinstance(position, Function):
        replaced: list[Any] = []
        for item in values:
            guards.charge(1)
            verdict = position.call(item, new_item)
            if not isinstance(verdict, bool):
                raise FeelError("the match function must return true or false")
            replaced.append(new_item if verdict else item)
        return replaced
    index = whole(position, "position")
    at = index - 1 if index > 0 else len(values) + index
    if index == 0 or not 0 <= at < len(values):
        raise FeelError("position is out of the list")
    values[at] = new_item
    return values
