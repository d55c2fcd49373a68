"""Data stores: named JSON values shared by every instance of every process in the database.

A step writes the stores it wrote (`Step.stores`) in its own transaction, one upsert per
store, so a crash never leaves a write half done; last writer wins (the store's row is not
compared-and-set: the step's own rows still are). Each row counts its writes, so the undo
log can tell whether anyone wrote a store after the step it would take back
(docs/data-stores.md).
"""

from __future__ import annotations

import json
from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.records.data import Step
from bpmn_engine.records.rows import DataStoreValue
from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.sqlite.connection import SqliteConnection, dumps

_COLUMNS = "name, value, written_at, instance, element, writes"
_BEFORE = "SELECT value, writes, instance, element, written_at FROM data_stores WHERE name = ?"
_UPSERT = (
    "INSERT INTO data_stores (name, value, writes, instance, element, written_at) "
    "VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, "
    "writes = data_stores.writes + 1, instance = excluded.instance, "
    "element = excluded.element, written_at = excluded.written_at RETURNING writes"
)
UNKNOWN = "unknown"  # a before-image another writer's commit raced past (PostgreSQL)


def _value(row: tuple[Any, ...]) -> DataStoreValue:
    return DataStoreValue(row[0], json.loads(row[1]), row[2], row[3], row[4], row[5])


def write_stores(conn: Sql, step: Step, now: str) -> list[list[Any]]:
    """Write the data stores `step` wrote; for an undoable step, each store's before-image
    as [name, writes after, (value, writes, instance, element, written_at) or None when the
    step created it, or UNKNOWN]. Stores go in name order: two steps writing the same stores
    lock them in one order (PostgreSQL) and never deadlock."""
    instance = step.data.head.id
    images: list[list[Any]] = []
    for name in sorted(step.stores):
        value, element = step.stores[name]
        before = conn.execute(_BEFORE, (name,)).fetchone() if step.undoable else None
        row = conn.execute(_UPSERT, (name, dumps(value), instance, element, now)).fetchone()
        if not step.undoable or row is None:
            continue
        writes = int(row[0])
        if (writes - 1) != (before[1] if before is not None else 0):
            images.append([name, writes, UNKNOWN])  # someone wrote in between (not on SQLite)
        else:
            images.append([name, writes, list(before) if before is not None else None])
    return images


def unwrite_stores(conn: Sql, instance: str, images: list[list[Any]]) -> None:
    """Put the data stores a step wrote back as they were before it, or refuse (UsageError)
    when someone wrote one since: their write would be lost, or made to look undone."""
    for name, writes, before in images:
        row = conn.execute(
            "SELECT writes, instance, element FROM data_stores WHERE name = ?", (name,)
        ).fetchone()
        if row is None or row[0] != writes or before == UNKNOWN:
            who = f" (last by instance {row[1]} at {row[2]})" if row is not None else ""
            raise UsageError(
                f"instance {instance} cannot go back past the step that wrote data store "
                f"{name!r}: the store was written since{who}, and going back would lose or "
                "hide that write"
            )
        if before is None:
            conn.execute("DELETE FROM data_stores WHERE name = ?", (name,))
        else:
            conn.execute(
                "UPDATE data_stores SET value = ?, writes = ?, instance = ?, element = ?, "
                "written_at = ? WHERE name = ?",
                (*before, name),
            )


class DataStoreRows(SqliteConnection):
    """Reading the data stores (steps write them: `write_stores`)."""

    def data_store(self, name: str) -> DataStoreValue | None:
        row = self.conn.execute(
            f"SELECT {_COLUMNS} FROM data_stores WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else _value(row)

    def data_stores(self) -> list[DataStoreValue]:
        return [
            _value(row)
            for row in self.conn.execute(f"SELECT {_COLUMNS} FROM data_stores ORDER BY name")
        ]
