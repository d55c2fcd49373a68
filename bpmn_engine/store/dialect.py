"""What SQL differs between the stores, in one object per store: its dialect.

The concerns of the store (checkpoints, the outbox, messages, ...; `store/sqlite/`) are
written once, in the SQL both databases speak: `ON CONFLICT ... DO UPDATE` upserts and
`ON CONFLICT DO NOTHING`, `RETURNING id`, `CAST(? AS TEXT)` for a parameter only compared
with NULL. Where the two differ, the shared code asks `self.dialect` for the fragment:

- `bind`: statements are written with `?` parameters; the driver's own placeholder
  (`?` for sqlite3, `%s` for psycopg) is what it reads.
- `instant`: a due time (UTC text, with an offset) as a moment that compares exactly
  (`julianday()` on SQLite, a `timestamptz` on PostgreSQL).
- `same_as`: NULL-safe equality (`IS` on SQLite, `IS NOT DISTINCT FROM` on PostgreSQL).
- `skip_locked`: how a reader takes rows another transaction holds, or skips them
  (nothing on SQLite, where a write transaction holds the whole database).
- `position`: the function giving where a text is found in another (1-based, 0: nowhere):
  `instr(haystack, needle)` on SQLite, `strpos` on PostgreSQL.
- `counts_executemany`: whether the driver counts the rows an `executemany` changed (a
  compare-and-set of several rows checks that count; otherwise each row is run alone).

What a store does differently, not only says (locks, NOTIFY, the server's clock for leases),
is its own subclasses' behaviour (`store/postgresql/`), on the same `Sql` connection type.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """What the shared code reads off an executed statement."""

    @property
    def rowcount(self) -> int: ...
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...
    def __iter__(self) -> Iterator[Any]: ...


class Sql(Protocol):
    """A DB-API connection taking the shared statements (`?` parameters): sqlite3's own,
    or PostgreSQL's `PgSql`."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Cursor: ...
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> Any: ...


class Dialect:
    """SQLite's: the base every store's dialect changes what it must of."""

    name = "sqlite"
    counts_executemany = True  # sqlite3 sums an executemany's rowcount
    same_as = "IS"  # NULL-safe equality
    skip_locked = ""  # a write transaction holds the whole database: no row is skipped
    position = "instr"  # (haystack, needle): where needle starts, 0 when not in it

    def bind(self, sql: str) -> str:
        """`sql`, written with `?` parameters, as the driver reads it."""
        return sql

    def instant(self, text: str) -> str:
        """SQL comparing the time in the SQL expression `text` (ISO 8601 with an offset) as
        a moment, not as text (`+02:00` and `Z` times interleave)."""
        return f"julianday({text})"


SQLITE = Dialect()
