"""Stores: where instances, deployments and messages live between steps."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.runtime.storage import Store
from bpmn_engine.store.schema import SCHEMA_VERSION
from bpmn_engine.store.sqlite import SqliteStore


def open_store(db: str | Path | Store, *, read_only: bool = False) -> Store:
    """The store `db` names: a SQLite file path or `:memory:`, or a store already open.

    `read_only` opens an existing file for looking only: never created, never written."""
    if isinstance(db, str | Path):
        return SqliteStore(db, read_only=read_only)
    return db


__all__ = ["SCHEMA_VERSION", "SqliteStore", "open_store"]
