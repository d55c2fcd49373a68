"""Type checks: whether a value conforms to a type reference (a FEEL type or an item
definition), and the conversions the spec allows.

A value that does not conform is null, with a warning saying why (DMN 1.3+ 10.3.2.9.4). Two
conversions are made, as the spec says: a singleton list where a single value is expected is
its item, and a single value where a collection is expected is a list of one. One more, as
Camunda does: a string where a date, time, date and time or duration is expected is read as
one (variables from a process or the command line hold temporals as text).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

from bpmn_engine.dmn.model import ItemDefinition, TypeRef
from bpmn_engine.expressions.feel.values import (
    FeelError,
    kind,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
    text,
)

# type names as written in files (DMN 1.1 XSD names, Camunda 7's Java-ish names) → FEEL's
ALIASES = {
    "integer": "number",
    "int": "number",
    "long": "number",
    "double": "number",
    "decimal": "number",
    "float": "number",
    "dateTime": "date and time",
    "datetime": "date and time",
    "dayTimeDuration": "days and time duration",
    "yearMonthDuration": "years and months duration",
    "duration": "duration",
    "any": "Any",
}
FEEL_TYPES = frozenset(
    {
        "number", "string", "boolean", "date", "time", "date and time",
        "days and time duration", "years and months duration", "list", "context", "range",
        "function", "Any", "Null", "duration",
    }
)  # fmt: skip
_READERS: dict[str, Callable[[str], Any]] = {
    "date": parse_date,
    "time": parse_time,
    "date and time": parse_date_time,
    "days and time duration": parse_duration,
    "years and months duration": parse_duration,
    "duration": parse_duration,
}
Lookup = Callable[[TypeRef], "ItemDefinition | None"]


def feel_name(name: str) -> str:
    return ALIASES.get(name, name)


def known(type_ref: TypeRef, lookup: Lookup) -> bool:
    return type_ref.name is None or feel_name(type_ref.name) in FEEL_TYPES or bool(lookup(type_ref))


class NonConforming(Exception):
    """The value is not of the type: `message` says how."""


def conform(value: Any, type_ref: TypeRef | None, lookup: Lookup) -> Any:
    """The value, converted as the spec allows, or NonConforming."""
    if value is None or type_ref is None or type_ref.name is None:
        return value
    item = lookup(type_ref)
    if item is not None:
        return _item(value, item, lookup)
    return _builtin(value, feel_name(type_ref.name))


def _builtin(value: Any, name: str) -> Any:
    if value is None or name == "Any":
        return value
    if isinstance(value, list) and len(value) == 1 and name != "list":
        value = value[0]  # a singleton list is its item
    if isinstance(value, str) and name in _READERS:
        try:
            value = _READERS[name](value)
        except FeelError as error:
            raise NonConforming(str(error)) from None
        if name == "date and time" and not isinstance(value, dt.datetime):
            raise NonConforming(f"{text(value)!r} is not a date and time")
    actual = kind(value)
    if name == "duration" and actual in ("days and time duration", "years and months duration"):
        return value
    if name == "date and time" and actual == "date":  # DMN 1.5: at midnight UTC
        return dt.datetime.combine(value, dt.time(tzinfo=dt.UTC))
    if actual != name:
        raise NonConforming(f"{_shown(value)} is not a {name}")
    return value


def _item(value: Any, item: ItemDefinition, lookup: Lookup) -> Any:
    if item.collection:
        items = value if isinstance(value, list) else [value]
        single = ItemDefinition(item.name, item.where, item.type_ref, item.allowed, False,
                                item.components)  # fmt: skip
        return [_item(v, single, lookup) if v is not None else None for v in items]
    if item.components:
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, dict):
            raise NonConforming(f"{_shown(value)} is not a {item.name} (a context)")
        shaped = dict(value)
        for component in item.components:
            if component.name not in shaped:  # as `instance of`: every component is there
                raise NonConforming(f"{_shown(value)} has no {component.name!r} ({item.name})")
            if shaped[component.name] is not None:
                try:
                    shaped[component.name] = _item(shaped[component.name], component, lookup)
                except NonConforming as error:
                    raise NonConforming(f"{component.name}: {error}") from None
        return shaped
    if item.type_ref is not None and item.type_ref.name is not None:
        value = conform(value, item.type_ref, lookup)
    if item.allowed is not None and value is not None:
        warnings: list[str] = []
        if not item.allowed.test(value, {}, warnings):
            raise NonConforming(
                f"{_shown(value)} is not an allowed value of {item.name} ({item.allowed.source})"
            )
    return value


def _shown(value: Any) -> str:
    shown = text(value) if not isinstance(value, str) else repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{shown} ({kind(value)})" if not isinstance(value, (str, Decimal)) else shown


def instance_of(value: Any, type_ref: TypeRef, lookup: Lookup) -> bool:
    """FEEL's `value instance of T` for an item definition T: conformance by structure, as
    DMN 1.5 says (allowed values are no part of a type: `256 instance of t255` holds): a
    collection's items, each component of a context (more entries are allowed), the base
    type; null is an instance of nothing, but inside a list or context it conforms."""
    item = lookup(type_ref)
    if item is None:
        name = feel_name(type_ref.name or "Any")
        return value is not None if name == "Any" else kind(value) == name
    return _structure(value, item, lookup, 0)


def _structure(value: Any, item: ItemDefinition, lookup: Lookup, depth: int) -> bool:
    if depth > 32:  # item definitions that refer to each other in a circle
        return False
    if item.collection:
        single = replace(item, collection=False)
        return isinstance(value, list) and all(
            v is None or _structure(v, single, lookup, depth + 1) for v in value
        )
    if item.components:
        return isinstance(value, dict) and all(
            c.name in value
            and (value[c.name] is None or _structure(value[c.name], c, lookup, depth + 1))
            for c in item.components
        )
    if item.type_ref is None or item.type_ref.name is None:
        return value is not None
    inner = lookup(item.type_ref)
    if inner is not None:
        return _structure(value, inner, lookup, depth + 1)
    name = feel_name(item.type_ref.name)
    if name == "Any":
        return value is not None
    if name == "duration":
        return kind(value) in ("days and time duration", "years and months duration")
    return kind(value) == name
