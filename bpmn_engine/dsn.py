"""Naming a database: a `postgresql://` URL or a SQLite path, shown without its password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

SCHEMES = ("postgresql://", "postgres://")


def is_postgresql(db: object) -> bool:
    """Whether `db` names a PostgreSQL database (a `postgresql://` URL)."""
    return isinstance(db, str) and db.startswith(SCHEMES)


def password(url: str) -> str | None:
    try:
        return urlsplit(url).password
    except ValueError:  # a malformed port: the password is still what follows the user
        netloc = url.partition("://")[2].partition("/")[0]
        userinfo = netloc.rpartition("@")[0]
        return userinfo.partition(":")[2] or None if ":" in userinfo else None


def redact(db: str) -> str:
    """`db` as error messages and `store.path` show it: a URL's password is `***`."""
    if not is_postgresql(db):
        return db
    secret = password(db)
    if not secret:
        return db
    try:
        parts = urlsplit(db)
        host = parts.netloc.rpartition("@")[2]
        return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))
    except ValueError:
        return db.replace(secret, "***")


def scrub(text: str, db: str) -> str:
    """`text` (a driver's error message) with the password of `db` taken out."""
    secret = password(db) if is_postgresql(db) else None
    return text.replace(secret, "***") if secret else text
