"""PostgreSQL's dialect: the fragments the shared store code asks for (`store/dialect.py`),
and the server's clock, on which leases are written and compared (`leases.py`)."""

from __future__ import annotations

from functools import cache

from bpmn_engine.store.dialect import Dialect


class PostgresDialect(Dialect):
    """What PostgreSQL says differently from SQLite."""

    name = "postgresql"
    counts_executemany = False  # psycopg's executemany reports the last statement's count
    same_as = "IS NOT DISTINCT FROM"
    skip_locked = "FOR UPDATE SKIP LOCKED"  # rows another transaction holds are skipped
    position = "strpos"

    def bind(self, sql: str) -> str:
        """psycopg reads `%s` parameters, and so a literal `%` doubled."""
        return _bound(sql)

    def instant(self, text: str) -> str:
        return f"({text})::timestamptz"

    def stamp(self, moment: str = "clock_timestamp()") -> str:
        """SQL for `moment` (a timestamptz expression) as a lease time: the text the SQLite
        store's `stamp` writes (UTC, milliseconds), so both stores compare them alike."""
        return f"""to_char(({moment}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')"""


@cache
def _bound(sql: str) -> str:
    """Once per statement: parameters are written `?`, and no shared statement holds a `?`
    or a `%` of its own (a string literal with either would be a parameter instead)."""
    return sql.replace("%", "%%").replace("?", "%s")


POSTGRESQL = PostgresDialect()
