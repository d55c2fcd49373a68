"""Messages: published, buffered until a subscription takes them, correlated or expired."""

from __future__ import annotations

import json
from typing import Any

from bpmn_engine.store.sqlite.connection import SqliteConnection, now_text


class MessageRows(SqliteConnection):
    """The messages table and the subscriptions that wait for a message or a signal."""

    def waiting_subscriptions(
        self, kind: str, name: str, key: str | None = None
    ) -> list[tuple[str, int]]:
        """(instance, subscription) pairs waiting for this message or signal, oldest first.

        A subscription without a correlation key takes any key; one with a key only its own.
        """
        rows = self.conn.execute(
            "SELECT s.instance, s.id, s.key FROM subscriptions s "
            "JOIN instances i ON i.id = s.instance "
            "WHERE s.status = 'waiting' AND s.kind = ? AND s.name = ? AND i.state = 'active' "
            "ORDER BY i.created_at, s.instance, s.id",
            (kind, name),
        ).fetchall()
        return [(r[0], r[1]) for r in rows if r[2] is None or r[2] == key]

    def message_seen(self, message_id: str) -> bool:
        row = self.conn.execute("SELECT 1 FROM messages WHERE id = ?", (message_id,)).fetchone()
        return row is not None

    def message_status(self, message_id: str) -> tuple[str, str | None] | None:
        row = self.conn.execute(
            "SELECT status, instance FROM messages WHERE id = ?", (message_id,)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def record_message(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
        status: str,
        instance: str | None = None,
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO messages (id, name, key, variables, published_at, expires_at, "
                "status, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    message_id,
                    name,
                    key,
                    json.dumps(variables),
                    now_text(),
                    expires_at,
                    status,
                    instance,
                ),
            )

    def buffer_unless_awaited(
        self,
        message_id: str,
        name: str,
        key: str | None,
        variables: dict[str, Any],
        expires_at: str,
    ) -> list[tuple[str, int]]:
        """Atomically: the subscriptions waiting for this message, or (none) buffer it.

        One write transaction, so a subscription committed at the same moment by another
        process is either seen here or finds the buffered message when it re-checks after
        its own commit: no message is lost between the two.
        """
        with self.transaction() as conn:
            waiting = self.waiting_subscriptions("message", name, key)
            if not waiting:
                conn.execute(
                    "INSERT INTO messages (id, name, key, variables, published_at, expires_at, "
                    "status, instance) VALUES (?, ?, ?, ?, ?, ?, 'buffered', NULL)",
                    (message_id, name, key, json.dumps(variables), now_text(), expires_at),
                )
            return waiting

    def buffered_message(
        self, name: str, key: str | None, now: str
    ) -> tuple[str, dict[str, Any]] | None:
        """The oldest buffered message for this name and key that has not expired."""
        row = self.conn.execute(
            "SELECT id, variables FROM messages WHERE status = 'buffered' AND name = ? "
            f"AND (key {self.dialect.same_as} ? OR CAST(? AS TEXT) IS NULL) "
            "AND expires_at > ? ORDER BY published_at, id LIMIT 1",
            (name, key, key, now),
        ).fetchone()
        return (row[0], json.loads(row[1])) if row else None
