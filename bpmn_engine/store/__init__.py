"""Stores: where instances, deployments and messages live between steps."""

from __future__ import annotations

from pathlib import Path

from bpmn_engine.dsn import is_postgresql, redact
from bpmn_engine.errors import LoadError
from bpmn_engine.runtime.storage import Store
from bpmn_engine.store.schema import SCHEMA_VERSION
from bpmn_engine.store.sqlite import SqliteStore


def open_store(db: str | Path | Store, *, read_only: bool = False) -> Store:
    """The store `db` names: a `postgresql://` URL, a SQLite file path or `:memory:`, or a
    store already open.

    `read_only` opens an existing database for looking only: never created, never written."""
    if is_postgresql(db):
        return _postgresql(db, read_only)
    if isinstance(db, str | Path):
        return SqliteStore(db, read_only=read_only)
    return db


def _postgresql(url: str, read_only: bool) -> Store:
    """The PostgreSQL store, imported only when asked for: psycopg is an optional extra."""
    try:
        from bpmn_engine.store.postgresql import PostgresStore
    except ImportError:
        raise LoadError(
            "PostgreSQL needs psycopg: pip install 'bpmn-engine[postgresql]'",
            file=redact(url),
        ) from None
    return PostgresStore(url, read_only=read_only)


__all__ = ["SCHEMA_VERSION", "SqliteStore", "open_store"]
