"""The outbox: rows a committed step sent to other instances, until they are delivered."""

from __future__ import annotations

import json
from typing import Any

from bpmn_engine.store.sqlite.connection import SqliteConnection


class OutboxRows(SqliteConnection):
    """Pending sends, who already received each, and marking one delivered."""

    def pending_outbox(self, source: str | None = None) -> list[dict[str, Any]]:
        """Pending rows in the order they were sent (of one sending instance, or all)."""
        rows = self.conn.execute(
            "SELECT id, source, kind, name, key, variables FROM outbox WHERE status = 'pending' "
            + ("AND source = ? " if source is not None else "")
            + "ORDER BY id",
            (source,) if source is not None else (),
        ).fetchall()
        return [
            {
                "id": r[0],
                "source": r[1],
                "kind": r[2],
                "name": r[3],
                "key": r[4],
                "variables": json.loads(r[5]),
            }
            for r in rows
        ]

    def delivered_to(self, outbox_id: int) -> set[str]:
        rows = self.conn.execute(
            "SELECT receiver FROM outbox_deliveries WHERE outbox = ?", (outbox_id,)
        )
        return {r[0] for r in rows}

    def fail_outbox(self, outbox_id: int, error: str) -> None:
        """Set a row aside that cannot be delivered: it blocks no other delivery."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE outbox SET status = 'failed', error = ? "
                "WHERE id = ? AND status = 'pending'",
                (error, outbox_id),
            )

    def failed_outbox(self) -> list[dict[str, Any]]:
        """Rows set aside, with why (`bpmn worker` and `Engine.undeliverable` report them)."""
        rows = self.conn.execute(
            "SELECT id, source, kind, name, key, error FROM outbox WHERE status = 'failed' "
            "ORDER BY id"
        ).fetchall()
        keys = ("id", "source", "kind", "name", "key", "error")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def finish_outbox(self, outbox_id: int) -> None:
        """Every receiver has it (idempotent: a second deliverer finishing it changes nothing)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE outbox SET status = 'delivered' WHERE id = ? AND status = 'pending'",
                (outbox_id,),
            )
