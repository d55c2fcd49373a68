"""Calls, methods and attribute reads in the sandbox: only allow-listed functions are reachable.

`f(x)` may call only the functions in SAFE_BUILTINS (wrapped where the plain builtin could be
abused: `str` of a huge nested value, `sum` concatenating lists, `round` to a billion digits);
`v.m(x)` only allow-listed methods of str/list/tuple/dict/set, found by exact type, never by
`getattr` on arbitrary names; `v.k` only reads key "k" of a dict. Mutating methods are offered
to scripts only, so a condition cannot change the variables it reads.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from bpmn_engine.errors import ExpressionError
from bpmn_engine.expressions.guards import (
    CURRENT,
    HASHED_FREELY,
    ITEMS_PER_STEP,
    LAZY,
    MAX_ITEMS,
    NESTING,
    SIZED,
    Zipped,
    charge,
    check_bits,
    check_hashing,
    check_size,
    check_text,
    counted,
    size,
    too_big,
    too_many_items,
    weigh,
)

_TEMPORAL_FIELDS = {
    dt.datetime: frozenset({"year", "month", "day", "hour", "minute", "second", "microsecond"}),
    dt.date: frozenset({"year", "month", "day"}),
    dt.timedelta: frozenset({"days", "seconds", "microseconds"}),
}


def guard_attr(value: Any, name: str) -> Any:
    """`a.b` reads key "b" of a dict (dotted paths over JSON); of a `datetime`, `date` or
    `timedelta`, a field (`due.year`, `gap.days`); nothing else has attributes."""
    if isinstance(value, dict):
        try:
            return value[name]
        except KeyError:
            raise ExpressionError(f"unknown key {name!r}") from None
    if name in _TEMPORAL_FIELDS.get(type(value), ()):
        return getattr(value, name)
    raise ExpressionError(f"{type(value).__name__!r} object has no attribute {name!r}")


def guard_setattr(target: Any, name: str, value: Any) -> None:
    """`a.b = v` in a script sets key "b" of the dict `a`."""
    if not isinstance(target, dict):
        raise ExpressionError(f"cannot set attribute {name!r} on a {type(target).__name__!r}")
    CURRENT.get().mutated = True
    target[name] = value


def _sandbox_str(value: Any = "") -> str:
    check_text(value)
    text = str(value)
    check_size(len(text), "a string")
    return text


def _sandbox_sum(items: Any, start: Any = 0) -> Any:
    if isinstance(start, bool) or not isinstance(start, (int, float, complex)):
        raise ExpressionError("sum() adds numbers only; use a comprehension to join lists")
    total = sum(items, start)
    if type(total) is int:
        check_bits(total.bit_length())
    return total


def _sandbox_int(*args: Any, **kwargs: Any) -> int:
    """int(): `int('1' * 99999, 2)` is not held by Python's 4,300-digit limit (base 2)."""
    number = int(*args, **kwargs)
    check_bits(number.bit_length())
    return number


def _sandbox_zip(*iterables: Any, strict: bool = False) -> Any:
    """zip(): with two or more inputs a tuple holds one item of each, so it could weigh up
    to their sum. When the inputs are containers that weigh MAX_ITEMS together, no tuple can
    weigh more (weighed once, here); otherwise each tuple is weighed as it is made (`Zipped`).
    """
    if len(iterables) < 2 or _fit_together(iterables):
        return zip(*iterables, strict=strict)
    return Zipped(*iterables, strict=strict)


def _fit_together(iterables: tuple[Any, ...]) -> bool:
    total = 0
    for items in iterables:
        if isinstance(items, NESTING):
            if len(items) > MAX_ITEMS:
                return False
            try:
                total += weigh(items)
            except ExpressionError:  # too big to weigh at once: weigh tuple by tuple
                return False
        elif type(items) in (str, range):
            total += 1  # one character or int in each tuple
        else:
            return False  # lazy: its items are not known yet
    return total < MAX_ITEMS


def _sandbox_round(number: Any, ndigits: int | None = None) -> Any:
    if ndigits is not None and isinstance(ndigits, int) and abs(ndigits) > 1_000:
        raise too_big(f"round() to {ndigits:,} digits")
    return round(number, ndigits)


def _sandbox_reversed(items: Any) -> list[Any]:
    return list(reversed(items))


MAX_PRINTED = 10_000
"""Characters a script may print in one run; the rest is dropped, and said."""


def _sandbox_print(*values: Any, sep: Any = " ", end: Any = "\n", **_: Any) -> None:
    """A script's `print`, kept for the step's history (`script.printed`), never written to
    the engine's own output; an expression's goes nowhere."""
    printed = CURRENT.get().printed
    if printed is None:
        return
    text = str(sep).join(_sandbox_str(value) for value in values) + str(end)
    charge(len(text) // 10 + 1)
    keep_printed(printed, text)


def keep_printed(printed: list[str], text: str) -> None:
    """Add what a script printed, up to `MAX_PRINTED` characters in all."""
    room = MAX_PRINTED - sum(map(len, printed))
    if room <= 0:
        return
    if not text.isascii():  # a lone surrogate is no text to show or store: its escape is
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > room:
        text = text[:room] + f"… (printing stops at {MAX_PRINTED:,} characters)\n"
    printed.append(text)


_sandbox_print.__name__ = _sandbox_print.__qualname__ = "print"
_sandbox_str.__name__ = _sandbox_str.__qualname__ = "str"
_sandbox_sum.__name__ = _sandbox_sum.__qualname__ = "sum"
_sandbox_round.__name__ = _sandbox_round.__qualname__ = "round"
_sandbox_reversed.__name__ = _sandbox_reversed.__qualname__ = "reversed"
_sandbox_int.__name__ = _sandbox_int.__qualname__ = "int"
_sandbox_zip.__name__ = _sandbox_zip.__qualname__ = "zip"

SAFE_BUILTINS: dict[str, Any] = {
    "len": len,
    "abs": abs,
    "min": min,
    "max": max,
    "sum": _sandbox_sum,
    "round": _sandbox_round,
    "int": _sandbox_int,
    "float": float,
    "str": _sandbox_str,
    "bool": bool,
    "list": list,
    "dict": dict,
    "set": set,
    "tuple": tuple,
    "sorted": sorted,
    "reversed": _sandbox_reversed,
    "enumerate": enumerate,
    "zip": _sandbox_zip,
    "range": range,
    "any": any,
    "all": all,
    "true": True,
    "false": False,
    "null": None,
    # as SpiffArena's script engine: constructed, added, compared; stored as ISO 8601 text
    "datetime": dt.datetime,
    "timedelta": dt.timedelta,
    "print": _sandbox_print,
}
_CALLABLE = {id(f): f for f in SAFE_BUILTINS.values() if callable(f)}
_LAZY_CALLS = frozenset({id(_sandbox_zip), id(enumerate), id(range)})
_BUILDERS = frozenset({id(list), id(tuple), id(set), id(dict), id(sorted), id(_sandbox_reversed)})
"""Calls whose result is a new container: weighed, like a display."""
_COMPARING = frozenset({id(sorted), id(min), id(max)})
_COMPARING_METHODS = frozenset({"count", "index", "remove", "sort"})
"""Calls and list methods that compare items in C (see `_prepare`)."""
_SAFE_KEYS = {id(f): f for f in (len, abs, _sandbox_int, float, bool, _sandbox_str)}
"""`key=` functions are run by C code, out of the budget's sight: only constant-time ones."""


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_READ = {
    str: _names(
        "upper lower strip lstrip rstrip split rsplit splitlines startswith endswith replace "
        "join find rfind index rindex count capitalize title swapcase casefold isdigit isalpha "
        "isalnum isspace isupper islower isnumeric isdecimal partition rpartition "
        "removeprefix removesuffix"
    ),
    list: _names("count index copy"),
    tuple: _names("count index"),
    dict: _names("get keys values items copy"),
    set: _names(
        "union intersection difference symmetric_difference issubset issuperset isdisjoint copy"
    ),
}
_READ[frozenset] = _READ[set]
_READ[dt.datetime] = _names("isoformat weekday isoweekday date")
_READ[dt.date] = _names("isoformat weekday isoweekday")
_READ[dt.timedelta] = _names("total_seconds")
_WRITE = {
    **_READ,
    list: _READ[list] | _names("append extend insert pop remove sort reverse clear"),
    dict: _READ[dict] | _names("pop popitem update setdefault clear"),
    set: _READ[set]
    | _names(
        "add discard remove pop update clear intersection_update difference_update "
        "symmetric_difference_update"
    ),
}


def _prepare(
    args: tuple[Any, ...], kwargs: dict[str, Any], cost: int, compares: bool = False
) -> tuple[Any, ...]:
    """Charge for the arguments of a call; wrap lazy iterators so consumers pay per item.

    When C will compare the items (`compares`: sorted, min, list.index...) and a script has
    changed a container in place, the arguments are weighed first (see `guards.guard_touch`).
    """
    prepared = []
    mutated = compares and CURRENT.get().mutated
    for arg in args:
        count = size(arg)
        if count:
            check_size(count, "an argument")
            cost += count
            if mutated and isinstance(arg, NESTING):
                weigh(arg)
        elif isinstance(arg, LAZY):
            arg = counted(arg)
        prepared.append(arg)
    key = kwargs.get("key")
    if key is not None and _SAFE_KEYS.get(id(key)) is not key:
        raise ExpressionError("key= may only be len, abs, int, float, bool or str")
    charge(1 + cost // ITEMS_PER_STEP)
    return tuple(prepared)


def guard_call(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Call an allow-listed builtin; nothing else is callable in the sandbox."""
    if _CALLABLE.get(id(function)) is not function:
        kind = type(function).__name__
        raise ExpressionError(f"{kind!r} object is not callable in a sandboxed expression")
    if id(function) in _LAZY_CALLS:
        charge(1)
        return function(*args, **kwargs)
    prepared = _prepare(args, kwargs, 0, id(function) in _COMPARING)
    if id(function) not in _BUILDERS:
        return function(*prepared, **kwargs)
    if prepared and type(prepared[0]) in SIZED and size(prepared[0]) >= MAX_ITEMS:
        raise too_many_items()  # before C sorts or hashes it, not after: the result weighs more
    if function is set and prepared:
        check_hashing(prepared[0])
    elif function is dict and prepared:
        _check_pairs(prepared[0])
    result = function(*prepared, **kwargs)
    weigh(result)
    return result


def _check_pairs(items: Any) -> None:
    """dict(pairs) hashes every key in one C call: refuse colliding keys first."""
    if type(items) in (list, tuple) and len(items) >= HASHED_FREELY:
        check_hashing([p[0] for p in items if type(p) in (list, tuple) and len(p) == 2])


def guard_method(value: Any, name: str, /, *args: Any, **kwargs: Any) -> Any:
    """`value.name(...)` in an expression: read-only methods, or a callable dict entry."""
    return _invoke(value, name, args, kwargs, _READ)


def guard_method_w(value: Any, name: str, /, *args: Any, **kwargs: Any) -> Any:
    """`value.name(...)` in a script: mutating methods (append, update...) are allowed too."""
    return _invoke(value, name, args, kwargs, _WRITE)


def _invoke(
    value: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], table: dict
) -> Any:
    allowed = table.get(type(value))
    if allowed is None:
        allowed = next((table[t] for t in table if isinstance(value, t)), frozenset())
    if name not in allowed:
        if isinstance(value, dict) and name in value:
            return guard_call(value[name], *args, **kwargs)
        kind = type(value).__name__
        if name in _WRITE.get(type(value), ()):
            raise ExpressionError(f"{kind}.{name}() changes a value; only scripts may do that")
        raise ExpressionError(f"{kind!r} object has no allowed method {name!r}")
    if name == "join" and len(args) == 1 and not isinstance(args[0], (list, tuple)):
        args = (list(counted(args[0])),)  # a generator of big strings must be measured first
    if name not in _READ.get(type(value), ()):
        CURRENT.get().mutated = True  # append, update...: see guards.guard_touch
    compares = name in _COMPARING_METHODS and isinstance(value, (list, tuple))
    args = _prepare(args, kwargs, size(value), compares)
    if compares and CURRENT.get().mutated:
        weigh(value)
    if name == "join":
        _check_join(value, args)
    elif name == "replace":
        _check_replace(value, args)
    elif isinstance(value, (set, frozenset)):
        for arg in args:  # union, update...: C hashes each argument in one call
            check_hashing(arg)
    elif isinstance(value, dict) and name == "update" and args:
        _check_pairs(args[0])
    result = getattr(value, name)(*args, **kwargs)
    if type(value) in SIZED:
        check_size(len(value))
    if isinstance(result, NESTING) and result is not value:
        weigh(result)  # split, union, copy...: a new container, like a display
    return result


def _check_join(separator: Any, args: tuple[Any, ...]) -> None:
    if len(args) != 1 or not isinstance(separator, str):
        return
    items = args[0]
    if not isinstance(items, (list, tuple)):
        return
    try:
        total = sum(map(len, items)) + len(separator) * max(len(items) - 1, 0)
    except TypeError:  # join itself reports the bad item
        return
    check_size(total, "the joined string")


def _check_replace(text: Any, args: tuple[Any, ...]) -> None:
    if len(args) < 2 or not all(isinstance(a, str) for a in (text, args[0], args[1])):
        return
    old, new = args[0], args[1]
    found = len(text) + 1 if old == "" else text.count(old)
    if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
        found = min(found, args[2])
    check_size(len(text) + found * (len(new) - len(old)), "the replaced string")
