"""Checkpoints: every step of every instance, one SQLite transaction each."""

from bpmn_engine.store.schema import SCHEMA_VERSION
from bpmn_engine.store.sqlite import SqliteStore

__all__ = ["SCHEMA_VERSION", "SqliteStore"]
