"""Dates and durations in Python scripts: the names scripts get, and how the store keeps them.

SpiffArena's script engine gives every script `datetime` and `timedelta` without an import;
so do ours (sandboxed and trusted). Variables are JSON, so a date, time, date-time or
duration a script leaves in a variable is stored as its ISO 8601 text, as FEEL's are
(`2026-01-02T00:00:00`, `P1DT2H`): read back, it is that text.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

PRELUDE: dict[str, Any] = {"datetime": dt.datetime, "timedelta": dt.timedelta}
"""Names every Python script and trusted expression sees unless a variable has the name."""


def duration_text(value: dt.timedelta) -> str:
    """ISO 8601 duration of days and time (`P1DT2H`, `-PT0.5S`), as FEEL writes it."""
    total = value.days * 86400 + value.seconds
    micro = value.microseconds
    sign = ""
    if total < 0:
        sign = "-"
        total, micro = (-total - 1, 1_000_000 - micro) if micro else (-total, 0)
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or micro:
        clock += f"{seconds}.{micro:06d}".rstrip("0") + "S" if micro else f"{seconds}S"
    text = (f"{days}D" if days else "") + (f"T{clock}" if clock else "")
    return f"{sign}P{text or 'T0S'}"


def stored_text(value: Any) -> str:
    """The text a temporal value is stored as (a `json.dumps` default); TypeError for any
    other value, which JSON cannot hold either."""
    if isinstance(value, (dt.date, dt.time)):  # datetime is a date
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return duration_text(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
