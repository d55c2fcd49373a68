"""Clocks: the engine never reads the time itself, so tests and simulations control it.

`RealClock` is the wall clock. `VirtualClock` only moves when told to; the step loop jumps it
to the next due timer whenever nothing else can happen, so a three-day wait simulates at once
and the same run always gives the same history.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    virtual: bool

    def now(self) -> datetime: ...


class RealClock:
    virtual = False

    def now(self) -> datetime:
        return datetime.now(UTC)


class VirtualClock:
    virtual = True

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime.now(UTC)

    def now(self) -> datetime:
        return self._now

    def advance_to(self, moment: datetime) -> None:
        """Time only moves forward."""
        self._now = max(self._now, moment)
