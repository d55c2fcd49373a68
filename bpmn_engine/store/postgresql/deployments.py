"""Deployments on PostgreSQL: as on SQLite, one deploy at a time."""

from __future__ import annotations

from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.postgresql.connection import PostgresConnection
from bpmn_engine.store.postgresql.work import announce
from bpmn_engine.store.sqlite.deployments import DeploymentRows

DEPLOY_LOCK = 0x62706D64  # pg_advisory_xact_lock key: one deploy at a time


class PgDeploymentRows(PostgresConnection, DeploymentRows):
    """`bpmn deploy`: start timers, message and signal start subscriptions per deployment."""

    def _serialise_deploys(self, conn: Sql) -> None:
        """Under read committed two deploys could both see no active deployment: they wait
        for each other on an advisory lock, so the second sees the first's, as on SQLite."""
        conn.execute("SELECT pg_advisory_xact_lock(?)", (DEPLOY_LOCK,))
        announce(conn)  # its start timers may be due before a waiting worker looks again
