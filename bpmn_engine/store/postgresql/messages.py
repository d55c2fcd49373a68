"""Messages on PostgreSQL: publishing and subscribing are serialised by one advisory lock.

On SQLite every write transaction holds the database lock, so a publisher that finds nobody
waiting and a step that subscribes at the same moment cannot miss each other. Under read
committed they could (neither sees the other's uncommitted row), so both take the same
transaction-level advisory lock: one commits first, and the other sees its row.
"""

from __future__ import annotations

from typing import Any

from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.messages import MessageRows

MESSAGE_LOCK = 0x62706D6D  # pg_advisory_xact_lock key: publishing against subscribing


def lock_messages(conn: Sql) -> None:
    """Wait for any publisher or subscriber of this database; released at commit."""
    conn.execute("SELECT pg_advisory_xact_lock(?)", (MESSAGE_LOCK,))


class PgMessageRows(PostgresConnection, MessageRows):
    """The messages table and the subscriptions that wait for a message or a signal."""

    def buffer_unless_awaited(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
    ) -> list[tuple[str, int]]:
        """As on SQLite, under the message lock."""
        with self.transaction() as conn:
            lock_messages(conn)
            return MessageRows.buffer_unless_awaited(
                self, message_id, name, key, variables, expires_at
            )
