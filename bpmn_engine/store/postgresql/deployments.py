"""Deployments on PostgreSQL: as on SQLite, with the deployment's id from `RETURNING`."""

from __future__ import annotations

from datetime import datetime

from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.sqlite.connection import instant
from bpmn_engine.store.sqlite.deployments import DeploymentRows

DEPLOY_LOCK = 0x62706D64  # pg_advisory_xact_lock key: one deploy at a time


class PgDeploymentRows(PostgresConnection, DeploymentRows):
    """`bpmn deploy`: start timers, message and signal start subscriptions per deployment."""

    def record_deployment(
        self,
        process: str,
        definition: str,
        deployed_at: datetime,
        timers: list[tuple[str, datetime, int, float | None]],
        messages: list[tuple[str, str]],
        signals: list[tuple[str, str]] = (),  # type: ignore[assignment]
    ) -> tuple[int, int | None, bool]:
        """See `DeploymentRows.record_deployment`. Two deploys racing wait for each other
        (an advisory lock), so the second sees the first's deployment, as on SQLite."""
        with self.transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (DEPLOY_LOCK,))
            row = conn.execute(
                "SELECT id, definition FROM deployments WHERE process = ? AND active = 1",
                (process,),
            ).fetchone()
            if row is not None and row[1] == definition:
                return row[0], row[0], False
            if row is not None:
                conn.execute("UPDATE deployments SET active = 0 WHERE id = ?", (row[0],))
                conn.execute(
                    "UPDATE start_timers SET status = 'cancelled' "
                    "WHERE deployment = ? AND status = 'waiting'",
                    (row[0],),
                )
            created = conn.execute(
                "INSERT INTO deployments (process, definition, deployed_at, active) "
                "VALUES (?, ?, ?, 1) RETURNING id",
                (process, definition, instant(deployed_at)),
            ).fetchone()
            deployment = int(created[0]) if created else 0
            conn.executemany(
                "INSERT INTO start_timers (deployment, element, due, repeat, interval, status) "
                "VALUES (?, ?, ?, ?, ?, 'waiting')",
                [(deployment, e, instant(due), r, i) for e, due, r, i in timers],
            )
            conn.executemany(
                "INSERT INTO start_subscriptions (deployment, element, name, kind) "
                "VALUES (?, ?, ?, ?)",
                [(deployment, element, name, "message") for element, name in messages]
                + [(deployment, element, name, "signal") for element, name in signals],
            )
        return deployment, row[0] if row else None, True
