"""Process variables: one dict per scope, read through the scope chain (Camunda semantics).

A subprocess sees its parent's variables. Writing a variable updates it in the nearest scope
that already defines it, else in the process scope; local variables exist only where an input
mapping puts them.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from typing import Any

from bpmn_engine.runtime.state import Scope


class VariableStore:
    """All variables of one instance, keyed by scope id."""

    def __init__(self, scopes: Mapping[int, Scope], values: dict[int, dict[str, Any]]) -> None:
        self.scopes = scopes
        self.values = values

    def chain(self, scope_id: int) -> list[int]:
        """The scope and its ancestors, innermost first."""
        found: list[int] = []
        current: int | None = scope_id
        while current is not None:
            found.append(current)
            current = self.scopes[current].parent
        return found

    def visible(self, scope_id: int) -> dict[str, Any]:
        """Every variable a node in this scope can read, inner scopes shadowing outer ones."""
        merged: dict[str, Any] = {}
        for sid in reversed(self.chain(scope_id)):
            merged.update(self.values.get(sid, {}))
        return merged

    def owner(self, scope_id: int, name: str) -> int:
        """The scope a write to `name` lands in."""
        chain = self.chain(scope_id)
        for sid in chain:
            if name in self.values.get(sid, {}):
                return sid
        return chain[-1]


# values JSON gives back as themselves (a float only when finite): no round trip needed
_SCALARS = frozenset({str, int, bool, type(None)})


def storable(name: str, value: Any) -> Any:
    """The value as the store will give it back (JSON), or ValueError saying why it can't be.

    Keeping exactly the JSON-decoded value in memory means memory never differs from the
    rows (a tuple is a list at once, not only after a restart), and no caller keeps a
    reference into the instance's state.
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"variable name {name!r} must be a non-empty string")
    kind = type(value)
    if kind in _SCALARS or (kind is float and math.isfinite(value)):
        return value  # most writes: a counter, a flag, a name
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        kind = type(value).__name__
        raise ValueError(f"variable {name!r} ({kind}) cannot be stored as JSON: {error}") from None


def storable_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: storable(name, value) for name, value in values.items()}


def copied(values: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of storable values (for an event a listener may keep): scalars as they
    are, containers by `copy.deepcopy`."""
    return {
        name: value if type(value) in _SCALARS or type(value) is float else copy.deepcopy(value)
        for name, value in values.items()
    }
