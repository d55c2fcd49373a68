"""The variables of an instance as rows: one dict per scope, read through the scope chain.

A subprocess sees its parent's variables. Writing a variable updates it in the nearest scope
that already defines it, else in the process scope; local variables exist only where an input
mapping puts them (Camunda semantics).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bpmn_engine.records.lifecycle import SNAPSHOT_STATES
from bpmn_engine.records.rows import Scope

ENGINE_SCOPE = 0
"""The scope of the rows the engine keeps about an instance beside its variables (what a
conversation remembered, the names a caller passed in): process and subprocess scopes count
from 1, so no scope chain reaches it and no node or output sees it, while its rows are
stored, undone and rewound with the step like any variable."""


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
        """The scope a write to `name` lands in. A compensation snapshot is read, never
        written: a handler's writes go past it to the live scopes."""
        chain = self.chain(scope_id)
        for sid in chain:
            if self.scopes[sid].status in SNAPSHOT_STATES:
                continue
            if name in self.values.get(sid, {}):
                return sid
        return chain[-1]
