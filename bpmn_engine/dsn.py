"""Naming a database: a PostgreSQL URL or keyword string, or a SQLite path, shown without
its passwords.

PostgreSQL is named the two ways libpq reads: a URL (`postgresql://user:pw@host/db?...`) or
a keyword/value string (`host=db dbname=bpmn password=...`). A password can sit in either
place of a URL (the user info, or a `password`/`sslpassword` parameter) and in a keyword
string; every one is shown as `***`, in the name and in a driver's messages, however it was
written (percent-encoded or not, with an `@` left unencoded, which libpq and Python split
at different places).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote

SCHEMES = ("postgresql://", "postgres://")
SECRET_KEYS = frozenset({"password", "sslpassword"})
# libpq's connection keywords (PostgreSQL 17 docs, 32.1.2): a string of `key=value` pairs
# with only these keys names a database, not a file
KEYWORDS = frozenset(
    {
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth",
        "channel_binding", "connect_timeout", "client_encoding", "options", "application_name",
        "fallback_application_name", "keepalives", "keepalives_idle", "keepalives_interval",
        "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode",
        "requiressl", "sslnegotiation", "sslcompression", "sslcert", "sslkey", "sslpassword",
        "sslcertmode", "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer",
        "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib",
        "gssdelegation", "service", "target_session_attrs", "load_balance_hosts",
    }
)  # fmt: skip
_PAIR = re.compile(r"\s*(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)*)", re.DOTALL)
_URL = re.compile(r"(postgres(?:ql)?://)([^/?#]*)(.*)", re.DOTALL)
_QUERY_SECRET = re.compile(r"((?:^|&)(?:ssl)?password=)([^&#]*)")


def keyword_pairs(db: str) -> list[tuple[str, str, tuple[int, int]]] | None:
    """The (key, value as written, where the value is) of a libpq keyword string; None when
    `db` is not one (a file name, a URL)."""
    pairs: list[tuple[str, str, tuple[int, int]]] = []
    position = 0
    while position < len(db):
        found = _PAIR.match(db, position)
        if found is None or found.end() == position:
            break
        pairs.append((found.group(1), found.group(2), found.span(2)))
        position = found.end()
    if db[position:].strip() or not pairs or any(key not in KEYWORDS for key, _, _ in pairs):
        return None
    return pairs


def is_postgresql(db: object) -> bool:
    """Whether `db` names a PostgreSQL database (a `postgresql://` URL or a keyword string)."""
    return isinstance(db, str) and (db.startswith(SCHEMES) or keyword_pairs(db) is not None)


def _keyword_value(written: str) -> str:
    if written.startswith("'") and written.endswith("'") and len(written) >= 2:
        written = written[1:-1]
    return re.sub(r"\\(.)", r"\1", written, flags=re.DOTALL)


def secrets(db: str) -> list[str]:
    """Every password `db` holds, each as written and as meant, longest first."""
    found: list[str] = []
    url = _URL.fullmatch(db) if db.startswith(SCHEMES) else None
    if url is not None:
        userinfo = url.group(2).rpartition("@")[0]
        if ":" in userinfo:
            written = userinfo.partition(":")[2]
            found += [written, unquote(written)]
            if "@" in written:  # libpq ends the user info at the first `@`: the rest of the
                found.append(written.partition("@")[2] + "@")  # password is its host name
        query = url.group(3).partition("?")[2].partition("#")[0]
        for written in (m.group(2) for m in _QUERY_SECRET.finditer(query)):
            found += [written, unquote(written)]
        for key, value in parse_qsl(query, keep_blank_values=True):
            if key in SECRET_KEYS:
                found += [value, quote(value, safe="")]
    else:
        for key, written, _ in keyword_pairs(db) or ():
            if key in SECRET_KEYS:
                found += [written, _keyword_value(written)]
    return sorted({s for s in found if s and s != "''"}, key=len, reverse=True)


def redact(db: str) -> str:
    """`db` as error messages, banners and `store.path` show it: every password `***`."""
    if not is_postgresql(db):
        return db
    url = _URL.fullmatch(db) if db.startswith(SCHEMES) else None
    if url is not None:
        scheme, authority, rest = url.groups()
        userinfo, at, host = authority.rpartition("@")
        if ":" in userinfo:
            authority = f"{userinfo.partition(':')[0]}:***{at}{host}"
        path, mark, query = rest.partition("?")
        shown = scheme + authority + path + mark + _QUERY_SECRET.sub(r"\1***", query)
    else:
        shown, end = "", 0
        for key, _, (start, stop) in keyword_pairs(db) or ():
            if key in SECRET_KEYS:
                shown, end = shown + db[end:start] + "***", stop
        shown += db[end:]
    return scrub(shown, db)  # what the structure missed (a `/` or `#` left unencoded)


def scrub(text: str, db: str) -> str:
    """`text` (a driver's error message, a name) with every password of `db` taken out."""
    if not is_postgresql(db):
        return text
    for secret in secrets(db):
        text = text.replace(secret, "***")
    return text
